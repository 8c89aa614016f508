// Part "order" (08): the block order takes every tile once, walking down tile columns.
#include "08-diagonal/diagonal.hpp"
#include <set>

#include "grader.hpp"

namespace lab {

/// Step 08: column_block(b, gx, gy) takes every tile of the grid once, and consecutive blocks
/// walk down a column of tiles.
void grade_order(Part& part) {
  const std::vector<std::pair<unsigned, unsigned>> grids = {
      {1, 1}, {1, 7}, {7, 1}, {3, 5}, {5, 3}, {16, 16}, {128, 128}, {129, 65}, {2, 130}};
  int bad = 0;
  for (auto [gx, gy] : grids) {
    const std::string grid =
        " of a " + std::to_string(gx) + " x " + std::to_string(gy) + " grid (gx x gy)";
    std::vector<int> taken(static_cast<std::size_t>(gx) * gy, -1);
    for (unsigned b = 0; b < gx * gy; ++b) {
      const uint3 t = step08::column_block(b, gx, gy);
      const std::string tile =
          "(" + std::to_string(t.x) + ", " + std::to_string(t.y) + ", " + std::to_string(t.z) + ")";
      if (t.x >= gx || t.y >= gy || t.z != 0) {
        ++bad;
        note(part,
             "block " + std::to_string(b) + grid + " takes tile " + tile + ", outside the grid");
        break;
      }
      int& owner = taken[static_cast<std::size_t>(t.y) * gx + t.x];
      if (owner >= 0) {
        ++bad;
        note(part, "blocks " + std::to_string(owner) + " and " + std::to_string(b) + grid +
                       " both take tile " + tile + ", so another tile is never moved");
        break;
      }
      owner = static_cast<int>(b);
      if (b > 0 && b % gy != 0) {
        const uint3 prev = step08::column_block(b - 1, gx, gy);
        if (t.x != prev.x || t.y != prev.y + 1) {
          ++bad;
          note(part, "block " + std::to_string(b) + grid + " takes tile " + tile + " after block " +
                         std::to_string(b - 1) + " took (" + std::to_string(prev.x) + ", " +
                         std::to_string(prev.y) +
                         ", 0): in column order it takes the tile below, (" +
                         std::to_string(prev.x) + ", " + std::to_string(prev.y + 1) + ", 0)");
          break;
        }
      }
    }
  }
  part.verdict = bad == 0 ? Verdict::passed : Verdict::failed;
}

}  // namespace lab
