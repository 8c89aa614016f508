// Part "large": the moves of the corner blocks of matrices past 2^31 elements, emulated
// without the matrix: an offset computed in 32-bit int fails here.
#include "grader.hpp"

namespace lab {

/// Shapes past 2^31 elements, where an offset computed in 32-bit int wraps: the first square
/// past it, and one odd in both sides.
const std::vector<tt::Shape>& large_shapes() {
  static const std::vector<tt::Shape> shapes = {{46341, 46341}, {65537, 32771}};
  return shapes;
}

/// The moves of the corner and middle blocks of every graded variant past 2^31 elements, float
/// and double, on the CPU, without the matrix (tt::emulate with far = true).
void grade_large(const Exercise& ex, Part& part) {
  if (emulate_graded(ex, part, large_shapes(), true).second > 0)
    part.notes.insert(part.notes.begin(),
                      "past 2^31 elements the offsets must be 64-bit (std::int64_t, as "
                      "tt::offset computes them): an int offset wraps there");
}

}  // namespace lab
