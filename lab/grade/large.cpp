// Part "large": the moves of the corner blocks of matrices past 2^31 elements, emulated
// without the matrix: an offset computed in 32-bit int fails here.
#include <exception>

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
  const tt::Step& step = step_of(ex);
  int wrong = 0;
  for (const std::string& name : ex.variants) {
    const tt::Variant& v = *step.find(name);
    for (tt::DType t : {f32, f64}) {
      if (!v.supports(t)) continue;
      for (const tt::Shape& s : large_shapes()) {
        tt::Problems problems;
        try {
          problems = v.emulate(problem(step, s, t), true);
        } catch (const std::exception& e) {
          problems = {std::string("the harness refused it: ") + e.what()};
        }
        if (problems.empty()) continue;
        ++wrong;
        std::string first = problems.front();
        const auto colon = first.find(": ");
        if (colon != std::string::npos && first.find('<') < colon) first.erase(0, colon + 2);
        note(part, name + ", " + tt::dtype_name(t) + ", " + shape_text(s) + ": " + one_line(first));
        break;
      }
    }
  }
  part.verdict = wrong == 0 ? Verdict::passed : Verdict::failed;
  if (wrong > 0)
    part.notes.insert(part.notes.begin(),
                      "past 2^31 elements the offsets must be 64-bit (std::int64_t, as "
                      "tt::offset computes them): an int offset wraps there");
}

}  // namespace lab
