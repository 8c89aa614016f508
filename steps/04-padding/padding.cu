// Step 04: pad the tile by one column.
//
// What changed since 03: tile_slot() (padding.cuh), the place of a tile element in shared
// memory, so that a warp's column read no longer falls in one bank (how and why: the comment
// inside its region, and docs/04-padding.md). The moves are step 03's (03-shared/shared.cuh),
// the same code with another layout, and so is the kernel, with the tile side as a template
// parameter so that a 16 x 16 tile can be tried too.
//
// Expected effect: the shared reads drop from 32 wavefronts to 1 (docs/04-padding.md
// predicts and measures what that buys).
//
// Run:   04-padding
//        04-padding --variant all --explain

#include "04-padding/padding.hpp"

#include "03-shared/shared.cuh"
#include "04-padding/padding.cuh"
#include "tiled.hpp"

namespace step04 {

// --- The work: step 03's moves (TileMoves, 03-shared/shared.cuh); only the slot of a tile
// element changed (tile_slot(), in padding.cuh, where step 05 finds it too). ---------------

/// The padded layout: rows of TILE + 1 elements.
template <int TILE>
struct Padded {
  /// Shared-memory slot of tile element (r, c).
  TT_HD static constexpr int of(int r, int c) { return tile_slot<TILE>(r, c); }
};

/// One TILE x TILE tile a block of TILE x TILE threads, one element a thread each way.
template <int TILE, typename T>
struct Tile : step03::TileMoves<TILE, T, Padded<TILE>> {
  static constexpr int kTileElems = TILE * (TILE + 1);
};

// --- The kernel: step 03's. ---------------------------------------------------------------

template <class W>
__global__ void transpose_padded(const tt::Elem<W>* __restrict__ in, tt::Elem<W>* __restrict__ out,
                                 int rows, int cols) {
  using T = tt::Elem<W>;
  __shared__ T tile[W::kTileElems];
  const tt::Thread me = tt::this_thread();

  const tt::Move<> load = W::load(me, 0, rows, cols);
  if (load.inside) tile[load.slot] = in[load.global];
  __syncthreads();

  // The column read: tile column y, read down its rows (tile_slot() decides its banks).
  const tt::Move<> store = W::store(me, 0, rows, cols);
  if (store.inside) out[store.global] = tile[store.slot];
}

// --- The variants the program offers. ----------------------------------------------------

template <int TILE>
tt::Variant variant(const char* name, const char* summary) {
  return tt::variant<tt::Path<Tile<TILE, float>, transpose_padded<Tile<TILE, float>>>,
                     tt::Path<Tile<TILE, double>, transpose_padded<Tile<TILE, double>>>>(name,
                                                                                         summary);
}

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "04-padding";
    st.title = "Padded tile 32 x 33: the column read is conflict-free";
    st.variants = {
        variant<32>("pad-32x33", "32 x 32 threads, tile padded to 32 x 33"),
        variant<16>("pad-16x17",
                    "16 x 16 threads, tile padded to 16 x 17 (a 2-way conflict remains)"),
    };
    st.default_variant = "pad-32x33";
    return st;
  }();
  return s;
}

}  // namespace step04
