/// @file wide.cuh
/// @brief Step 16's work: step 12's wide tiles (128 input columns, 64 output elements a row),
/// whose whole blocks load each input row through a line window, as step 13's.
///
/// What changed since step 15: the tile of the float kernel at odd row lengths. Step 13's
/// line windows, on a tile twice as wide; the kernel is step 13's and the order step 15's.
#pragma once

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

}  // namespace step16
