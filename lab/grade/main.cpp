// The lab's grader (docs/lab-student.md): grades the exercise of each step from 02 on, in the
// build it is part of. In a lab build (-DTT_LAB=ON) the steps are compiled from the student's
// answers; in an ordinary build, from the model answers, which must pass.
//
// Each exercise is graded in parts, each worth some points:
//   CPU, no GPU needed:
//     emulated      the moves, run on the CPU exactly as the kernel makes them (Variant::
//                   emulate), transpose every awkward shape (1 x N, primes, non-square, ...);
//     large         the moves of matrices past 2^31 and 2^32 elements (the corner blocks, and
//                   the lines of blocks where offsets wrap), emulated without the matrix: an
//                   offset computed in 32-bit int fails here, and one in 32-bit unsigned;
//     analysis      what --explain predicts: the accesses the exercise is about reach their
//                   ideal sectors per request (global) or wavefronts per instruction (shared);
//     swizzle, order, machine-code
//                   07: the swizzle is one-to-one and keeps 16-byte chunks whole; 08: the block
//                   order takes every tile once, walking down tile columns; 05: the machine
//                   code issues all of a thread's loads before its first shared store
//                   (scripts/sass_check.py, which needs cuobjdump);
//   GPU:
//     gpu-exact     the kernel, run on the GPU, is exact on the same shapes (tt::measure);
//     gpu-speed     its bandwidth reaches a stated share of a kernel measured in the same run
//                   (cudaMemcpy, or another variant of the step);
//     gpu-sanitizer the step's program under compute-sanitizer, memcheck and racecheck, on
//                   small odd shapes: a missing barrier fails every time.
// A part that cannot run here (no GPU, no cuobjdump) is skipped: it neither passes nor fails,
// and its points are left out of the score; a grade with a skipped part is incomplete, never
// passed.
//
// The grader is in parts (lab/grade/): the exercises as data (exercises.cpp), one file for
// each graded part, the child process and the commands apart (process.cpp), and this file,
// which grades and reports.
//
// Every part that runs the student's code runs in a child process with a time limit
// (--time-limit), the GPU parts of an exercise in one: a crash, an endless loop or an early
// exit costs that part its points and nothing else, and what the code prints is not shown.
// The verdicts come back through a pipe, each line with a token drawn before the fork (a line
// without it is ignored), and the report is printed by this process alone.
//
// Exit status: 0 every part asked for ran and passed, 1 a part failed, 2 a bad command line,
// 3 incomplete (the parts that ran passed, but some could not run here: the grade names them
// and says how to run them), 77 nothing could be graded here (ctest shows that as skipped).

#include <CLI/CLI.hpp>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include "error.hpp"
#include "grader.hpp"
#include "references.hpp"

