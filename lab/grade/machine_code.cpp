// Part "machine-code" (05): scripts/sass_check.py on the build's 05-multi-element.
#include <regex>
#include <sstream>

#include "grader.hpp"

namespace lab {

/// Step 05: scripts/sass_check.py on the build's 05-multi-element: every kernel issues the
/// loads its description states before its first shared store. Skipped without python3 or
/// cuobjdump, which the script says.
void grade_machine_code(Part& part) {
  const std::string command = std::string("\"") + TT_LAB_PYTHON +
                              "\" \"" TT_LAB_SOURCE_DIR
                              "/scripts/sass_check.py\" \"" TT_LAB_BUILD_DIR
                              "\" --only 05-multi-element --arch " TT_LAB_SASS_ARCH " 2>&1";
  const Command run = run_command(command);
  const std::string& output = run.output;
  const int code = run.code;
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

}  // namespace lab
