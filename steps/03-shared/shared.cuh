/// @file shared.cuh
/// @brief Step 03's lesson: the two moves of a tiled transpose, one TILE x TILE tile a block of
/// TILE x TILE threads, one element a thread each way. Step 04 takes the same moves with its
/// own tile layout (the SLOT class), so that only the layout changes between the two steps.
#pragma once

#include "kernel.hpp"
#include "tiled.hpp"

namespace step03 {

using tt::Coord;

/// The moves of a TILE x TILE tile (x along the input's columns), for a tile layout SLOT:
/// `SLOT::of(r, c)` is the shared-memory slot of tile element (r, c).
template <int TILE, typename T, class SLOT>
struct TileMoves : tt::Work<T> {
  static constexpr int kTile = TILE;  ///< Tile side in elements; the block is kTile x kTile.
  static tt::Launch launch(const tt::Problem& pb) {
    return tt::tile_grid(pb, kTile, dim3(kTile, kTile));
  }
  /// Shared-memory slot of tile element (r, c), as the layout places it.
  TT_HD static constexpr int tile_slot(int r, int c) { return SLOT::of(r, c); }

  // LAB BEGIN 03-shared
  /// Thread (x, y) reads input element (32 by + y, 32 bx + x) into tile row y, column x.
  TT_HD static tt::Move<> load(const tt::Thread& me, int /*pass*/, int rows, int cols) {
    const int r = me.thread.y, c = me.thread.x;  // in the tile
    const Coord src{static_cast<int>(me.block.y) * kTile + r,
                    static_cast<int>(me.block.x) * kTile + c};
    return {tt::inside(src, rows, cols), tt::offset(src.row, src.col, cols), tile_slot(r, c)};
  }
  /// Thread (x, y) writes output element (32 bx + y, 32 by + x), which is tile row x, column y.
  TT_HD static tt::Move<> store(const tt::Thread& me, int /*pass*/, int rows, int cols) {
    const int r = me.thread.y, c = me.thread.x;  // in the output's tile
    const Coord dst{static_cast<int>(me.block.x) * kTile + r,
                    static_cast<int>(me.block.y) * kTile + c};
    return {tt::inside(dst, cols, rows), tt::offset(dst.row, dst.col, rows), tile_slot(c, r)};
  }
  // LAB END
};

}  // namespace step03
