// Step 05: each thread moves several elements, and issues all its loads first.
//
// What changed since 04: the block shrinks from 32 x 32 to 32 x ROWS threads, and each thread
// makes 32 / ROWS moves, one a pass. The moves are step 04's with the pass added to the row.
// The kernel loads every element of its passes into a register array in one unrolled loop,
// then stores the array into the tile: all 32 / ROWS global loads of a thread are issued
// before its first shared store, so they are in flight at the same time. The tile layout is
// step 04's.
//
// What to look for: a load's data arrives hundreds of nanoseconds after it is issued. One
// load a thread leaves the memory system idle while the thread waits; k independent loads a
// thread keep k times the bytes in flight (Little's law: bandwidth = bytes in flight /
// latency). The register array makes the independence plain; scripts/sass_check.py confirms
// in the machine code that the loads come before the first STS. A block of 256 threads
// instead of 1024 also lets more blocks share an SM, and keeps fewer threads waiting at each
// barrier. The bank arithmetic is unchanged: a warp still reads one tile row and one tile
// column per access.
//
// Expected effect: docs/05-multi-element.md predicts the bandwidth of each variant from the
// bytes in flight and a measured latency, then measures. Compare the variants: elements-1 is
// step 04 again, elements-8 gives each thread 8.
//
// Run:   05-multi-element
//        05-multi-element --variant all      # 1, 2, 4 and 8 elements per thread

#include "05-multi-element/multi_element.hpp"

#include <string>

#include "04-padding/padding.cuh"
#include "tiled.hpp"

