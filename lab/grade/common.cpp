// Helpers of the grader's parts: shapes, numbers and notes.
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "grader.hpp"

namespace lab {

/// Shapes that break sloppy index arithmetic: 1 x 1, single rows and columns, primes,
/// non-square, multiples and non-multiples of 32 and 64, rows that are and are not whole 16-byte
/// vectors. The course's tests (tests/steps_under_test.hpp) use these and two more, whole tiles
/// at even row counts, for the trims of steps 12 and 13, which have no exercise.
const std::vector<tt::Shape>& awkward_shapes() {
  static const std::vector<tt::Shape> s = {
      {1, 1},     {1, 1000},  {1000, 1},   {2, 3},      {4, 4},     {17, 83},   {83, 17},
      {31, 33},   {32, 32},   {33, 31},    {64, 96},    {96, 64},   {63, 65},   {65, 63},
      {127, 129}, {128, 132}, {257, 1031}, {1031, 257}, {512, 512}, {4099, 129}};
  return s;
}

std::string shape_text(tt::Shape s) {
  return std::to_string(s.rows) + " x " + std::to_string(s.cols);
}

std::string fixed(double x, int digits) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << x;
  return os.str();
}

const tt::Step& step_of(const Exercise& ex) {
  for (const tt::Step* s : tt::tutorial_steps())
    if (s->id == ex.id) return *s;
  throw std::logic_error("no step " + ex.id);
}

tt::Problem problem(const tt::Step& step, tt::Shape shape, tt::DType dtype) {
  return {shape, dtype, step.block_for()};
}

/// A verifier's report in one line: its first line, and the first mismatch it lists.
std::string one_line(const std::string& text) {
  std::istringstream lines(text);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  const auto at = second.find("out(");
  if (at != std::string::npos) first += "; first: " + second.substr(at);
  return first;
}

/// Adds @p note unless the part already has @p most notes: the first few say enough.
void note(Part& p, const std::string& text, std::size_t most) {
  if (p.notes.size() < most) p.notes.push_back(text);
}

}  // namespace lab