namespace lab {

struct Graded {
  const Exercise* ex = nullptr;
  std::vector<Part> parts;
  int score = 0, graded = 0, ungraded = 0;
  bool failed = false, any = false, incomplete = false;
};

/// Which parts to grade: the CPU ones, the GPU ones, or the parts named (--part); and how long
/// a part's child may run.
struct Selection {
  bool cpu = true, gpu = true;
  std::set<std::string> parts;
  double limit_s = 300;
  bool wants(const Part& p) const {
    return parts.empty() ? (p.gpu ? gpu : cpu) : parts.count(p.key);
  }
};

Graded grade(const Exercise& ex, const Selection& want) {
  Graded g;
  g.ex = &ex;
  std::vector<Part> cpu;
  // One point of the emulation's goes to the check past 2^31 elements, and one of the GPU's
  // exactness to the sanitizer: an exercise is still worth 10.
  cpu.push_back(part("emulated",
                     "exact on " + std::to_string(awkward_shapes().size()) +
                         " awkward shapes, the moves emulated on the CPU",
                     false, ex.points.emulated - 1));
  cpu.push_back(part(
      "large", "past 2^31 and 2^32 elements: lines of blocks emulated, 64-bit offsets", false, 1));
  if (ex.points.analysis > 0)
    cpu.push_back(
        part("analysis", "access analysis (what --explain predicts)", false, ex.points.analysis));
  if (ex.extra == "swizzle")
    cpu.push_back(part("swizzle", "the swizzle is one-to-one and keeps 16-byte chunks whole", false,
                       ex.points.extra));
  if (ex.extra == "order")
    cpu.push_back(part("order", "every tile taken once, blocks walking down tile columns", false,
                       ex.points.extra));
  if (ex.extra == "machine-code")
    cpu.push_back(part("machine-code",
                       "machine code: all loads of a thread before its first shared store", false,
                       ex.points.extra));
  // The analysis of moves that do not transpose means nothing (slots that all coincide are
  // "conflict-free"): it counts only when the emulation passes. Each part in its own child.
  std::optional<Verdict> exact;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    Part& p = cpu[i];
    if (!want.wants(p)) continue;
    if (p.key == "analysis" && !exact) {  // the emulation alone, to know whether it counts
      std::vector<Part> e = {cpu.front()};
      in_child(
          e, {0}, [&] { grade_emulated(ex, e[0]); }, want.limit_s);
      exact = e[0].verdict;
    }
    if (p.key == "analysis" && exact != Verdict::passed) {
      p.verdict = Verdict::failed;
      note(p, "not graded while the moves do not transpose exactly (the emulated part)");
    } else {
      in_child(
          cpu, {i},
          [&] {
            if (p.key == "emulated") grade_emulated(ex, p);
            if (p.key == "analysis") grade_analysis(ex, p);
            if (p.key == "large") grade_large(ex, p);
            if (p.key == "swizzle") grade_swizzle(p);
            if (p.key == "order") grade_order(p);
            if (p.key == "machine-code") grade_machine_code(p);
          },
          want.limit_s);
    }
    if (p.key == "emulated") exact = p.verdict;
    g.parts.push_back(p);
  }
  // The GPU parts run together: the speed of a wrong result does not count.
  std::vector<Part> gpu = {
      part("gpu-exact", "exact on the GPU, the same shapes and two larger ones", true,
           ex.points.exact - 1),
      part("gpu-speed",
           "speed on the GPU: at least " + fixed(ex.speed.bar, 0) + "% of " +
               (ex.speed.versus.empty() ? "cudaMemcpy" : "variant " + ex.speed.versus) +
               " in the same run",
           true, ex.points.speed)};
  if (want.wants(gpu[0]) || want.wants(gpu[1])) {
    grade_gpu(ex, gpu, 0, 1, want.limit_s);
    for (const Part& p : gpu)
      if (want.wants(p)) g.parts.push_back(p);
  }
  Part sanitizer = part("gpu-sanitizer",
                        "compute-sanitizer memcheck and racecheck on small odd shapes", true, 1);
  if (want.wants(sanitizer)) {
    std::vector<Part> one = {sanitizer};
    in_child(
        one, {0}, [&] { grade_sanitizer(ex, one[0]); }, want.limit_s);
    g.parts.push_back(one[0]);
  }
  // An exercise whose kernels run another's answer cannot be exact before that one is: say so
  // where it bites, in each failed part that the other's answer can explain.
  if (!ex.depends.empty()) {
    // Whether the other exercise's answer fails: its parts, graded in a child too (a part
    // that crashes or hangs there fails, and so explains). Its exactness explains this one's
    // exactness and speed; its analysis (a conflicted layout: 05 and 06 run 04's) explains
    // this one's analysis.
    bool explains = false, explains_analysis = false;
    for (const Exercise& other : exercises()) {
      if (other.id != ex.depends) continue;
      std::vector<Part> o = {part("emulated", "", false, 0), part("large", "", false, 0),
                             part("swizzle", "", false, 0), part("analysis", "", false, 0)};
      in_child(
          o, {0, 1, 2, 3},
          [&] {
            grade_emulated(other, o[0]);
            grade_large(other, o[1]);
            if (other.extra == "swizzle") grade_swizzle(o[2]);
            if (!other.targets.empty()) grade_analysis(other, o[3]);
          },
          want.limit_s);
      for (std::size_t k = 0; k < 3; ++k) explains = explains || o[k].verdict == Verdict::failed;
      explains_analysis = o[3].verdict == Verdict::failed;
    }
    for (Part& p : g.parts)
      if (p.verdict == Verdict::failed &&
          ((explains && (p.key == "emulated" || p.key == "large" || p.key == "gpu-exact" ||
                         p.key == "gpu-speed" || p.key == "gpu-sanitizer")) ||
           (explains_analysis && p.key == "analysis")))
        p.notes.insert(p.notes.begin(),
                       ex.id + "'s kernels run your " + ex.depends + " answer, which is not "
                       "right yet (lab-grade --exercise " + ex.depends + " says where): "
                       "solve " + ex.depends + " first, then this part again");
  }
  for (const Part& p : g.parts) {
    if (p.verdict == Verdict::skipped) {
      g.ungraded += p.points;
      g.incomplete = true;
      continue;
    }
    g.any = true;
    g.graded += p.points;
    if (p.verdict == Verdict::passed) g.score += p.points;
    if (p.verdict == Verdict::failed) g.failed = true;
  }
  return g;
}

