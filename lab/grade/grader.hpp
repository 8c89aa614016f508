/// @file grader.hpp
/// @brief The lab's grader (docs/lab-student.md), in parts: what an exercise is and asks
/// (exercises.cpp, the table), one file for each graded part, the child process and the
/// commands it runs apart (process.cpp), and the report and command line (main.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "registry.hpp"
#include "runner.hpp"

namespace lab {

inline constexpr int kSkipped = 77;    // exit status when nothing could be graded
inline constexpr int kIncomplete = 3;  // exit status when some parts could not run

enum class Verdict { passed, failed, skipped };

inline const char* verdict_name(Verdict v) {
  return v == Verdict::passed ? "passed" : v == Verdict::failed ? "failed" : "skipped";
}

/// One graded part of an exercise and its outcome.
struct Part {
  std::string key;    ///< Its name in the summary line: emulated, analysis, gpu-exact, ...
  std::string title;  ///< What it checks, in a few words.
  bool gpu = false;   ///< Whether it needs a GPU.
  int points = 0;     ///< What it is worth.
  Verdict verdict = Verdict::skipped;
  std::vector<std::string> notes;  ///< What failed, or why it was skipped, or what was measured.
};

/// A part not graded yet.
inline Part part(std::string key, std::string title, bool gpu, int points) {
  Part p;
  p.key = std::move(key);
  p.title = std::move(title);
  p.gpu = gpu;
  p.points = points;
  return p;
}

/// An access of a variant whose cost the analysis compares with its ideal. When @c graded is
/// false the figure is only shown (step 03's column read, whose conflict is step 04's lesson).
struct Target {
  std::string variant;
  tt::DType dtype;
  tt::Space space;
  tt::Op op;
  bool graded = true;
};

/// The speed part: @c variant on @c shape must reach @c bar percent of a kernel measured in the
/// same run on the same GPU: cudaMemcpy, or @c versus, another variant of the same step.
struct Speed {
  std::string variant;
  tt::Shape shape;
  tt::DType dtype;
  double bar;             ///< Percent of the kernel it is measured against.
  std::string reference;  ///< Where the bar comes from.
  std::string versus;     ///< Empty: cudaMemcpy; else a variant of the same step.
};

/// What each part of an exercise is worth (extra: 05's machine code, 07's swizzle, 08's order).
struct Points {
  int emulated, analysis, extra, exact, speed;
};

/// What an exercise asks, and how each part of it is graded.
struct Exercise {
  std::string id;                     ///< The step: "04-padding".
  std::string task;                   ///< The exercise in one line.
  std::string where;                  ///< What to write, and in which file.
  std::vector<std::string> variants;  ///< The variants whose exactness is graded.
  std::vector<Target> targets;        ///< The analysis.
  std::string extra;                  ///< "", "swizzle", "order" or "machine-code".
  Speed speed;
  Points points;
  std::string depends = "";  ///< The exercise whose answer this one's kernels run too, or "".
};

inline constexpr auto f32 = tt::DType::f32;
inline constexpr auto f64 = tt::DType::f64;
inline constexpr auto global = tt::Space::global;
inline constexpr auto shared = tt::Space::shared;
inline constexpr auto load = tt::Op::load;
inline constexpr auto store = tt::Op::store;


/// Every exercise, in the order of the steps (exercises.cpp).
const std::vector<Exercise>& exercises();

// Helpers (common.cpp).
/// Shapes that break sloppy index arithmetic: 1 x 1, single rows and columns, primes, ...
const std::vector<tt::Shape>& awkward_shapes();
std::string shape_text(tt::Shape s);
std::string fixed(double x, int digits = 2);
const tt::Step& step_of(const Exercise& ex);
tt::Problem problem(const tt::Step& step, tt::Shape shape, tt::DType dtype);
/// A verifier's report in one line: its first line, and the first mismatch it lists.
std::string one_line(const std::string& text);
/// Adds @p text unless the part already has @p most notes: the first few say enough.
void note(Part& p, const std::string& text, std::size_t most = 4);

/// The outcome of a command run through the shell (process.cpp).
struct Command {
  int code = -1;       ///< Its exit status (-1: it did not end normally or did not start).
  std::string output;  ///< Its stdout and stderr together.
};
/// Runs @p command through the shell, stderr joined to stdout.
Command run_command(const std::string& command);
/// The folder of this program's build (the parent of lab/, where steps/ lies): found from the
/// running executable, so that a build copied to another machine (scripts/pack-build.sh) finds
/// its own programs.
std::string build_dir();

/// The moves of every graded variant of @p ex on @p shapes, float and double, emulated on the
/// CPU (Variant::emulate, over the blocks @p reach says).
/// Notes the first wrong shape of each variant and type (and adds it to @p first_wrong, when
/// given), sets the verdict, and returns the variants and types tried and the wrong ones
/// (emulated.cpp; the parts emulated and large).
std::pair<int, int> emulate_graded(const Exercise& ex, Part& part,
                                   const std::vector<tt::Shape>& shapes, tt::Reach reach,
                                   std::vector<tt::Shape>* first_wrong = nullptr);

// The graded parts, one file each.
void grade_emulated(const Exercise& ex, Part& part);  // emulated.cpp
void grade_large(const Exercise& ex, Part& part);     // large.cpp
void grade_analysis(const Exercise& ex, Part& part);  // analysis.cpp
void grade_swizzle(Part& part);                       // swizzle.cpp
void grade_order(Part& part);                         // order.cpp
void grade_machine_code(Part& part);                  // machine_code.cpp
/// gpu-exact (exact.cpp): false when the GPU is unusable afterwards (a crashed kernel).
bool grade_exact(const Exercise& ex, const tt::DeviceInfo& dev, Part& part);
void grade_speed(const Exercise& ex, const tt::DeviceInfo& dev, bool exact, Part& part);  // speed.cpp
void grade_sanitizer(const Exercise& ex, Part& part);  // sanitizer.cpp
/// Runs @p body, which grades the parts of @p parts at @p which, in a child process (its own
/// process group, its output discarded) and takes their verdicts and notes back from it: the
/// grader's own process never runs the student's code. A child that crashes, exits before
/// reporting, or is still running after @p limit_s seconds (it is then stopped, with all it
/// started) fails those parts, and the note says which it was (process.cpp).
void in_child(std::vector<Part>& parts, const std::vector<std::size_t>& which,
              const std::function<void()>& body, double limit_s);
/// gpu-exact and gpu-speed in a child process (process.cpp).
void grade_gpu(const Exercise& ex, std::vector<Part>& parts, std::size_t exact_at,
               std::size_t speed_at, double limit_s);

}  // namespace lab
