/// @file order.cuh
/// @brief Step 15's work: step 13's skewed tiles with line-window loads (and step 10's, where
/// step 13 falls back to them), their blocks in step 08's column order.
///
/// What changed since step 13: only which tile a block takes. Every block moves the elements,
/// sectors and banks that step 13's block of the same tile moves.
#pragma once

#include <algorithm>

#include "06-float4/float4.cuh"
#include "10-invariants/invariants.cuh"
#include "12-reads/reads.cuh"
#include "13-lines/lines.cuh"
#include "kernel.hpp"
#include "tiled.hpp"

namespace step15 {

/// Skewed work W (step 09's tiling: a main grid of kTile x kTile tiles and one row of seam
/// blocks below it) in step 08's column order: consecutive blocks walk down a column of input
/// tiles, which is a run of output rows, its seam block last.
///
/// In steps 09 to 13 the grid is two-dimensional and the GPU starts its blocks x first (in
/// practice; the order is not documented): the blocks that run together take a band of input
/// rows across every column, and each writes a 64-element piece of each of its 64 output
/// rows, so a wave's writes are spread over every output row of the matrix. Here they take a
/// few columns of tiles from top to bottom, and their writes fill whole output rows, one after
/// the other: step 08's column order, which step 09's skewed tiles left behind.
template <class W>
struct ColumnFirst : W {
  /// Most blocks in y or z of a grid.
  static constexpr unsigned kMaxGridYZ = 65535;
  /// Input columns a block of W takes: W::kTile, or W::kCols for step 12's wide tiles.
  static constexpr int kBlockCols = step12::block_cols<W>();
  /// W's grid (gx columns of tiles, gy = main rows + the seam row) turned over: x runs down
  /// a column of tiles (x is the dimension the GPU starts first in practice), y and z across
  /// the columns (z only past 65535 columns of tiles: more than 4 M columns of input).
  static tt::Launch launch(const tt::Problem& pb) {
    const tt::Launch l = W::launch(pb);
    const unsigned gx = l.grid.x, gy = l.grid.y;
    return {dim3(gy, std::min(gx, kMaxGridYZ), (gx + kMaxGridYZ - 1) / kMaxGridYZ), l.block};
  }
  /// The thread as W's moves expect it: its tile (column z gridDim.y + y, row x) on W's
  /// two-dimensional grid. A block past the last column of tiles (z > 0 only) moves nothing.
  TT_HD static tt::Thread on_tile(const tt::Thread& me, int /*rows*/, int cols) {
    const auto gx = static_cast<unsigned>(tt::ceil_div(cols, kBlockCols));
    const unsigned column = me.block.z * me.grid_dim.y + me.block.y;
    return {uint3{column, me.block.x, 0}, me.thread, me.block_dim, dim3(gx, me.grid_dim.x)};
  }
  /// Whether the block's tile is one of W's seam blocks (the last row of W's grid: here the
  /// last block of each column). A kernel that treats seam blocks apart (step 16's, as step
  /// 11's) asks this; W::seam of the block as launched would take the last column of tiles.
  /// W's seam blocks are a row of its grid, so the columns (on_tile's cols) do not matter.
  TT_HD static bool seam(const tt::Thread& me) { return W::seam(on_tile(me, 0, 0)); }
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

/// ColumnFirst for step 13's work, whose whole blocks load through line windows: the wide
/// moves, too, are those of the block's tile.
template <class W>
struct ColumnFirstLines : ColumnFirst<W> {
  using Base = ColumnFirst<W>;
  TT_HD static bool wide(const tt::Thread& me, int rows, int cols) {
    return W::wide(Base::on_tile(me, rows, cols), rows, cols);
  }
  TT_HD static tt::Move<W::kWideVec> wide_load(const tt::Thread& me, int pass, int rows, int cols) {
    return W::wide_load(Base::on_tile(me, rows, cols), pass, rows, cols);
  }
};

/// Step 13's work on T, in column order.
template <typename T>
using LinesWork = ColumnFirstLines<step13::Lines<T>>;
/// Step 10's work on T, in column order (where step 13 falls back to it).
template <typename T>
using LeanWork = ColumnFirst<step10::Lean<T>>;
/// Step 13's kernel on its work in column order.
template <typename T>
using Lines = tt::Path<LinesWork<T>, step13::transpose_lines<LinesWork<T>>>;
/// Step 06's kernel on step 10's work in column order.
template <typename T>
using Lean = tt::Path<LeanWork<T>, step06::transpose_vec<LeanWork<T>>>;
/// Work W, moved by step 06's kernel, as it is (steps 08 to 13).
template <class W>
using Vec = tt::Path<W, step06::transpose_vec<W>>;
/// Work W, moved by step 13's kernel, as it is.
template <class W>
using RowLines = tt::Path<W, step13::transpose_lines<W>>;

}  // namespace step15