void print(const Graded& g, std::ostream& out) {
  const Exercise& ex = *g.ex;
  out << "\n== " << ex.id << ": " << ex.task << "\n";
#if TT_LAB_MODE
  // The work folder as the student typed it: relative to the repository's root when inside it.
  std::string work = TT_LAB_WORK;
  const std::string root = TT_LAB_SOURCE_DIR "/";
  if (work.rfind(root, 0) == 0) work.erase(0, root.size());
  const std::string proof = TT_LAB_PROOF;
  if (work.empty())  // no work folder: the regions of TT_LAB_ANSWERS, else the model answer
    out << "   graded: " << ex.where << " as "
        << (proof.empty() ? "TT_LAB_ANSWERS has it"
                          : "proof set '" + proof + "' has it (tests/lab/sets.cmake)")
        << "\n";
  else
    out << "   graded: your answer (" << ex.where << ") in " << work << "/" << ex.id << "/\n";
#else
  out << "   graded: the model answer (" << ex.where << ") in steps/" << ex.id
      << "/; a lab build (-DTT_LAB=ON) grades yours\n";
#endif
  for (const Part& p : g.parts) {
    std::string verdict = verdict_name(p.verdict);
    if (p.verdict == Verdict::failed) verdict = "FAILED";
    std::ostringstream points;
    if (p.verdict == Verdict::skipped)
      points << "-/" << p.points;
    else
      points << (p.verdict == Verdict::passed ? p.points : 0) << "/" << p.points;
    out << "   " << std::left << std::setw(8) << verdict << (p.gpu ? "GPU  " : "CPU  ")
        << std::setw(72) << p.title << std::right << std::setw(5) << points.str() << "\n";
    for (const std::string& n : p.notes) out << "            " << n << "\n";
  }
  out << "   score: " << g.score << " of the " << g.graded << " points graded here";
  if (g.ungraded > 0) out << " (" << g.ungraded << " more could not be graded here)";
  out << "\n";
  if (g.incomplete && !g.failed && g.any) {
    bool gpu = false, cpu = false;
    for (const Part& p : g.parts)
      if (p.verdict == Verdict::skipped) (p.gpu ? gpu : cpu) = true;
    out << "   INCOMPLETE: the parts marked skipped did not run here, so this is not a pass.";
    if (cpu)
      out << " For the machine code, put cuobjdump and nvdisasm on PATH (a full CUDA toolkit, "
             "or pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm) and run again.";
    if (gpu) out << " For the GPU parts, run lab-grade on a machine with a CUDA GPU.";
    out << "\n";
  }
  // One line for scripts and ctest: every part's verdict.
  out << "grade " << ex.id << ":";
  for (const Part& p : g.parts) out << " " << p.key << "=" << verdict_name(p.verdict);
  out << " score=" << g.score << "/" << g.graded << " result="
      << (g.failed       ? "failed"
          : !g.any       ? "skipped"
          : g.incomplete ? "incomplete"
                         : "passed")
      << "\n";
}


}  // namespace lab

