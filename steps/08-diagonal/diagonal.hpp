/// @file diagonal.hpp
/// @brief Step 08: the order in which blocks take tiles: row order, diagonal order (the
/// classic remedy for partition camping) and column order.
#pragma once

#include <vector_types.h>

#include "step.hpp"
#include "types.hpp"

/// Step 08: block order.
namespace step08 {

/// The tile (x, y) that block number @p b takes in row order on a grid of @p gx x @p gy
/// tiles: consecutive blocks walk along a row of input tiles (step 07's order).
TT_HD inline uint3 row_block(unsigned b, unsigned gx, unsigned /*gy*/) {
  return uint3{b % gx, b / gx, 0};
}

/// The tile that block number @p b takes in diagonal order.
///
/// In row order, the blocks running at one time read one band of input rows and write one
/// band of output *columns*: all their writes fall at the same column offsets of many output
/// rows. Diagonal order gives block b the tile y = b mod gy, x = (b / gy + y) mod gx, so
/// blocks that run together walk a diagonal of tiles and spread their reads and writes over
/// different address ranges. For every gx x gy grid (square or not) this is one-to-one: from
/// (x, y), b / gy = (x - y) mod gx and b mod gy = y give back b.
TT_HD inline uint3 diagonal_block(unsigned b, unsigned gx, unsigned gy) {
  const unsigned y = b % gy;
  return uint3{(b / gy + y) % gx, y, 0};
}

// LAB BEGIN 08-diagonal
/// The tile that block number @p b takes in column order: y = b mod gy, x = b / gy, so
/// consecutive blocks walk down a column of input tiles, which is a row of output tiles:
/// blocks that run together write neighbouring pieces of the same output rows. One-to-one
/// for every grid.
TT_HD inline uint3 column_block(unsigned b, unsigned /*gx*/, unsigned gy) {
  return uint3{b / gy, b % gy, 0};
}
// LAB END

/// The three orders, as types a work description takes.
struct RowOrder {
  /// The tile of block @p b.
  TT_HD static uint3 tile_of(unsigned b, unsigned gx, unsigned gy) { return row_block(b, gx, gy); }
};
/// Diagonal order.
struct DiagonalOrder {
  /// The tile of block @p b.
  TT_HD static uint3 tile_of(unsigned b, unsigned gx, unsigned gy) {
    return diagonal_block(b, gx, gy);
  }
};
/// Column order.
struct ColumnOrder {
  /// The tile of block @p b.
  TT_HD static uint3 tile_of(unsigned b, unsigned gx, unsigned gy) {
    return column_block(b, gx, gy);
  }
};

/// The step's description.
const tt::Step& step();

}  // namespace step08
