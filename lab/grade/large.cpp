// Part "large": the moves of matrices past 2^31 and 2^32 elements, emulated without the
// matrix (the corner and middle blocks, and the lines of blocks where the offsets wrap): an
// offset computed in 32-bit int fails past 2^31, one in 32-bit unsigned past 2^32.
#include <algorithm>
#include <cstdint>
#include <map>

#include "emulate.hpp"
#include "grader.hpp"

namespace lab {

/// Shapes on both sides of 2^31 and 2^32 elements, smallest first, so that the first shape a
/// variant fails on says which 32-bit offset wraps: 46340 x 46341 (2^31 - 41708 elements,
/// every offset fits an int), the first square past 2^31 and one odd in both sides (an int
/// wraps), 65535 x 65537 (2^32 - 1: every offset fits an unsigned, not an int) and
/// 65537 x 65537 (2^32 + 131073: an unsigned wraps too). Not allocated: double costs no more.
const std::vector<tt::Shape>& large_shapes() {
  static const std::vector<tt::Shape> shapes = {
      {46340, 46341}, {46341, 46341}, {65537, 32771}, {65535, 65537}, {65537, 65537}};
  return shapes;
}

namespace {

/// The moves of every graded variant, float and double, on the CPU, without the matrix
/// (tt::Reach::lines: the corner and middle blocks, and the lines of blocks through the
/// elements where an offset wraps, in the input and in the output).
void grade_large_once(const Exercise& ex, Part& part) {
  std::vector<tt::Shape> wrong;
  if (emulate_graded(ex, part, large_shapes(), tt::Reach::lines, &wrong).second == 0) return;
  // The smallest shape failed says what wraps: the shapes below it all passed.
  std::int64_t least = wrong.front().count();
  for (const tt::Shape& s : wrong) least = std::min(least, s.count());
  std::string why;
  if (least > tt::kUnsignedWrap)
    why =
        "exact up to 2^32 - 1 elements, wrong past 2^32: an offset held in a 32-bit unsigned "
        "wraps at 2^32 (an int would wrap at 2^31)";
  else if (least > tt::kIntWrap)
    why =
        "wrong past 2^31 elements: an offset held in a 32-bit int wraps at 2^31 (an unsigned "
        "would wrap at 2^32)";
  if (!why.empty())
    why += "; the offsets must be 64-bit (std::int64_t, as tt::offset computes them)";
  else
    why =
        "wrong below 2^31 elements too, where every offset fits in 32 bits: not the width of "
        "the offsets (the emulated part may say more)";
  part.notes.insert(part.notes.begin(), why);
}

}  // namespace

void grade_large(const Exercise& ex, Part& part) {
  // Graded once a run: the exercises that run this one's answer ask for its grade too.
  static std::map<std::string, Part> graded;
  if (const auto it = graded.find(ex.id); it != graded.end()) {
    part.verdict = it->second.verdict;
    part.notes = it->second.notes;
    return;
  }
  grade_large_once(ex, part);
  graded.emplace(ex.id, part);
}

}  // namespace lab
