// Part "order" (08): the block order takes every tile once, walking down tile columns.
#include "08-diagonal/diagonal.hpp"
#include <set>

#include "grader.hpp"

namespace lab {

/// Step 08: column_block(b, gx, gy) takes every tile of the grid once, and consecutive blocks
/// walk down a column of tiles. Small grids block by block; grids of more than 2^22 blocks, up
/// to the largest a launch of step 08 makes (its grid is one-dimensional: at most 2^31 - 1
/// blocks), at the first and last blocks and at random ones, each beside the block before it: from
/// block 0 at tile (0, 0), a tile below the last one, or the top of the next column, at every block
/// makes column order, so a formula that fails at some block numbers (a rounded division,
/// 32-bit products) fails where it is sampled.
void grade_order(Part& part) {
  const std::vector<std::pair<unsigned, unsigned>> grids = {
      {1, 1},         {1, 7},         {7, 1},         {3, 5},          {5, 3},      {16, 16},
      {128, 128},     {129, 65},      {2, 130},       {94, 94},        {997, 1009}, {4099, 1021},
      {46341, 46340}, {65521, 32749}, {65535, 32767}, {131071, 16383}, {1, 65535},  {65535, 1}};
  constexpr unsigned long long kWhole = 1ull << 22;  // grids up to this many blocks: every one
  int bad = 0;
  for (auto [gx, gy] : grids) {
    const unsigned long long blocks = 1ull * gx * gy;
    const std::string grid =
        " of a " + std::to_string(gx) + " x " + std::to_string(gy) + " grid (gx x gy)";
    const auto tile_of = [](const uint3& t) {
      return "(" + std::to_string(t.x) + ", " + std::to_string(t.y) + ", " + std::to_string(t.z) +
             ")";
    };
    // The block numbers to look at, each with the one before it.
    std::vector<unsigned long long> at;
    if (blocks <= kWhole) {
      for (unsigned long long b = 0; b < blocks; ++b) at.push_back(b);
    } else {
      for (unsigned long long b = 0; b < 100000; ++b) at.push_back(b);
      for (unsigned long long b = blocks - 100000; b < blocks; ++b) at.push_back(b);
      unsigned long long x = 0x9E3779B97F4A7C15ull ^ blocks;  // a fixed sequence, grid by grid
      for (int k = 0; k < 200000; ++k) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const unsigned long long b = x % blocks;
        at.push_back(b);
        at.push_back(b - b % gy);  // and the top of its column
      }
    }
    std::vector<int> taken(blocks <= kWhole ? blocks : 0, -1);  // small grids: who took a tile
    for (const unsigned long long b : at) {
      const uint3 t = step08::column_block(static_cast<unsigned>(b), gx, gy);
      if (t.x >= gx || t.y >= gy || t.z != 0) {
        ++bad;
        note(part, "block " + std::to_string(b) + grid + " takes tile " + tile_of(t) +
                       ", outside the grid");
        break;
      }
      if (!taken.empty()) {
        int& owner = taken[static_cast<std::size_t>(t.y) * gx + t.x];
        if (owner >= 0) {
          ++bad;
          note(part, "blocks " + std::to_string(owner) + " and " + std::to_string(b) + grid +
                         " both take tile " + tile_of(t) + ", so another tile is never moved");
          break;
        }
        owner = static_cast<int>(b);
      }
      if (b == 0 && (t.x != 0 || t.y != 0)) {
        ++bad;
        note(part, "block 0" + grid + " takes tile " + tile_of(t) +
                       ": in column order it takes the first, (0, 0, 0)");
        break;
      }
      if (b == 0) continue;
      const uint3 prev = step08::column_block(static_cast<unsigned>(b - 1), gx, gy);
      const bool top = b % gy == 0;  // the first block of a column of tiles
      const uint3 want = top ? uint3{prev.x + 1, 0, 0} : uint3{prev.x, prev.y + 1, 0};
      if (t.x != want.x || t.y != want.y) {
        ++bad;
        note(part, "block " + std::to_string(b) + grid + " takes tile " + tile_of(t) +
                       " after block " + std::to_string(b - 1) + " took " + tile_of(prev) +
                       ": in column order it takes " +
                       (top ? "the top of the next column, " : "the tile below, ") + tile_of(want));
        break;
      }
    }
  }
  part.verdict = bad == 0 ? Verdict::passed : Verdict::failed;
}

}  // namespace lab
