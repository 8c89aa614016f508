/// @file prefetch.cuh
/// @brief Step 17's work: step 15's, whose line-window loads carry the L2 prefetch-size hint.
///
/// What changed since step 15: one word of the load. Every block moves the elements, sectors
/// and banks that step 15's block of the same tile moves; each 16-byte load of a whole
/// block's window now asks the L2, where it misses, to fetch the aligned 256 bytes around it
/// from the DRAM (tt::load_vec's Prefetch, LDG.E.LTC256B in the machine code).
#pragma once

#include <cstdint>

#include "13-lines/lines.cuh"
#include "15-order/order.cuh"
#include "kernel.hpp"

namespace step17 {

/// Work W, its window loads asking the L2 for the 256 bytes around each (step 13's kernel
/// reads W::kL2Prefetch in its loads of the line windows; W's moves are unchanged).
///
/// Why: where rows are odd in length, a block's 64-column piece of a row starts anywhere in
/// a 256-byte block of the DRAM and ends in the next one, so each such block is read in two
/// parts, by two blocks of neighbouring tile columns, one column of tiles apart in time.
/// With the hint, the first part's miss brings the whole block into the L2, and the second
/// block finds its part there.
template <class W>
struct Prefetching : W {
  static constexpr int kL2Prefetch = 256;  // the largest size PTX offers: .L2::256B
};

/// Step 15's line-window work on T in column order, prefetching.
template <typename T>
using PrefetchWork = Prefetching<step15::LinesWork<T>>;
/// Step 13's kernel on it.
template <typename T>
using PrefetchLines = tt::Path<PrefetchWork<T>, step13::transpose_lines<PrefetchWork<T>>>;

/// The double work, prefetching, at 2 blocks an SM: at step 13's 3 (40 registers a thread) the
/// hinted loads spill registers to local memory (the SASS check fails it), which would be
/// measured instead of the hint.
struct PrefetchWorkDouble2 : PrefetchWork<double> {
  static constexpr int kMinBlocks = 2;
};
using PrefetchLinesDouble2 =
    tt::Path<PrefetchWorkDouble2, step13::transpose_lines<PrefetchWorkDouble2>>;

/// Skewed work W (step 09's tiling, as step 15 takes it) in column order by bands of @p Band
/// tile rows: the blocks walk down a column of tiles within a band, then the next column of
/// the same band, and the bands one after the other, the seam row in the last band. Step 15
/// walks whole columns: at 32767 rows a column is 512 tiles, and a block's neighbour in the
/// next column of tiles, which reads the other part of its DRAM blocks and the sectors it
/// shares, runs a whole column of the matrix later. A band bounds that distance.
///
/// The grid is one-dimensional, a block for each tile of W's grid (gx columns by gy rows:
/// gx gy blocks, fewer than 2^31 for any matrix that fits in memory); the block's tile is
/// found from its index, gx (from the columns) and gy = gridDim.x / gx.
template <class W, int Band>
struct Banded : W {
  static constexpr int kBlockCols = step12::block_cols<W>();  ///< Input columns a block.
  static tt::Launch launch(const tt::Problem& pb) {
    const tt::Launch l = W::launch(pb);
    return {dim3(l.grid.x * l.grid.y), l.block};
  }
  /// The thread as W's moves expect it: its tile (column, row) on W's two-dimensional grid.
  TT_HD static tt::Thread on_tile(const tt::Thread& me, int /*rows*/, int cols) {
    const auto gx = static_cast<std::uint32_t>(tt::ceil_div(cols, kBlockCols));
    const std::uint32_t gy = me.grid_dim.x / gx, b = me.block.x / (Band * gx);
    const std::uint32_t last = (gy - 1) / Band;      // the last band, maybe shorter
    const std::uint32_t band = b < last ? b : last;  // (the index of its first block / Band gx)
    const std::uint32_t first = band * Band;         // its first tile row
    const std::uint32_t h = gy - first < Band ? gy - first : Band;  // its tile rows
    const std::uint32_t off = me.block.x - first * gx;
    return {uint3{off / h, first + off % h, 0}, me.thread, me.block_dim, dim3(gx, gy)};
  }
  /// Hides W::seam(me), which would read the block index as W's: here seam blocks are found
  /// only through W's moves, from on_tile (the kernels that run this work ask nothing else).
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
};

/// Banded for step 13's work, whose whole blocks load through line windows.
template <class W, int Band>
struct BandedLines : Banded<W, Band> {
  using Base = Banded<W, Band>;
  TT_HD static bool wide(const tt::Thread& me, int rows, int cols) {
    return W::wide(Base::on_tile(me, rows, cols), rows, cols);
  }
  TT_HD static tt::Move<W::kWideVec> wide_load(const tt::Thread& me, int pass, int rows, int cols) {
    return W::wide_load(Base::on_tile(me, rows, cols), pass, rows, cols);
  }
};

/// Step 13's work on T in bands of @p Band tile rows, prefetching in float.
template <typename T, int Band>
struct BandWork : BandedLines<step13::Lines<T>, Band> {
  static constexpr int kL2Prefetch = sizeof(T) == 4 ? 256 : 0;
};
template <typename T, int Band>
using BandLines = tt::Path<BandWork<T, Band>, step13::transpose_lines<BandWork<T, Band>>>;
/// Step 10's work on T in bands (where step 13's windows do not apply).
template <typename T, int Band>
using BandLean =
    tt::Path<Banded<step10::Lean<T>, Band>, step06::transpose_vec<Banded<step10::Lean<T>, Band>>>;

}  // namespace step17
