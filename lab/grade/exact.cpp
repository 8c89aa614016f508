// Part "gpu-exact": the kernel, run on the GPU, is exact on the awkward shapes and two larger,
// and the moves the GPU computes are the moves the CPU parts graded.
#include <sstream>
#include "error.hpp"

#include "grader.hpp"

namespace lab {

/// The kernel on the GPU, every graded variant on the awkward shapes and two larger ones.
/// Returns false when the GPU is unusable afterwards (a crashed kernel).
bool grade_exact(const Exercise& ex, const tt::DeviceInfo& dev, Part& part) {
  const tt::Step& step = step_of(ex);
  std::vector<tt::Shape> shapes = awkward_shapes();
  shapes.push_back({1024, 768});
  shapes.push_back({4096, 4096});
  int pairs = 0, wrong = 0;
  for (const std::string& name : ex.variants) {
    const tt::Variant& v = *step.find(name);
    for (tt::DType t : {f32, f64}) {
      if (!v.supports(t)) continue;
      ++pairs;
      for (const tt::Shape& s : shapes) {
        std::ostringstream log;
        const std::string what = name + ", " + tt::dtype_name(t) + ", " + shape_text(s);
        try {
          const auto r =
              tt::measure(dev, problem(step, s, t), {{&step, &v}}, tt::RunConfig{0, 2}, log);
          if (r.size() == 1 && r[0].verified) continue;
          ++wrong;
          std::string first = log.str();
          const auto colon = first.find("): ");  // "02-naive/write-coalesced (first run): ..."
          if (colon != std::string::npos) first.erase(0, colon + 3);
          note(part, what + ": " + one_line(first));
          break;  // as on the CPU: the first wrong shape of each variant and type
        } catch (const tt::CudaError& e) {
          part.verdict = Verdict::failed;
          note(part, what + ": the kernel failed on the GPU: " + std::string(e.what()) +
                         " (a kernel that reads or writes outside its arrays ends like this)");
          return false;
        }
      }
    }
  }
  if (wrong > 0)
    part.notes.insert(part.notes.begin(),
                      std::to_string(wrong) + " of " + std::to_string(pairs) +
                          " variants and types are wrong on the GPU; the first shape each "
                          "fails on:");
  // The moves the GPU computes, against the host's, which the CPU parts graded: the same
  // shapes and two past 2^31 elements (sampled blocks; no matrix is needed).
  shapes.push_back({46341, 46340});
  shapes.push_back({65537, 65537});
  int differ = 0;
  for (const std::string& name : ex.variants) {
    const tt::Variant& v = *step.find(name);
    if (!v.device_moves) continue;
    for (tt::DType t : {f32, f64}) {
      if (!v.supports(t)) continue;
      for (const tt::Shape& s : shapes) {
        tt::Problems diff;
        try {
          diff = v.device_moves(problem(step, s, t));
        } catch (const tt::CudaError& e) {
          part.verdict = Verdict::failed;
          note(part, name + ", " + tt::dtype_name(t) + ", " + shape_text(s) +
                         ": the moves failed on the GPU: " + std::string(e.what()));
          return false;
        }
        if (diff.empty()) continue;
        ++differ;
        note(part, name + ", " + tt::dtype_name(t) + ", " + shape_text(s) +
                       ": the GPU computes other moves than the CPU parts graded: " + diff[0] +
                       " (the device compiler read the code differently: it contracts a "
                       "floating-point a * b + c into one FMA, for one)");
        break;
      }
    }
  }
  part.verdict = wrong == 0 && differ == 0 ? Verdict::passed : Verdict::failed;
  return true;
}

}  // namespace lab
