/// @file prefetch.cuh
/// @brief Step 17's work: step 15's, whose line-window loads carry the L2 prefetch-size hint.
///
/// What changed since step 15: one word of the load, and where it is used. Every block moves
/// the elements, sectors and banks that step 15's block of the same tile moves; each 16-byte
/// load of a whole block's window now asks the L2, where it misses, to fetch the aligned 256
/// bytes around it from the DRAM (tt::load_vec's Prefetch, LDG.E.LTC256B in the machine
/// code), in matrices of at most 16384 rows, and in double at 2 blocks an SM. Matrices of
/// 32705 rows or more (512 tile rows) take their columns of tiles in bands of 256 tile rows,
/// 16384 rows, with the hint in float (Banded).
#pragma once

#include <cstdint>

#include "13-lines/lines.cuh"
#include "15-order/order.cuh"
#include "kernel.hpp"

namespace step17 {

/// Work W, its window loads asking the L2 for the 256 bytes around each (step 13's kernel
/// reads W::kL2Prefetch in its loads of the line windows; W's moves are unchanged), at any
/// height of matrix.
///
/// Why: where rows are odd in length, a block's 64-column piece of a row starts anywhere in
/// a 256-byte block of the DRAM and ends in the next one, so each such block is read in two
/// parts, by two blocks of neighbouring tile columns, one column of tiles apart in time.
/// With the hint, the first part's miss brings the whole block into the L2, and the second
/// block finds its part there, if the L2 still holds it a column of tiles later.
template <class W>
struct PrefetchingAny : W {
  static constexpr int kL2Prefetch = 256;  // the largest size PTX offers: .L2::256B
  /// In double, 2 blocks an SM: at step 13's 3 (40 registers a thread) the hinted loads
  /// spill registers to local memory (the SASS check fails that), and the spills would be
  /// measured instead of the hint.
  static constexpr int kMinBlocks = sizeof(typename W::Elem) == 4 ? W::kMinBlocks : 2;
};

/// PrefetchingAny where a column of tiles is at most kMaxRows input rows: measured on the H100
/// and the H200, the hint gains at 16383 rows in both types, and loses at 32767 (H100) and
/// 65535 rows (both), where the neighbour comes too late and the L2 has dropped the bytes
/// fetched for it (docs/17-prefetch.md). Taller matrices run step 15's kernels.
template <class W>
struct Prefetching : PrefetchingAny<W> {
  static constexpr std::int64_t kMaxRows = 16384;
  static bool fits(const tt::Shape& s) { return W::fits(s) && s.rows <= kMaxRows; }
};

/// Step 15's line-window work on T in column order, prefetching where a column is short, and
/// step 13's kernel on it.
template <typename T>
using PrefetchWork = Prefetching<step15::LinesWork<T>>;
template <typename T>
using PrefetchLines = tt::Path<PrefetchWork<T>, step13::transpose_lines<PrefetchWork<T>>>;

/// Skewed work W (step 13's, as step 15 takes it) in column order by bands of kBand tile rows:
/// the blocks walk down a column of tiles within a band, then the next column of the same
/// band, and the bands one after the other, the seam row at the end of the last.
///
/// Why: in a matrix much taller than kMaxRows, step 15's column order runs a block's neighbour
/// in the next column of tiles, which reads the other part of its DRAM blocks, a whole column
/// of the matrix later, and the L2 has dropped them by then (the hint then fetches bytes that
/// are thrown away, and loses). A band is a column kMaxRows tall, where the hint gains.
///
/// The grid is one-dimensional, a block for each tile of W's grid (gx columns of tiles by gy
/// rows, the seam row included); a block finds its tile from its index, gx (from the columns)
/// and gy = gridDim.x / gx.
template <class W>
struct Banded : W {
  static constexpr int kBlockCols = step12::block_cols<W>();  ///< Input columns a block.
  /// Tile rows a band: 256, kMaxRows input rows.
  static constexpr std::uint32_t kBand = Prefetching<W>::kMaxRows / W::kTile;
  /// Where the matrix spans two bands of tile rows or more, 512 tile rows (32705 rows on; the
  /// last tile row may be partial), and the grid holds a block a tile. Measured on the H200:
  /// from there on bands gain on whole columns in float and stay within half a point of them
  /// in double; over a band and a short one they lost up to 1.2 points in double.
  static bool fits(const tt::Shape& s) {
    const std::int64_t tile_rows = tt::ceil_div(s.rows, W::kTile);
    const std::int64_t tiles = tt::ceil_div(s.cols, kBlockCols) * (tile_rows + 1);
    return W::fits(s) && tile_rows >= 2 * std::int64_t{kBand} && tiles <= 2147483647;
  }
  static tt::Launch launch(const tt::Problem& pb) {
    const tt::Launch l = W::launch(pb);
    return {dim3(l.grid.x * l.grid.y), l.block};
  }
  /// The thread as W's moves expect it: its tile (column, row) on W's two-dimensional grid.
  TT_HD static tt::Thread on_tile(const tt::Thread& me, int /*rows*/, int cols) {
    const auto gx = static_cast<std::uint32_t>(tt::ceil_div(cols, kBlockCols));
    const std::uint32_t gy = me.grid_dim.x / gx, last = (gy - 1) / kBand;  // the last band
    const std::uint32_t band = me.block.x / (kBand * gx) < last ? me.block.x / (kBand * gx) : last;
    const std::uint32_t first = band * kBand;                         // its first tile row
    const std::uint32_t h = gy - first < kBand ? gy - first : kBand;  // its tile rows
    const std::uint32_t at = me.block.x - first * gx;                 // the block's place in it
    return {uint3{at / h, first + at % h, 0}, me.thread, me.block_dim, dim3(gx, gy)};
  }
  /// W's seam blocks are its last row of tiles, which on_tile finds from the columns; no
  /// kernel that runs this work asks W::seam of the block as launched, so it is hidden.
  static void seam() {}
  TT_HD static bool whole_tile(const tt::Thread& me, int rows, int cols) {
    return W::whole_tile(on_tile(me, rows, cols), rows, cols);
  }
  TT_HD static tt::Move<W::kVec> load(const tt::Thread& me, int pass, int rows, int cols) {
    return W::load(on_tile(me, rows, cols), pass, rows, cols);
  }
  TT_HD static tt::Move<W::kVec> store(const tt::Thread& me, int pass, int rows, int cols) {
    return W::store(on_tile(me, rows, cols), pass, rows, cols);
  }
  TT_HD static bool wide(const tt::Thread& me, int rows, int cols) {
    return W::wide(on_tile(me, rows, cols), rows, cols);
  }
  TT_HD static tt::Move<W::kWideVec> wide_load(const tt::Thread& me, int pass, int rows, int cols) {
    return W::wide_load(on_tile(me, rows, cols), pass, rows, cols);
  }
};

/// Step 13's work on T in bands, the window loads with the hint in float only (in double the
/// hint needs 2 blocks an SM, and lost over whole columns above kMaxRows rows; in bands it
/// is not yet measured in this step).
template <typename T>
struct BandWork : Banded<step13::Lines<T>> {
  static constexpr int kL2Prefetch = sizeof(T) == 4 ? 256 : 0;
};
template <typename T>
using BandLines = tt::Path<BandWork<T>, step13::transpose_lines<BandWork<T>>>;

/// Step 15's line-window work with the hint at every height, for the comparison.
template <typename T>
using PrefetchAnyWork = PrefetchingAny<step15::LinesWork<T>>;
template <typename T>
using PrefetchAnyLines = tt::Path<PrefetchAnyWork<T>, step13::transpose_lines<PrefetchAnyWork<T>>>;

}  // namespace step17
