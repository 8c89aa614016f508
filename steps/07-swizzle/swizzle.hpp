/// @file swizzle.hpp
/// @brief Step 07: a dense, XOR-swizzled tile instead of a padded one.
#pragma once

#include "step.hpp"
#include "types.hpp"

/// Step 07: a dense, swizzled tile instead of a padded one.
namespace step07 {

// LAB BEGIN 07-swizzle
/// Column at which tile element (@p r, @p c) is stored in a dense row of @p width elements.
///
/// The row is cut into chunks of @p chunk elements. Chunk q = c / chunk moves to chunk
/// q ^ ((r / group) mod (width / chunk)); inside a chunk the order is kept, so a chunk of
/// 16 bytes stays 16 contiguous, aligned bytes and can be read or written with one 16-byte
/// instruction. For a fixed row, q -> q ^ k is a permutation of 0 .. width / chunk - 1 when
/// width / chunk is a power of two (XOR with a constant is its own inverse and never leaves
/// the range), so the mapping is one-to-one on every row: nothing is lost, no space wasted.
///
/// - chunk = 1, group = 1: the simple form, c ^ (r mod width) ("column XOR row").
/// - group = 1: the chunked form in Lei Mao's "CUDA Shared Memory Swizzling": chunk index XOR
///   row index.
/// - group = chunk: rows are taken in groups of @p chunk. This is the form a float4
///   transpose needs: a thread gathers 4 consecutive rows of one column, so the rows that a
///   warp reads at once differ in r / 4, not in r mod 8.
TT_HD constexpr int swizzle(int r, int c, int width, int chunk, int group) {
  const int chunks = width / chunk;
  return ((c / chunk) ^ ((r / group) % chunks)) * chunk + c % chunk;
}
// LAB END

/// The step's description.
const tt::Step& step();
}  // namespace step07
