/// @file lines.cuh
/// @brief Step 13's work: step 10's skewed tiles, whose whole blocks load each input row of
/// their tile as line-aligned 16-byte vectors, so that no warp load crosses a 128-byte line.
///
/// What changed since step 10: the load moves of the whole blocks of the main grid, and the
/// tile they fill. The edge blocks and the seam blocks move as in step 10; every block stores
/// as in step 10 (the same output elements in the same order), from its own tile layout.
#pragma once

#include <cstdint>

#include "06-float4/float4.cuh"
#include "09-alignment/alignment.cuh"
#include "10-invariants/invariants.cuh"
#include "12-reads/reads.cuh"
#include "kernel.hpp"

namespace step13 {

/// Skewed work B (step 10's tiles, or step 12's wide ones in step 16) with line-window loads
/// in whole blocks; a block of B reads kCols input columns (step12::block_cols: B::kTile, or
/// B::kCols where B states it) of its B::kRows input rows, and writes B::kTile elements of
/// each output row.
///
/// Tile row i of a block holds input row r0 + i from the line on which its piece (kCols
/// elements from column c0) starts: the piece starts off(i) = (r0 + i) cols + c0 mod L
/// elements into that line (L: elements a line, 32 floats or 16 doubles), so the row's
/// window, kCols + L elements from the line's start, holds the piece whatever off(i) is. The
/// window is read as kChunks 16-byte vectors, each inside one line; a thread loads chunk
/// q = t mod kChunks of tile rows t / kChunks + kWideStep k, and only the chunks that overlap
/// the piece. Elements of a chunk outside the piece land in the tile and are never stored.
/// The stores are B's moves, element (i, u) read from slot i kPitch + off(i) + u.
///
/// The offsets are taken from element 0 of the matrix: the kernel needs the input aligned to
/// a line (kPointerAlign), and otherwise runs step 10's kernel (tt::variant's fallback).
template <class B>
struct LineWindows : B {
  using Base = B;
  using T = typename B::Elem;
  static constexpr int kCols = step12::block_cols<B>();  ///< Input columns a block: 64, 128.
  static constexpr int kLine = 128 / static_cast<int>(sizeof(T));  ///< Elements a line.
  static constexpr int kPitch = kCols + kLine;       ///< A tile row: its window, in elements.
  static constexpr int kWideVec = tt::kVec16<T>;     ///< Elements a 16-byte load.
  static constexpr int kChunks = kPitch / kWideVec;  ///< 16-byte chunks a window.
  static constexpr int kWideStep = Base::kThreads / kChunks;  ///< Rows a wide pass.
  /// Wide loads a thread.
  static constexpr int kWidePasses = (Base::kRows + kWideStep - 1) / kWideStep;
  static constexpr int kTileElems = Base::kRows * kPitch;          ///< kRows windows.
  static constexpr std::size_t kPointerAlign = 128;                ///< Lines are counted from in.
  static constexpr int kOutStride = Base::kThreads / Base::kTile;  ///< Output rows a pass: 8.
  static_assert(kPitch % kWideVec == 0 && kLine % kWideVec == 0, "whole chunks a window");
  static_assert((kLine & (kLine - 1)) == 0, "a line: a power of two elements");
  static_assert(kTileElems * sizeof(T) <= 48 * 1024, "static shared memory of one block");