namespace step05 {

using tt::Coord;

constexpr int kTile = 32;  ///< Tile side in elements; the block is kTile x ROWS threads.

// --- The work: step 04's moves, pass by pass. ---------------------------------------------

/// Shared-memory slot of tile element (r, c): step 04's (04-padding/padding.cuh).
TT_HD constexpr int tile_slot(int r, int c) {
  return step04::tile_slot<kTile>(r, c);
}

/// ROWS: thread rows a block; each thread makes kTile / ROWS moves each way.
template <int ROWS, typename T>
struct Multi : tt::Work<T> {
  static_assert(kTile % ROWS == 0, "the block's rows must divide the tile");
  static constexpr int kLoadPasses = kTile / ROWS, kStorePasses = kTile / ROWS;
  static constexpr int kTileElems = kTile * (kTile + 1);
  static tt::Launch launch(const tt::Problem& pb) {
    return tt::tile_grid(pb, kTile, dim3(kTile, ROWS));
  }
  /// Whether the block's whole tile lies inside the matrix, so that no move needs a check.
  TT_HD static bool whole_tile(const tt::Thread& me, int rows, int cols) {
    return tt::whole_tile(me.block, kTile, rows, cols);
  }
  // LAB BEGIN 05-multi-element
  /// Pass p: thread (x, y) reads input element (32 by + y + p ROWS, 32 bx + x).
  TT_HD static tt::Move<> load(const tt::Thread& me, int pass, int rows, int cols) {
    const int r = me.thread.y + pass * ROWS, c = me.thread.x;  // in the tile
    const Coord src{static_cast<int>(me.block.y) * kTile + r,
                    static_cast<int>(me.block.x) * kTile + c};
    return {tt::inside(src, rows, cols), tt::offset(src.row, src.col, cols), tile_slot(r, c)};
  }
  /// Pass p: thread (x, y) writes output element (32 bx + y + p ROWS, 32 by + x).
  TT_HD static tt::Move<> store(const tt::Thread& me, int pass, int rows, int cols) {
    const int r = me.thread.y + pass * ROWS, c = me.thread.x;  // in the output's tile
    const Coord dst{static_cast<int>(me.block.x) * kTile + r,
                    static_cast<int>(me.block.y) * kTile + c};
    return {tt::inside(dst, cols, rows), tt::offset(dst.row, dst.col, rows), tile_slot(c, r)};
  }
  // LAB END
};

// --- The kernel: loads first, into registers. --------------------------------------------

// The load phase is compiled for the host too, for the emulation (HostLoad below), where gcc
// cannot tell that v[p] is read only where it was loaded (the same check guards both).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// LAB BEGIN 05-multi-element
/// Before the barrier: every load of this thread into registers, issued back to back, then
/// the registers into the tile. CHECKED: the block's tile reaches past the matrix, so each
/// move is checked; a whole tile needs no check, and without checks the compiler keeps all
/// the loads ahead of the first shared store (with them it may not: scripts/sass_check.py).
template <bool CHECKED, class W, typename T>
TT_HD void load_phase(const tt::Thread& me, const T* __restrict__ in, T* tile, int rows,
                      int cols) {
  T v[W::kLoadPasses];
#pragma unroll
  for (int p = 0; p < W::kLoadPasses; ++p) {
    const tt::Move<> m = W::load(me, p, rows, cols);
    if (!CHECKED || m.inside) v[p] = in[m.global];
  }
#pragma unroll
  for (int p = 0; p < W::kLoadPasses; ++p) {
    const tt::Move<> m = W::load(me, p, rows, cols);
    if (!CHECKED || m.inside) tile[m.slot] = v[p];
  }
}
// LAB END

/// The load phase on the CPU, for the emulation (tt::Path's third argument): the same function
/// the kernel calls, run thread by thread, so that the grader tests this code, not a copy.
template <class W>
struct HostLoad {
  template <bool CHECKED, typename T>
  static void load(const tt::Thread& me, const T* in, T* tile, int rows, int cols) {
    load_phase<CHECKED, W>(me, in, tile, rows, cols);
  }
};
#pragma GCC diagnostic pop

/// After the barrier: a tile column to an output row, pass by pass.
template <bool CHECKED, class W, typename T>
__device__ void store_phase(const tt::Thread& me, const T* tile, T* __restrict__ out, int rows,
                            int cols) {
#pragma unroll
  for (int p = 0; p < W::kStorePasses; ++p) {
    const tt::Move<> m = W::store(me, p, rows, cols);
    if (!CHECKED || m.inside) out[m.global] = tile[m.slot];
  }
}

template <class W>
__global__ void transpose_multi(const tt::Elem<W>* __restrict__ in, tt::Elem<W>* __restrict__ out,
                                int rows, int cols) {
  using T = tt::Elem<W>;
  __shared__ T tile[W::kTileElems];
  const tt::Thread me = tt::this_thread();
  const bool whole = W::whole_tile(me, rows, cols);  // the same for every thread of the block

  if (whole)
    load_phase<false, W>(me, in, tile, rows, cols);
  else
    load_phase<true, W>(me, in, tile, rows, cols);
  __syncthreads();
  if (whole)
    store_phase<false, W>(me, tile, out, rows, cols);
  else
    store_phase<true, W>(me, tile, out, rows, cols);
}

// --- The variants the program offers. ----------------------------------------------------

template <int ROWS>
tt::Variant variant() {
  const int per = kTile / ROWS;
  using F = Multi<ROWS, float>;
  using D = Multi<ROWS, double>;
  return tt::variant<tt::Path<F, transpose_multi<F>, HostLoad<F>>,
                     tt::Path<D, transpose_multi<D>, HostLoad<D>>>(
      "elements-" + std::to_string(per), "32 x " + std::to_string(ROWS) + " threads, " +
                                             std::to_string(per) +
                                             " element(s) per thread, 32 x 33 tile");
}

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "05-multi-element";
    st.title = "Several elements per thread: 32 x 8 threads move a 32 x 32 tile";
    st.variants = {variant<32>(), variant<16>(), variant<8>(), variant<4>()};
    st.default_variant = "elements-4";
    return st;
  }();
  return s;
}

}  // namespace step05
