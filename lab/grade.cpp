// The lab's grader (docs/lab-student.md): grades the exercise of each step from 02 on, in the
// build it is part of. In a lab build (-DTT_LAB=ON) the steps are compiled from the student's
// answers; in an ordinary build, from the model answers, which must pass.
//
// Each exercise is graded in parts, each worth some points:
//   CPU, no GPU needed:
//     emulated      the moves, run on the CPU exactly as the kernel makes them (Variant::
//                   emulate), transpose every awkward shape (1 x N, primes, non-square, ...);
//     large         the moves of the corner blocks of matrices past 2^31 elements, emulated
//                   without the matrix: an offset computed in 32-bit int fails here;
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
//                   (cudaMemcpy, or another variant of the step).
// A part that cannot run here (no GPU, no cuobjdump) is skipped: it neither passes nor fails,
// and its points are left out of the score; a grade with a skipped part is incomplete, never
// passed.
//
// The GPU parts of each exercise run in a child process, so that a kernel that crashes (an
// address outside the matrix can) costs that exercise its GPU points and nothing else.
//
// Exit status: 0 every part asked for ran and passed, 1 a part failed, 2 a bad command line,
// 3 incomplete (the parts that ran passed, but some could not run here: the grade names them
// and says how to run them), 77 nothing could be graded here (ctest shows that as skipped).
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iomanip>
#include <iostream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "07-swizzle/swizzle.hpp"
#include "08-diagonal/diagonal.hpp"
#include "analyser.hpp"
#include "device.hpp"
#include "error.hpp"
#include "references.hpp"
#include "registry.hpp"
#include "runner.hpp"

