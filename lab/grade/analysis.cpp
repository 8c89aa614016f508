// Part "analysis": what --explain predicts, the accesses the exercise is about at their
// ideal sectors per request (global) or wavefronts per instruction (shared).
#include "analyser.hpp"

#include "grader.hpp"

namespace lab {

/// What the analysis found wrong with one access, in words.
std::string access_problem(const Target& t, const tt::Access& a, const tt::AccessTotals& x) {
  const std::string who =
      t.variant + " " + tt::dtype_name(t.dtype) + ", " + tt::kind_name(a) + " `" + a.code + "`: ";
  if (x.instructions == 0)
    return who + "no warp executes it (every move says it lies outside the matrix)";
  if (a.space == global)
    return who + fixed(x.per_instruction()) + " sectors per request; a coalesced " +
           (a.op == load ? "load" : "store") + " needs " + fixed(x.ideal_per_instruction()) +
           " (the warp's bytes in whole 32-byte sectors)";
  return who + fixed(x.per_instruction()) +
         " wavefronts per instruction; a conflict-free access needs " +
         fixed(x.ideal_per_instruction()) + " (" +
         fixed(x.per_instruction() / x.ideal_per_instruction(), 0) + "-way bank conflict)";
}

/// The analyser's figures (what --explain prints) at 1024 x 1024, every block visited.
void grade_analysis(const Exercise& ex, Part& part) {
  const tt::Step& step = step_of(ex);
  int failed = 0;
  for (const Target& t : ex.targets) {
    const tt::Variant& v = *step.find(t.variant);
    tt::Analysis a;
    try {
      a = tt::analyse(step, v, problem(step, {1024, 1024}, t.dtype), 0);
    } catch (const std::exception& e) {
      ++failed;
      note(part, t.variant + ": the analysis failed: " + e.what(), 6);
      continue;
    }
    bool seen = false;
    for (std::size_t i = 0; i < a.plan.accesses.size(); ++i) {
      const tt::Access& acc = a.plan.accesses[i];
      if (acc.space != t.space || acc.op != t.op) continue;
      seen = true;
      const tt::AccessTotals& x = a.totals[i];
      const bool ideal = x.instructions > 0 && x.cost == x.ideal;
      if (!t.graded) {
        if (x.instructions == 0) continue;
        note(part,
             "(not graded) " + t.variant + " " + tt::dtype_name(t.dtype) + ", " +
                 tt::kind_name(acc) + ": " + fixed(x.per_instruction()) + " " + tt::unit_name(acc) +
                 ", ideal " + fixed(x.ideal_per_instruction()),
             6);
      } else if (!ideal) {
        ++failed;
        note(part, access_problem(t, acc, x), 6);
      }
    }
    if (!seen) throw std::logic_error(ex.id + ": a target names an access the kernel lacks");
  }
  part.verdict = failed == 0 ? Verdict::passed : Verdict::failed;
}

}  // namespace lab
