// Step 03: stage a 32 x 32 tile in shared memory.
//
// What changed since 02: a block of 32 x 32 threads first copies one 32 x 32 tile of the
// input into shared memory, row by row, then (after __syncthreads) writes the transposed
// tile to the output, again row by row. Both global sides are now coalesced: every warp
// reads 32 consecutive input elements and writes 32 consecutive output elements. The
// transpose itself happens inside shared memory, where a warp reads a tile *column*. A move
// now has a tile slot as well as a global offset: load() says which input element a thread
// reads and which slot it fills, store() which slot it reads and which output element it
// writes (both in shared.cuh). The block shape is fixed by the tile (32 x 32), so this step
// takes no --block.
//
// What to look for: shared memory has 32 banks of 4 bytes; word w is in bank w mod 32.
// In a 32-wide float tile, tile(r, c) is word 32 r + c, so a column (fixed c, r = 0..31)
// is 32 words all in bank c: a 32-way bank conflict. The read of each column takes 32
// wavefronts instead of 1 (run with --explain to see it lane by lane).
//
// Expected effect: the global side is fixed, but the conflict serialises the shared reads
// (docs/03-shared.md predicts and measures by how much).
//
// Run:   03-shared
//        03-shared --explain            # the 32-way conflict, lane by lane

#include "03-shared/shared.hpp"

#include "03-shared/shared.cuh"
#include "tiled.hpp"

namespace step03 {

constexpr int kTile = 32;  ///< Tile side in elements; the block is kTile x kTile threads.

// --- The work: where each thread's element is, in the matrices and in the tile (the moves:
// TileMoves in shared.cuh, where step 04 finds them too). ----------------------------------

/// The tile layout: row-major, kTile elements a row (no padding).
struct Dense {
  /// Shared-memory slot of tile element (r, c).
  TT_HD static constexpr int of(int r, int c) { return r * kTile + c; }
};

/// One 32 x 32 tile a block, one element a thread each way.
template <typename T>
struct Tile : TileMoves<kTile, T, Dense> {
  static constexpr int kTileElems = kTile * kTile;
};

// --- The kernel. -------------------------------------------------------------------------

template <class W>
__global__ void transpose_shared(const tt::Elem<W>* __restrict__ in, tt::Elem<W>* __restrict__ out,
                                 int rows, int cols) {
  using T = tt::Elem<W>;
  __shared__ T tile[W::kTileElems];
  const tt::Thread me = tt::this_thread();

  // A warp reads 32 neighbours of an input row (coalesced) into a tile row.
  const tt::Move<> load = W::load(me, 0, rows, cols);
  if (load.inside) tile[load.slot] = in[load.global];
  __syncthreads();  // every thread reaches it: no return above, the branch only guards

  // A warp writes 32 neighbours of an output row (coalesced) from a tile *column*: one bank.
  const tt::Move<> store = W::store(me, 0, rows, cols);
  if (store.inside) out[store.global] = tile[store.slot];
}

// --- The variant the program offers. -----------------------------------------------------

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "03-shared";
    st.title = "Shared-memory tile 32 x 32: both global sides coalesced, 32-way bank conflict";
    st.variants = {tt::variant<tt::Path<Tile<float>, transpose_shared<Tile<float>>>,
                               tt::Path<Tile<double>, transpose_shared<Tile<double>>>>(
        "tile-32x32", "32 x 32 threads, one element each, unpadded tile")};
    st.default_variant = "tile-32x32";
    return st;
  }();
  return s;
}

}  // namespace step03
