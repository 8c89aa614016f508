// Part "emulated": the moves, run on the CPU exactly as the kernel makes them (Variant::
// emulate, with the kernel's own load phase where it is host code too), on awkward shapes.
#include <exception>

#include "grader.hpp"

namespace lab {

std::pair<int, int> emulate_graded(const Exercise& ex, Part& part,
                                   const std::vector<tt::Shape>& shapes, tt::Reach reach,
                                   std::vector<tt::Shape>* first_wrong) {
  const tt::Step& step = step_of(ex);
  int pairs = 0, wrong = 0;
  for (const std::string& name : ex.variants) {
    const tt::Variant& v = *step.find(name);
    for (tt::DType t : {f32, f64}) {
      if (!v.supports(t)) continue;
      ++pairs;
      for (const tt::Shape& s : shapes) {
        tt::Problems problems;
        try {
          problems = v.emulate(problem(step, s, t), reach);
        } catch (const std::exception& e) {
          problems = {std::string("the harness refused it: ") + e.what()};
        }
        if (problems.empty()) continue;
        ++wrong;
        if (first_wrong) first_wrong->push_back(s);
        // "kernel<...>: two writes to tile slot ..." -> "two writes to tile slot ..."
        std::string first = problems.front();
        const auto colon = first.find(": ");
        if (colon != std::string::npos && first.find('<') < colon) first.erase(0, colon + 2);
        note(part, name + ", " + tt::dtype_name(t) + ", " + shape_text(s) + ": " + one_line(first));
        break;  // one wrong shape is enough; the larger ones would only take longer
      }
    }
  }
  part.verdict = wrong == 0 ? Verdict::passed : Verdict::failed;
  return {pairs, wrong};
}

/// The moves of every graded variant on every awkward shape, float and double, on the CPU.
void grade_emulated(const Exercise& ex, Part& part) {
  const auto [pairs, wrong] = emulate_graded(ex, part, awkward_shapes(), tt::Reach::all);
  if (wrong > 0)
    part.notes.insert(part.notes.begin(),
                      std::to_string(wrong) + " of " + std::to_string(pairs) +
                          " variants and types do not transpose exactly; the first shape each "
                          "fails on:");
}

}  // namespace lab
