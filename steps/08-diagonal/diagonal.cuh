/// @file diagonal.cuh
/// @brief Step 08's work: step 07's moves on a one-dimensional grid, block b taking the tile
/// that a block order gives it (step 09 runs it too, where output rows are whole sectors).
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>

#include "08-diagonal/diagonal.hpp"
#include "kernel.hpp"
#include "tiled.hpp"

namespace step08 {

/// Step 07's work W on a one-dimensional grid of as many blocks as tiles, block b taking the
/// tile ORDER::tile_of(b): every move is W's move for that tile.
template <class W, class ORDER>
struct Ordered : W {
  static tt::Launch launch(const tt::Problem& pb) {
    const tt::Launch l = W::launch(pb);  // step 07's 2D grid of tiles
    const std::int64_t tiles = std::int64_t{l.grid.x} * l.grid.y;
    return {dim3(static_cast<unsigned>(std::min<std::int64_t>(tiles, UINT_MAX))), l.block};
  }
  /// The thread as step 07's moves expect it: block = the tile that block number
  /// blockIdx.x takes, on a 2D grid of tiles.
  TT_HD static tt::Thread on_tile(const tt::Thread& me, int rows, int cols) {
    const auto gx = static_cast<unsigned>(tt::ceil_div(cols, W::kTile));
    const auto gy = static_cast<unsigned>(tt::ceil_div(rows, W::kTile));
    return {ORDER::tile_of(me.block.x, gx, gy), me.thread, me.block_dim, dim3(gx, gy)};
  }
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

}  // namespace step08