  /// Where the rows are odd in length. The stores read tile column u from rows i of slots
  /// i kPitch + off(i) + u, and kPitch is a whole number of bank rows, so their banks follow
  /// off(i) = (r0 + i) cols + c0 mod L: all different over 32 consecutive rows (16 in double)
  /// only where cols is odd. At an even row length they would conflict (32-way where cols is
  /// a multiple of L), and step 10's kernel runs instead.
  static bool fits(const tt::Shape& s) { return s.cols % 2 == 1; }
  /// Whether block @p me loads through line windows: a whole block of the main grid (every
  /// chunk it loads then lies inside the matrix: a piece's chunks run at most kWideVec - 1
  /// elements past its last column, into the next row, and the block's rows are not the last).
  TT_HD static bool wide(const tt::Thread& me, int rows, int cols) {
    return Base::whole_tile(me, rows, cols);
  }
  /// How far into its line the piece of tile row @p i starts, in elements.
  TT_HD static int offset(const tt::Thread& me, int i, int cols) {
    const std::int64_t e =
        (std::int64_t{me.block.y} * Base::kTile + i) * cols + std::int64_t{me.block.x} * kCols;
    return static_cast<int>(e & (kLine - 1));  // e >= 0, and a line is a power of two
  }
  /// Wide pass k of a whole block: chunk q = t mod kChunks of tile row t / kChunks +
  /// kWideStep k, made only where the row is one a store reads (step 12's rows_read()) and
  /// the chunk overlaps the row's piece.
  TT_HD static tt::Move<kWideVec> wide_load(const tt::Thread& me, int pass, int rows, int cols) {
    const int t = static_cast<int>(me.thread.x), q = t % kChunks;
    const int i = t / kChunks + kWideStep * pass;  // tile row
    tt::Move<kWideVec> m{};
    const int off = i < Base::kRows ? offset(me, i, cols) : 0;
    m.inside = t / kChunks < kWideStep &&
               i < step12::rows_read<Base::kSectorElems>(Base::kTile, rows) &&
               q * kWideVec + kWideVec > off && q * kWideVec < off + kCols;
    m.global = (std::int64_t{me.block.y} * Base::kTile + i) * cols +
               std::int64_t{me.block.x} * kCols - off + q * kWideVec;
    for (int k = 0; k < kWideVec; ++k) m.slot_of(k) = i * kPitch + q * kWideVec + k;
    return m;
  }
  /// B's store; in a wide block, element (i, u) is read from its window (B's stores: pass p
  /// writes output row c0 + 8p, t = kTile u0 + j, its j-th element from head(c0)).
  TT_HD static tt::Move<> store(const tt::Thread& me, int pass, int rows, int cols) {
    tt::Move<> m = Base::store(me, pass, rows, cols);
    if (!wide(me, rows, cols)) return m;
    const int t = static_cast<int>(me.thread.x), u0 = t / Base::kTile, j = t % Base::kTile;
    const std::int64_t c0 = std::int64_t{me.block.x} * kCols + u0;
    const int i = step09::head<Base::kSectorElems>(c0, rows) + j;  // as B's store
    m.slot = i * kPitch + offset(me, i, cols) + u0 + kOutStride * pass;
    return m;
  }
};

/// Step 10's tiles, with line-window loads in whole blocks: 64 columns a block, windows of
/// 64 + L elements (24 chunks in float, 40 in double), 4 wide loads a thread in float (84
/// rows) and 6 in double (72 rows), 72 windows of 27 KB and 45 KB.
template <typename T>
struct Lines : LineWindows<step10::Lean<T>> {
  /// Blocks an SM the registers must allow: step 10's (4 in float, 3 in double).
  static constexpr int kMinBlocks = sizeof(T) == 4 ? 4 : 3;
};

/// Moves the tiles of work W: in a wide block (W::wide), every wide load into a register,
/// then each into the tile as one 16-byte store; in any other block, step 06's load phase on
/// step 10's moves. Then the barrier, and step 06's store phase (W::store knows the layout).
template <class W>
__global__ void __launch_bounds__(W::kThreads, tt::min_blocks(W::kMinBlocks, W::kThreads))
    transpose_lines(const tt::Elem<W>* __restrict__ in, tt::Elem<W>* __restrict__ out, int rows,
                    int cols) {
  using T = tt::Elem<W>;
  constexpr int V = W::kWideVec;
  __shared__ alignas(16) T tile[W::kTileElems];
  const tt::Thread me = tt::this_thread();

  if (W::wide(me, rows, cols)) {  // the change since step 10: the whole blocks' loads
    tt::Vec<T, V> v[W::kWidePasses];
#pragma unroll
    for (int p = 0; p < W::kWidePasses; ++p) {
      const tt::Move<V> m = W::wide_load(me, p, rows, cols);
      if (m.inside) v[p] = tt::load_vec<V, W::kL2Prefetch>(in + m.global);
    }
#pragma unroll
    for (int p = 0; p < W::kWidePasses; ++p) {
      const tt::Move<V> m = W::wide_load(me, p, rows, cols);
      if (m.inside) tt::store_vec<V>(&tile[m.slot_of(0)], v[p]);
    }
    __syncthreads();
    step06::store_phase<false, W>(me, tile, out, rows, cols);
  } else {
    step06::load_phase<true, W>(me, in, tile, rows, cols);
    __syncthreads();
    step06::store_phase<true, W>(me, tile, out, rows, cols);
  }
}

}  // namespace step13
