/// @file diagonal.hpp
/// @brief Step 08: diagonal block order, and the mapping it is built on.
#pragma once

#include <vector_types.h>

#include "step.hpp"
#include "types.hpp"

/// Step 08: diagonal reordering of the blocks.
namespace step08 {

/// The tile that launch block @p block of a @p grid works on, in diagonal order.
///
/// The hardware starts blocks roughly in order of their linear number b = x + gx y. In row
/// order, the blocks running at one time read one band of input rows and write one band of
/// output *columns*: all their writes fall at the same column offsets of many output rows.
/// Diagonal order gives block b the tile y = b mod gy, x = (b / gy + y) mod gx, so blocks
/// that run together walk a diagonal of tiles and spread their reads and writes over
/// different address ranges. For every gx x gy grid (square or not) this is one-to-one:
/// from (x, y), b / gy = (x - y) mod gx and b mod gy = y give back b.
TT_HD inline uint3 diagonal_block(uint3 block, dim3 grid) {
  const unsigned long long b = block.x + static_cast<unsigned long long>(grid.x) * block.y;
  const unsigned y = static_cast<unsigned>(b % grid.y);
  const unsigned x = static_cast<unsigned>((b / grid.y + y) % grid.x);
  return uint3{x, y, 0};
}

/// The step's description.
const tt::Step& step();

}  // namespace step08