using namespace lab;

int main(int argc, char** argv) {
  CLI::App app{
      "Grades the lab's exercises (docs/lab-student.md): for each, exactness on awkward shapes "
      "and the access analysis on the CPU, the machine code where cuobjdump is found, and "
      "exactness and speed on the GPU where there is one."};
  std::vector<std::string> only;
  bool cpu_only = false, gpu_only = false;
  std::vector<std::string> ids;
  for (const Exercise& ex : exercises()) ids.push_back(ex.id);
  app.add_option("--exercise", only, "Grade only these exercises (default: all)")
      ->check(CLI::IsMember(ids));
  std::vector<std::string> parts;
  auto* cpu_flag = app.add_flag("--cpu", cpu_only, "Only the parts that need no GPU");
  auto* gpu_flag =
      app.add_flag("--gpu", gpu_only, "Only the parts that run on the GPU")->excludes(cpu_flag);
  double limit_s = 300;
  app.add_option("--time-limit", limit_s,
                 "Seconds each part may run (the GPU parts of an exercise together) before it "
                 "is stopped and fails")
      ->check(CLI::Range(1.0, 86400.0));
  app.add_option("--part", parts, "Only these parts (default: every part the exercise has)")
      ->check(CLI::IsMember(
          {"emulated", "large", "analysis", "swizzle", "order", "machine-code", "gpu-exact",
           "gpu-speed", "gpu-sanitizer"}))
      ->excludes(cpu_flag)
      ->excludes(gpu_flag);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help: 0; a bad command line: 2, as every program
  }

  Selection want;
  want.cpu = !gpu_only;
  want.gpu = !cpu_only;
  want.parts.insert(parts.begin(), parts.end());
  want.limit_s = limit_s;
  std::vector<Graded> all;
  try {
    for (const Exercise& ex : exercises()) {
      if (!only.empty() && std::find(only.begin(), only.end(), ex.id) == only.end()) continue;
      all.push_back(grade(ex, want));
      print(all.back(), std::cout);
      std::cout.flush();
    }
  } catch (const std::exception& e) {
    std::cerr << "lab-grade: " << e.what() << "\n";
    return 1;
  }
  bool failed = false, any = false, incomplete = false;
  int score = 0, graded = 0, ungraded = 0;
  for (const Graded& g : all) {
    failed = failed || g.failed;
    any = any || g.any;
    incomplete = incomplete || g.incomplete;
    score += g.score;
    graded += g.graded;
    ungraded += g.ungraded;
  }
  if (all.size() > 1) {
    // One row an exercise; "other" is 05's machine code, 07's swizzle or 08's block order.
    const std::vector<std::pair<std::string, std::string>> columns = {{"emulated", "emulated"},
                                                                      {"large", "large"},
                                                                      {"analysis", "analysis"},
                                                                      {"", "other"},
                                                                      {"gpu-exact", "gpu-exact"},
                                                                      {"gpu-speed", "gpu-speed"},
                                                                      {"gpu-sanitizer", "sanitizer"}};
    std::cout << "\n" << std::left << std::setw(18) << "exercise" << std::setw(8) << "score";
    for (const auto& c : columns) std::cout << std::setw(11) << c.second;
    std::cout << "\n";
    for (const Graded& g : all) {
      std::cout << std::setw(18) << g.ex->id << std::setw(8)
                << (std::to_string(g.score) + "/" + std::to_string(g.graded));
      for (const auto& c : columns) {
        std::string v = "-";
        for (const Part& p : g.parts) {
          const bool other = p.key == "swizzle" || p.key == "order" || p.key == "machine-code";
          if (c.first.empty() ? other : p.key == c.first) v = verdict_name(p.verdict);
        }
        std::cout << std::setw(11) << v;
      }
      std::cout << "\n";
    }
    std::cout << std::right << "\ntotal: " << score << " of the " << graded
              << " points graded here";
    if (ungraded > 0) std::cout << "; " << ungraded << " more could not be graded here";
    std::cout << "\n";
  }
  return failed ? 1 : !any ? kSkipped : incomplete ? kIncomplete : 0;
}
