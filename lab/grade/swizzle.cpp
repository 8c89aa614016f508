// Part "swizzle" (07): the swizzle is one-to-one and keeps 16-byte chunks whole.
#include "07-swizzle/swizzle.hpp"
#include <set>

#include "grader.hpp"

namespace lab {

/// Step 07: swizzle(r, c, width, chunk, chunk) as the tiles use it (swizzle.cuh): in every row
/// a permutation of the columns that moves each chunk whole, aligned and in order.
void grade_swizzle(Part& part) {
  int bad = 0;
  for (int width : {32, 64})
    for (int chunk : {1, 2, 4})
      for (int r = 0; r < width; ++r) {
        std::vector<int> owner(static_cast<std::size_t>(width), -1);
        for (int c = 0; c < width; ++c) {
          const int to = step07::swizzle(r, c, width, chunk, chunk);
          const std::string call = "swizzle(" + std::to_string(r) + ", " + std::to_string(c) +
                                   ", " + std::to_string(width) + ", " + std::to_string(chunk) +
                                   ", " + std::to_string(chunk) + ") = " + std::to_string(to);
          if (to < 0 || to >= width) {
            ++bad;
            note(part, call + ": outside the row (0 .. " + std::to_string(width - 1) + ")");
            break;
          }
          if (owner[static_cast<std::size_t>(to)] >= 0) {
            ++bad;
            note(part, call + ", where column " +
                           std::to_string(owner[static_cast<std::size_t>(to)]) +
                           " of the same row goes too: not one-to-one");
            break;
          }
          owner[static_cast<std::size_t>(to)] = c;
          const int first = step07::swizzle(r, c - c % chunk, width, chunk, chunk);
          if (to % chunk != c % chunk || to - c % chunk != first) {
            ++bad;
            note(part, call + ": a chunk of " + std::to_string(chunk) +
                           " columns must move whole, aligned and in order (its first column "
                           "went to " +
                           std::to_string(first) + ")");
            break;
          }
        }
      }
  part.verdict = bad == 0 ? Verdict::passed : Verdict::failed;
}

}  // namespace lab
