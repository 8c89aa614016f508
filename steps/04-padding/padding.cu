// Step 04: pad the tile by one column.
//
// What changed since 03: tile_slot() (padding.cuh), the place of a tile element in shared
// memory, so that a warp's column read no longer falls in one bank (how and why: the comment
// inside its region, and docs/04-padding.md). The moves and the kernel are step 03's, with the
// tile side as a template parameter so that a 16 x 16 tile can be tried too.
//
// Expected effect: the shared reads drop from 32 wavefronts to 1 (docs/04-padding.md
// predicts and measures what that buys).
//
// Run:   04-padding
//        04-padding --variant all --explain

#include "04-padding/padding.hpp"

#include "04-padding/padding.cuh"
#include "tiled.hpp"

namespace step04 {

using tt::Coord;

// --- The work: step 03's moves; only the slot of a tile element changed (tile_slot(), in
// padding.cuh, where step 05 finds it too). -------------------------------------------------

/// One TILE x TILE tile a block of TILE x TILE threads, one element a thread each way.
template <int TILE, typename T>
struct Tile : tt::Work<T> {
  static constexpr int kTileElems = TILE * (TILE + 1);
  static tt::Launch launch(const tt::Problem& pb) {
    return tt::tile_grid(pb, TILE, dim3(TILE, TILE));
  }
  /// Thread (x, y) reads input element (TILE by + y, TILE bx + x) into tile row y, column x.
  TT_HD static tt::Move<> load(const tt::Thread& me, int /*pass*/, int rows, int cols) {
    const int r = me.thread.y, c = me.thread.x;  // in the tile
    const Coord src{static_cast<int>(me.block.y) * TILE + r,
                    static_cast<int>(me.block.x) * TILE + c};
    return {tt::inside(src, rows, cols), tt::offset(src.row, src.col, cols), tile_slot<TILE>(r, c)};
  }
  /// Thread (x, y) writes output element (TILE bx + y, TILE by + x): tile row x, column y.
  TT_HD static tt::Move<> store(const tt::Thread& me, int /*pass*/, int rows, int cols) {
    const int r = me.thread.y, c = me.thread.x;  // in the output's tile
    const Coord dst{static_cast<int>(me.block.x) * TILE + r,
                    static_cast<int>(me.block.y) * TILE + c};
    return {tt::inside(dst, cols, rows), tt::offset(dst.row, dst.col, rows), tile_slot<TILE>(c, r)};
  }
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
