// Part "gpu-sanitizer": the step's own program under compute-sanitizer, memcheck and racecheck,
// on small odd shapes, so that a race fails every time, not only when it changes the output.
#include <sys/stat.h>

#include <cstdlib>
#include <regex>
#include <sstream>

#include "grader.hpp"

namespace lab {

namespace {

/// compute-sanitizer: COMPUTE_SANITIZER, then PATH, then the CUDA toolkit the build used.
std::string find_sanitizer() {
  struct stat st {};
  const auto runnable = [&](const std::string& p) {
    return !p.empty() && stat(p.c_str(), &st) == 0 && (st.st_mode & S_IXUSR);
  };
  if (const char* env = std::getenv("COMPUTE_SANITIZER"); env && runnable(env)) return env;
  if (const char* path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    for (std::string d; std::getline(dirs, d, ':');)
      if (runnable(d + "/compute-sanitizer")) return d + "/compute-sanitizer";
  }
  for (const std::string& p : {std::string(TT_LAB_CUDA_BIN) + "/compute-sanitizer",
                               std::string("/usr/local/cuda/bin/compute-sanitizer")})
    if (runnable(p)) return p;
  return "";
}

/// The runs: memcheck in both types on a shape odd in both sides (edge tiles, the scalar
/// paths); racecheck in float there and on rows of whole 16-byte vectors with partial tiles
/// (the 16-byte paths of 06 to 08). Racecheck is the slow one, and a race on the tile does
/// not depend on the element type.
struct Run {
  const char* check;
  const char* dtype;
  tt::Shape shape;
};
const std::vector<Run>& sanitizer_runs() {
  static const std::vector<Run> runs = {{"memcheck", "float", {33, 65}},
                                        {"memcheck", "double", {33, 65}},
                                        {"racecheck", "float", {33, 65}},
                                        {"racecheck", "float", {64, 96}}};
  return runs;
}

}  // namespace

void grade_sanitizer(const Exercise& ex, Part& part) {
  const std::string program = build_dir() + "/steps/" + ex.id + "/" + ex.id;
  const std::string tool = find_sanitizer();
  if (tool.empty()) {
    part.verdict = Verdict::skipped;
    note(part, "compute-sanitizer not found (set COMPUTE_SANITIZER, or put the CUDA toolkit's "
               "bin folder on PATH)");
    return;
  }
  const Command probe =
      run_command("\"" + program + "\" --size 1 --once --no-compare");
  if (probe.code == 3 || probe.code == 127 || probe.code == -1) {
    part.verdict = Verdict::skipped;
    note(part, probe.code == 3 ? "no CUDA device" : "the step's program did not run: " + program);
    return;
  }
  // compute-sanitizer's own exit status when it reports an error.
  constexpr int kReported = 86;
  const std::regex errors(R"(ERROR SUMMARY: ([1-9][0-9]*) error)");
  int runs = 0, failed = 0;
  for (const std::string& name : ex.variants) {
    for (const Run& run : sanitizer_runs()) {
      ++runs;
      const tt::Shape s = run.shape;
      const Command c = run_command(
          "\"" + tool + "\" --tool " + run.check + " --error-exitcode " +
          std::to_string(kReported) + " --print-limit 4 \"" + program + "\" --variant " + name +
          " --dtype " + run.dtype + " --rows " + std::to_string(s.rows) + " --cols " +
          std::to_string(s.cols) + " --once --no-compare");
      std::smatch m;
      const bool reported = c.code == kReported || std::regex_search(c.output, m, errors);
      if (c.code == 0 && !reported) continue;
      ++failed;
      std::string first;  // the first report line ("========= Race reported ...")
      std::istringstream lines(c.output);
      for (std::string l; std::getline(lines, l);)
        if (l.rfind("========= ", 0) == 0 && l.find("COMPUTE-SANITIZER") == std::string::npos &&
            l.find("ERROR SUMMARY") == std::string::npos) {
          first = l.substr(10);
          break;
        }
      note(part, name + ", " + run.dtype + ", " + shape_text(s) + ", " + run.check + ": " +
                     (reported ? one_line(first.empty() ? c.output : first)
                               : "the program failed (exit status " + std::to_string(c.code) +
                                     ")"));
    }
  }
  part.verdict = failed == 0 ? Verdict::passed : Verdict::failed;
  if (failed == 0)
    note(part, std::to_string(runs) + " runs of the step under memcheck and racecheck, no report");
  else
    part.notes.insert(part.notes.begin(),
                      "compute-sanitizer reported: a race (a barrier missing between the tile's "
                      "writes and reads) or an access outside an array:");
}

}  // namespace lab
