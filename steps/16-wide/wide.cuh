/// @file wide.cuh
/// @brief Step 16's work: step 12's wide tiles (128 input columns, 64 output elements a row),
/// whose whole blocks load each input row through a line window, as step 13's.
///
/// What changed since step 15: the tile of the float kernel at odd row lengths. Step 13's
/// line windows, on a tile twice as wide; the kernel is step 13's and the order step 15's.
#pragma once

#include "06-float4/float4.cuh"
#include "11-async-copy/async_copy.cuh"
#include "12-reads/reads.cuh"
#include "13-lines/lines.cuh"
#include "kernel.hpp"

namespace step16 {

/// Step 12's wide tiles with step 13's line-window loads in whole blocks.
///
/// A block reads a piece of 128 input columns from each of its tile rows, where step 13's
/// reads 64: a piece that starts inside a sector touches 17 sectors for 16 sectors of data,
/// where step 13's touches 9 for 8, so half as many sectors are read by two neighbouring
/// blocks. Tile row i holds its row from the line on which the piece starts, off(i) = (r0 +
/// i) cols + c0 mod L elements into it (L = 32 floats), in a window of 128 + L elements: 40
/// chunks of 16 bytes, each inside one line. A thread loads chunk q = t mod 40 of tile rows
/// t / 40 + 12 k, only the chunks that overlap the piece, and only in the rows a store reads
/// (step 12's rows_read()). The stores are step 12's wide moves, element (i, u) read from
/// slot i kPitch + off(i) + u: step 13's LineWindows on step 12's Wide, 128 columns a block.
/// 72 windows of 160 floats: 45 KB, under the 48 KB of static shared memory a block may
/// have; in double they would not fit, so this work is float only.
template <typename T>
struct WideLines : step13::LineWindows<step12::Wide<T>, step12::Wide<T>::kCols> {
  /// Blocks an SM the registers must allow: 2 (at 3, 40 registers a thread, the 6 wide loads
  /// held before the first shared store spill).
  static constexpr int kMinBlocks = 2;
  static_assert(sizeof(T) == 4, "in double the windows pass 48 KB of static shared memory");
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
