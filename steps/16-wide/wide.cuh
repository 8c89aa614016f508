/// @file wide.cuh
/// @brief Step 16's work: step 12's wide tiles (128 input columns, 64 output elements a row),
/// whose whole blocks load each input row through a line window, as step 13's.
///
/// What changed since step 15: the tile of the float kernel at odd row lengths (step 13's
/// line windows on a tile twice as wide), and the kernel, whose whole blocks copy their
/// windows with step 11's cp.async. The order is step 15's.
#pragma once

#include "06-float4/float4.cuh"
#include "11-async-copy/async_copy.cuh"
#include "12-reads/reads.cuh"
#include "13-lines/lines.cuh"
#include "kernel.hpp"

namespace step16 {

/// Step 13's line windows (LineWindows) on step 12's wide tiles: a block reads a piece of 128
/// input columns from each of its rows, where step 13's reads 64. A piece that starts inside
/// a sector touches 17 sectors for 16 of data, where step 13's touches 9 for 8: half as many
/// sectors read by two neighbouring blocks. Windows of 128 + 32 floats (40 chunks of 16
/// bytes), 6 wide loads a thread; 72 windows are 45 KB. Float only, as step 12's Wide.
template <typename T>
struct WideLines : step13::LineWindows<step12::Wide<T>> {
  /// Blocks an SM the registers must allow for step 13's kernel: 2 (at 3, 40 registers a
  /// thread, the 6 wide loads held before the first shared store spill).
  static constexpr int kMinBlocks = 2;
};

/// WideLines for the kernel below, whose copies hold no register: the 4 blocks an SM that
/// step 13's float kernel has (4 x 45 KB of windows fit an SM's shared memory; 32 registers a
/// thread).
template <typename T>
struct WideCopies : WideLines<T> {
  static constexpr int kMinBlocks = 4;  ///< Blocks an SM the registers must allow.
};

/// Moves the tiles of work W (WideCopies): step 13's kernel, whose whole blocks' window loads
/// are step 11's cp.async, each 16-byte chunk copied straight into its window slot, all
/// issued back to back, then one wait; the other blocks load as step 11's (cp.async of each
/// element, the seam blocks through registers). Then the barrier, and step 06's store phase.
template <class W>
__global__ void __launch_bounds__(W::kThreads, tt::min_blocks(W::kMinBlocks, W::kThreads))
    transpose_windows(const tt::Elem<W>* __restrict__ in, tt::Elem<W>* __restrict__ out, int rows,
                      int cols) {
  using T = tt::Elem<W>;
  constexpr int V = W::kWideVec;
  __shared__ alignas(16) T tile[W::kTileElems];
  const tt::Thread me = tt::this_thread();

  if (W::wide(me, rows, cols)) {  // the change since step 13's kernel: copies, no registers
#pragma unroll
    for (int p = 0; p < W::kWidePasses; ++p) {
      const tt::Move<V> m = W::wide_load(me, p, rows, cols);
      if (m.inside) step11::copy_async<sizeof(T) * V>(&tile[m.slot_of(0)], in + m.global);
    }
    step11::wait_all();
    __syncthreads();
    step06::store_phase<false, W>(me, tile, out, rows, cols);
  } else {
    if (tt::is_seam<W>(me))
      step11::seam_phase<W>(me, in, tile, rows, cols);
    else
      step11::load_phase<true, W>(me, in, tile, rows, cols);
    __syncthreads();
    step06::store_phase<true, W>(me, tile, out, rows, cols);
  }
}

}  // namespace step16