namespace {

constexpr int kSkipped = 77;    // exit status when nothing could be graded
constexpr int kIncomplete = 3;  // exit status when some parts could not run

enum class Verdict { passed, failed, skipped };

const char* verdict_name(Verdict v) {
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
Part part(std::string key, std::string title, bool gpu, int points) {
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
};

constexpr auto f32 = tt::DType::f32;
constexpr auto f64 = tt::DType::f64;
constexpr auto global = tt::Space::global;
constexpr auto shared = tt::Space::shared;
constexpr auto load = tt::Op::load;
constexpr auto store = tt::Op::store;

/// Every access of @p variant in both element types.
std::vector<Target> all_accesses(const std::string& variant,
                                 std::vector<tt::DType> dtypes = {f32, f64}) {
  std::vector<Target> t;
  for (tt::DType d : dtypes)
    for (auto [s, o] : {std::pair{global, load}, {shared, store}, {shared, load}, {global, store}})
      t.push_back({variant, d, s, o});
  return t;
}

template <typename... V>
std::vector<Target> join(V... parts) {
  std::vector<Target> all;
  (all.insert(all.end(), parts.begin(), parts.end()), ...);
  return all;
}

// The bars: each is a share of a kernel measured in the same run on the same GPU that the model
// answer cleared with a margin on an NVIDIA H100 and on an NVIDIA H200 (docs/results/h100/ and
// h200/, the lab part of gpu-check; docs/lab.md has them all), and that the step before it,
// or the unsolved exercise, did not. A share of cudaMemcpy where the lesson is bandwidth; a
// share of another variant of the step where the lesson is a difference between the two.
const std::vector<Exercise>& exercises() {
  static const std::vector<Exercise> all = {
      {"02-naive",
       "one thread per element, with the warps writing along output rows",
       "WriteRows' load() and store()",
       {"write-coalesced"},
       {{"write-coalesced", f32, global, store}, {"write-coalesced", f64, global, store}},
       "",
       // Measured against read-coalesced, which differs from it only in which side is
       // coalesced: its share of cudaMemcpy, 54.2% on an H100, is 40.3% on an H200.
       {"write-coalesced",
        {8192, 8192},
        f32,
        200.0,
        "the model answer measured 345% of read-coalesced on an H100 and 316% on an H200",
        "read-coalesced"},
       {4, 2, 0, 2, 2}},
      {"03-shared",
       "a 32 x 32 tile in shared memory, so that both global sides are coalesced",
       "Tile's load() and store()",
       {"tile-32x32"},
       {{"tile-32x32", f32, global, load},
        {"tile-32x32", f32, global, store},
        {"tile-32x32", f64, global, load},
        {"tile-32x32", f64, global, store},
        {"tile-32x32", f32, shared, store, false},
        {"tile-32x32", f32, shared, load, false}},
       "",
       {"tile-32x32",
        {8192, 8192},
        f32,
        20.0,
        "the model answer measured 33.1% on an H100 and 24.2% on an H200, where the 32-way "
        "conflict of its column read, not the memory, sets its speed",
        ""},
       {4, 2, 0, 2, 2}},
      {"04-padding",
       "a tile layout whose column read is free of bank conflicts",
       "tile_slot()",
       {"pad-32x33", "pad-16x17"},
       all_accesses("pad-32x33"),
       "",
       {"pad-32x33",
        {8192, 8192},
        f32,
        38.0,
        "the model answer measured 55.8% on an H100 and 42.4% on an H200; step 03's layout, "
        "33.1% and 24.2%",
        ""},
       {2, 4, 0, 2, 2}},
      {"05-multi-element",
       "four elements a thread, all of its loads issued before its first shared store",
       "Multi's load() and store() (part 1), load_phase() (part 2)",
       {"elements-1", "elements-2", "elements-4", "elements-8"},
       join(all_accesses("elements-1"), all_accesses("elements-2"), all_accesses("elements-4"),
            all_accesses("elements-8")),
       "machine-code",
       {"elements-4",
        {8192, 8192},
        f32,
        75.0,
        "the model answer measured 93.6% on an H100 and 86.0% on an H200; one element a "
        "thread, 55.3% on the H100",
        ""},
       {2, 1, 3, 2, 2}},
      {"06-float4",
       "16-byte moves: the tile slots of a vector's elements, on the way in and out",
       "the tile slots in Moves' load() and store()",
       {"padded", "unpadded"},
       // The padded tile keeps a 2-way conflict for double by design (docs/06-float4.md).
       join(all_accesses("padded", {f32}), std::vector<Target>{{"padded", f64, global, load},
                                                               {"padded", f64, global, store},
                                                               {"unpadded", f32, global, load},
                                                               {"unpadded", f32, shared, store},
                                                               {"unpadded", f32, global, store},
                                                               {"unpadded", f64, global, load},
                                                               {"unpadded", f64, shared, store},
                                                               {"unpadded", f64, global, store}}),
       "",
       {"padded",
        {8192, 8192},
        f32,
        75.0,
        "the model answer measured 93.7% on an H100 and 86.3% on an H200",
        ""},
       {3, 3, 0, 2, 2}},
      {"07-swizzle",
       "an XOR-swizzled dense tile: 16-byte shared stores and conflict-free gathers",
       "swizzle()",
       {"tile64", "tile64-256", "tile32", "scalar"},
       join(all_accesses("tile64"), all_accesses("tile64-256"), all_accesses("tile32"),
            all_accesses("scalar")),
       "swizzle",
       // At 4099 x 8191 the rows are not whole vectors, and tile64 runs its scalar path,
       // whose column reads a dense tile puts in one bank; on the 16-byte path at 8192 x 8192
       // the conflict of the unswizzled tile measured no slower than the model answer.
       {"tile64",
        {4099, 8191},
        f32,
        60.0,
        "the model answer measured 77.1% on an H100 and 68.5% on an H200, where this shape "
        "takes the scalar path",
        ""},
       {2, 2, 2, 2, 2}},
      {"08-diagonal",
       "column order: the blocks that run together write the same output rows",
       "column_block()",
       {"column"},
       {},
       "order",
       // Measured against row order, which differs from it only in the order: a share of
       // cudaMemcpy that separates the two on an H100 (88.4% against 74.9%) does not on an
       // H200 (column 75.7%).
       {"column",
        {4099, 8191},
        f32,
        106.0,
        "the model answer measured 118% of row order on an H100 (88.1% and 74.9% of "
        "cudaMemcpy) and 113% on an H200; it runs your step 07 swizzle too",
        "row"},
       {2, 0, 4, 2, 2}},
  };
  return all;
}

/// Shapes that break sloppy index arithmetic (tests/steps_under_test.hpp has the same): 1 x 1,
/// single rows and columns, primes, non-square, multiples and non-multiples of 32 and 64, rows
/// that are and are not whole 16-byte vectors.
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

std::string fixed(double x, int digits = 2) {
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
void note(Part& p, const std::string& text, std::size_t most = 4) {
  if (p.notes.size() < most) p.notes.push_back(text);
}

// ---- CPU parts --------------------------------------------------------------------------------

/// The moves of every graded variant on every awkward shape, float and double, on the CPU.
void grade_emulated(const Exercise& ex, Part& part) {
  const tt::Step& step = step_of(ex);
  int pairs = 0, wrong = 0;
  for (const std::string& name : ex.variants) {
    const tt::Variant& v = *step.find(name);
    for (tt::DType t : {f32, f64}) {
      if (!v.supports(t)) continue;
      ++pairs;
      for (const tt::Shape& s : awkward_shapes()) {
        tt::Problems problems;
        try {
          problems = v.emulate(problem(step, s, t), false);
        } catch (const std::exception& e) {
          problems = {std::string("the harness refused it: ") + e.what()};
        }
        if (problems.empty()) continue;
        ++wrong;
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
  if (wrong > 0)
    part.notes.insert(part.notes.begin(),
                      std::to_string(wrong) + " of " + std::to_string(pairs) +
                          " variants and types do not transpose exactly; the first shape each "
                          "fails on:");
}

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

/// Step 07: swizzle(r, c, width, chunk, chunk) as the tiles use it (swizzle.cuh): in every row
/// a permutation of the columns that moves each chunk whole, aligned and in order.
void grade_swizzle(Part& part) {
  int bad = 0;
  for (int width : {32, 64})
    for (int chunk : {1, 2, 4})
      for (int r = 0; r < width; ++r) {
        std::vector<int> owner(static_cast<std::size_t>(width), -1);
        for (int c = 0; c < width; ++c) {
          const int to = step07::swizzle(r, c, width, chunk, chunk);
          const std::string call = "swizzle(" + std::to_string(r) + ", " + std::to_string(c) +
                                   ", " + std::to_string(width) + ", " + std::to_string(chunk) +
                                   ", " + std::to_string(chunk) + ") = " + std::to_string(to);
          if (to < 0 || to >= width) {
            ++bad;
            note(part, call + ": outside the row (0 .. " + std::to_string(width - 1) + ")");
            break;
          }
          if (owner[static_cast<std::size_t>(to)] >= 0) {
            ++bad;
            note(part, call + ", where column " +
                           std::to_string(owner[static_cast<std::size_t>(to)]) +
                           " of the same row goes too: not one-to-one");
            break;
          }
          owner[static_cast<std::size_t>(to)] = c;
          const int first = step07::swizzle(r, c - c % chunk, width, chunk, chunk);
          if (to % chunk != c % chunk || to - c % chunk != first) {
            ++bad;
            note(part, call + ": a chunk of " + std::to_string(chunk) +
                           " columns must move whole, aligned and in order (its first column "
                           "went to " +
                           std::to_string(first) + ")");
            break;
          }
        }
      }
  part.verdict = bad == 0 ? Verdict::passed : Verdict::failed;
}

/// Step 08: column_block(b, gx, gy) takes every tile of the grid once, and consecutive blocks
/// walk down a column of tiles.
void grade_order(Part& part) {
  const std::vector<std::pair<unsigned, unsigned>> grids = {
      {1, 1}, {1, 7}, {7, 1}, {3, 5}, {5, 3}, {16, 16}, {128, 128}, {129, 65}, {2, 130}};
  int bad = 0;
  for (auto [gx, gy] : grids) {
    const std::string grid =
        " of a " + std::to_string(gx) + " x " + std::to_string(gy) + " grid (gx x gy)";
    std::vector<int> taken(static_cast<std::size_t>(gx) * gy, -1);
    for (unsigned b = 0; b < gx * gy; ++b) {
      const uint3 t = step08::column_block(b, gx, gy);
      const std::string tile =
          "(" + std::to_string(t.x) + ", " + std::to_string(t.y) + ", " + std::to_string(t.z) + ")";
      if (t.x >= gx || t.y >= gy || t.z != 0) {
        ++bad;
        note(part,
             "block " + std::to_string(b) + grid + " takes tile " + tile + ", outside the grid");
        break;
      }
      int& owner = taken[static_cast<std::size_t>(t.y) * gx + t.x];
      if (owner >= 0) {
        ++bad;
        note(part, "blocks " + std::to_string(owner) + " and " + std::to_string(b) + grid +
                       " both take tile " + tile + ", so another tile is never moved");
        break;
      }
      owner = static_cast<int>(b);
      if (b > 0 && b % gy != 0) {
        const uint3 prev = step08::column_block(b - 1, gx, gy);
        if (t.x != prev.x || t.y != prev.y + 1) {
          ++bad;
          note(part, "block " + std::to_string(b) + grid + " takes tile " + tile + " after block " +
                         std::to_string(b - 1) + " took (" + std::to_string(prev.x) + ", " +
                         std::to_string(prev.y) +
                         ", 0): in column order it takes the tile below, (" +
                         std::to_string(prev.x) + ", " + std::to_string(prev.y + 1) + ", 0)");
          break;
        }
      }
    }
  }
  part.verdict = bad == 0 ? Verdict::passed : Verdict::failed;
}

/// Step 05: scripts/sass_check.py on the build's 05-multi-element: every kernel issues the
/// loads its description states before its first shared store. Skipped without python3 or
/// cuobjdump, which the script says.
void grade_machine_code(Part& part) {
  const std::string command = std::string("\"") + TT_LAB_PYTHON +
                              "\" \"" TT_LAB_SOURCE_DIR
                              "/scripts/sass_check.py\" \"" TT_LAB_BUILD_DIR
                              "\" --only 05-multi-element --arch " TT_LAB_SASS_ARCH " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    part.verdict = Verdict::skipped;
    note(part, std::string("could not run scripts/sass_check.py: ") + std::strerror(errno));
    return;
  }
  std::string output;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  const int status = pclose(pipe);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::istringstream lines(output);
  std::string line, first;
  std::vector<std::string> failures;
  // "05-multi-element/elements-4 float (step05::transpose_multi<...>): at most 1 of its 4
  // loads issued before a shared store" -> "elements-4 float: at most 1 of its 4 ..."
  const std::regex fail(R"(^FAIL: 05-multi-element/(\S+) (\S+) \(.*?\): (.*)$)");
  while (std::getline(lines, line)) {
    if (first.empty()) first = line;
    std::smatch m;
    if (std::regex_match(line, m, fail)) {
      std::string what = m[3];
      if (what.find("global loads of [] bytes") != std::string::npos)
        what = "it issues no global load at all";
      failures.push_back(m[1].str() + " " + m[2].str() + ": " + what);
    } else if (line.rfind("FAIL: ", 0) == 0) {
      failures.push_back(line.substr(6));
    }
  }
  if (code == 0) {
    part.verdict = Verdict::passed;
  } else if (code == 1 && !failures.empty()) {
    part.verdict = Verdict::failed;
    note(part, "in the machine code (cuobjdump -sass) of your kernels:");
    for (const auto& f : failures) note(part, f, 5);
    note(part, "each thread must issue all its global loads before its first shared store", 6);
  } else {
    part.verdict = Verdict::skipped;
    note(part, code == kSkipped
                   ? first
                   : "scripts/sass_check.py did not run (" + std::string(TT_LAB_PYTHON) +
                         ", exit status " + std::to_string(code) + "): " + first);
  }
}

// ---- GPU parts (in a child process) -----------------------------------------------------------

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
  part.verdict = wrong == 0 ? Verdict::passed : Verdict::failed;
  if (wrong > 0)
    part.notes.insert(part.notes.begin(),
                      std::to_string(wrong) + " of " + std::to_string(pairs) +
                          " variants and types are wrong on the GPU; the first shape each "
                          "fails on:");
  return true;
}

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

/// Runs the GPU parts in this process and writes their outcome to @p fd, one line each:
/// "P <index> <verdict>" and "N <index> <note>".
void gpu_child(const Exercise& ex, std::vector<Part>& parts, std::size_t exact_at,
               std::size_t speed_at, int fd) {
  Part& exact = parts[exact_at];
  Part& speed = parts[speed_at];
  try {
    tt::require_devices();
    const tt::DeviceInfo dev = tt::select_device(0);
    const bool usable = grade_exact(ex, dev, exact);
    if (usable) {
      grade_speed(ex, dev, exact.verdict == Verdict::passed, speed);
    } else {
      speed.verdict = Verdict::failed;
      note(speed, "not timed: the kernel failed on the GPU");
    }
    tt::release_references();
  } catch (const tt::NoDeviceError& e) {
    std::string why = e.what();  // "no usable CUDA device: <call> failed with <error> (...). ..."
    why = why.substr(0, why.find(" ("));
    exact.verdict = speed.verdict = Verdict::skipped;
    note(exact, why);
    note(speed, "no CUDA device");
  } catch (const std::exception& e) {
    for (Part* p : {&exact, &speed})
      if (p->verdict == Verdict::skipped) {
        p->verdict = Verdict::failed;
        note(*p, std::string("the GPU run stopped: ") + e.what());
      }
  }
  std::string out;
  for (std::size_t i : {exact_at, speed_at}) {
    out +=
        "P " + std::to_string(i) + " " + std::to_string(static_cast<int>(parts[i].verdict)) + "\n";
    for (std::string n : parts[i].notes) {
      std::replace(n.begin(), n.end(), '\n', ' ');
      out += "N " + std::to_string(i) + " " + n + "\n";
    }
  }
  out += "E\n";
  for (std::size_t done = 0; done < out.size();) {
    const ssize_t w = write(fd, out.data() + done, out.size() - done);
    if (w <= 0) break;
    done += static_cast<std::size_t>(w);
  }
}

/// Forks a child for the GPU parts and reads their outcome back. The parent never touches
/// CUDA, so every child starts with a fresh context.
void grade_gpu(const Exercise& ex, std::vector<Part>& parts, std::size_t exact_at,
               std::size_t speed_at) {
  int fds[2];
  std::cout.flush();
  std::cerr.flush();
  if (pipe(fds) != 0) throw std::runtime_error("pipe() failed");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork() failed");
  if (pid == 0) {
    close(fds[0]);
    gpu_child(ex, parts, exact_at, speed_at, fds[1]);
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  std::istringstream lines(text);
  std::string line;
  bool ended = false;
  while (std::getline(lines, line)) {
    if (line == "E") ended = true;
    std::istringstream fields(line);
    char kind = 0;
    std::size_t index = 0;
    fields >> kind >> index;
    if (index != exact_at && index != speed_at) continue;
    if (kind == 'P') {
      int v = 0;
      fields >> v;
      parts[index].verdict = static_cast<Verdict>(v);
    } else if (kind == 'N') {
      std::string rest;
      std::getline(fields, rest);
      parts[index].notes.push_back(rest.substr(rest.find_first_not_of(' ')));
    }
  }
  if (!ended) {
    const std::string why =
        WIFSIGNALED(status)
            ? "the GPU run crashed (signal " + std::to_string(WTERMSIG(status)) + ")"
            : "the GPU run ended early (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
    for (std::size_t i : {exact_at, speed_at}) {
      parts[i].verdict = Verdict::failed;
      parts[i].notes.push_back(why);
    }
  }
}

// ---- The report -------------------------------------------------------------------------------

struct Graded {
  const Exercise* ex = nullptr;
  std::vector<Part> parts;
  int score = 0, graded = 0, ungraded = 0;
  bool failed = false, any = false, incomplete = false;
};

/// Which parts to grade: the CPU ones, the GPU ones, or the parts named (--part).
struct Selection {
  bool cpu = true, gpu = true;
  std::set<std::string> parts;
  bool wants(const Part& p) const {
    return parts.empty() ? (p.gpu ? gpu : cpu) : parts.count(p.key);
  }
};

Graded grade(const Exercise& ex, const Selection& want) {
  Graded g;
  g.ex = &ex;
  std::vector<Part> cpu;
  cpu.push_back(part("emulated", "exact on 20 awkward shapes, the moves emulated on the CPU", false,
                     ex.points.emulated));
  cpu.push_back(part("large",
                     "past 2^31 elements: corner blocks of 46341 x 46341 and 65537 x 32771, "
                     "emulated",
                     false, 1));
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
  // "conflict-free"): it counts only when the emulation passes.
  std::optional<Verdict> exact;
  const auto emulated = [&] {
    if (!exact) {
      Part e = cpu.front();
      grade_emulated(ex, e);
      exact = e.verdict;
    }
    return *exact;
  };
  for (Part& p : cpu) {
    if (!want.wants(p)) continue;
    if (p.key == "emulated") {
      grade_emulated(ex, p);
      exact = p.verdict;
    }
    if (p.key == "analysis") {
      if (emulated() == Verdict::passed) {
        grade_analysis(ex, p);
      } else {
        p.verdict = Verdict::failed;
        note(p, "not graded while the moves do not transpose exactly (the emulated part)");
      }
    }
    if (p.key == "large") grade_large(ex, p);
    if (p.key == "swizzle") grade_swizzle(p);
    if (p.key == "order") grade_order(p);
    if (p.key == "machine-code") grade_machine_code(p);
    g.parts.push_back(p);
  }
  // The GPU parts run together: the speed of a wrong result does not count.
  std::vector<Part> gpu = {
      part("gpu-exact", "exact on the GPU, the same shapes and two larger ones", true,
           ex.points.exact),
      part("gpu-speed",
           "speed on the GPU: at least " + fixed(ex.speed.bar, 0) + "% of " +
               (ex.speed.versus.empty() ? "cudaMemcpy" : "variant " + ex.speed.versus) +
               " in the same run",
           true, ex.points.speed)};
  if (want.wants(gpu[0]) || want.wants(gpu[1])) {
    grade_gpu(ex, gpu, 0, 1);
    for (const Part& p : gpu)
      if (want.wants(p)) g.parts.push_back(p);
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

}  // namespace

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
  app.add_option("--part", parts, "Only these parts (default: every part the exercise has)")
      ->check(CLI::IsMember(
          {"emulated", "large", "analysis", "swizzle", "order", "machine-code", "gpu-exact",
           "gpu-speed"}))
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
                                                                      {"gpu-speed", "gpu-speed"}};
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
