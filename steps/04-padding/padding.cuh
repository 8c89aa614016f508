/// @file padding.cuh
/// @brief Step 04's lesson: the slot of a tile element in shared memory, for the padded tile
/// of step 04 and the tiles of the steps built on it (05).
#pragma once

#include "types.hpp"

namespace step04 {

// LAB BEGIN 04-padding
// Each tile row is TILE + 1 elements long in shared memory, so for TILE = 32 tile(r, c) is
// word 33 r + c and lives in bank (r + c) mod 32: the 32 elements of a column land in 32
// different banks. A row stride of 33 is coprime with 32, so r -> 33 r mod 32 is a
// permutation and a column read is conflict-free. The price is one unused column: 32 x 33
// words for 32 x 32 elements (3% more shared memory). A 16 x 16 tile padded to 16 x 17 is
// NOT conflict-free: a warp then covers two tile rows (or two columns) at once, 17 words
// apart, and lane 31 lands in bank 0 beside lane 0: a 2-way conflict on both the row store
// and the column read (run --variant pad-16x17 --explain).
/// Shared-memory slot of tile element (r, c): rows of TILE + 1 elements (one of padding).
template <int TILE>
TT_HD constexpr int tile_slot(int r, int c) {
  return r * (TILE + 1) + c;
}
// LAB END

}  // namespace step04
