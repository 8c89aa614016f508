// Part "gpu-speed": the bandwidth beside a kernel measured in the same run on the same GPU.
#include <sstream>
#include "references.hpp"

#include "grader.hpp"

namespace lab {

/// The exercise's variant beside the kernel its bar is measured against, in the same run.
void grade_speed(const Exercise& ex, const tt::DeviceInfo& dev, bool exact, Part& part) {
  const tt::Step& step = step_of(ex);
  const Speed& sp = ex.speed;
  const tt::Variant& v = *step.find(sp.variant);
  const bool copy = sp.versus.empty();
  const tt::Step& base_step = copy ? tt::references() : step;
  const tt::Variant& base = *base_step.find(copy ? "memcpy" : sp.versus);
  const std::string base_name = copy ? "cudaMemcpy" : "variant " + sp.versus;
  std::ostringstream log;
  const auto r = tt::measure(dev, problem(step, sp.shape, sp.dtype),
                             {{&base_step, &base}, {&step, &v}}, tt::RunConfig{}, log);
  const double pct = 100.0 * r[1].gbps / r[0].gbps;
  note(part, sp.variant + ", " + tt::dtype_name(sp.dtype) + ", " + shape_text(sp.shape) + ": " +
                 fixed(r[1].gbps, 1) + " GB/s, " + fixed(pct, 1) + "% of " + base_name + " (" +
                 fixed(r[0].gbps, 1) + " GB/s) in the same run on " + dev.name);
  note(part, "the bar: " + fixed(sp.bar, 0) + "% (" + sp.reference + ")");
  if (!exact || !r[1].verified || !r[0].verified) {
    part.verdict = Verdict::failed;
    note(part, "not counted: the results are wrong, and a wrong transpose has no speed");
  } else {
    part.verdict = pct >= sp.bar ? Verdict::passed : Verdict::failed;
    if (part.verdict == Verdict::failed) note(part, "below the bar");
  }
}

}  // namespace lab
