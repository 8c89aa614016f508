/// @file diagonal.hpp
/// @brief Step 08: the order in which blocks take tiles: row order, diagonal order (the
/// classic remedy for partition camping) and column order.
#pragma once

#include <vector_types.h>

#include "step.hpp"
#include "types.hpp"

/// Step 08: block order.
namespace step08 {

/// The order in which the blocks of a launch take the tiles of the input.
enum class Order { row, diagonal, column };

/// Linear number of launch block @p block: the hardware starts blocks roughly in this order.
TT_HD inline unsigned long long linear(uint3 block, dim3 grid) {
  return block.x + static_cast<unsigned long long>(grid.x) * block.y;
}

/// The tile that launch block @p block of a @p grid works on, in diagonal order.
///
/// In row order, the blocks running at one time read one band of input rows and write one
/// band of output *columns*: all their writes fall at the same column offsets of many output
/// rows. Diagonal order gives block b the tile y = b mod gy, x = (b / gy + y) mod gx, so
/// blocks that run together walk a diagonal of tiles and spread their reads and writes over
/// different address ranges. For every gx x gy grid (square or not) this is one-to-one: from
/// (x, y), b / gy = (x - y) mod gx and b mod gy = y give back b.
TT_HD inline uint3 diagonal_block(uint3 block, dim3 grid) {
  const unsigned long long b = linear(block, grid);
  const unsigned y = static_cast<unsigned>(b % grid.y);
  const unsigned x = static_cast<unsigned>((b / grid.y + y) % grid.x);
  return uint3{x, y, 0};
}

/// The tile that launch block @p block works on in column order: block b takes tile
/// y = b mod gy, x = b / gy, so consecutive blocks walk down a column of input tiles, which
/// is a row of output tiles: blocks that run together write neighbouring pieces of the same
/// output rows. One-to-one for every grid.
TT_HD inline uint3 column_block(uint3 block, dim3 grid) {
  const unsigned long long b = linear(block, grid);
  return uint3{static_cast<unsigned>(b / grid.y), static_cast<unsigned>(b % grid.y), 0};
}

/// The tile of launch block @p block in order @p order.
TT_HD inline uint3 tile_of(Order order, uint3 block, dim3 grid) {
  switch (order) {
    case Order::diagonal:
      return diagonal_block(block, grid);
    case Order::column:
      return column_block(block, grid);
    default:
      return block;
  }
}

/// The step's description.
const tt::Step& step();

}  // namespace step08
