/// @file runner.hpp
/// @brief The program every step is: parse the command line, then either explain the
/// kernel's memory accesses (no GPU) or verify and time it beside the references.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "device.hpp"
#include "report.hpp"
#include "step.hpp"

namespace tt {

/// One variant of one step, chosen to run.
struct Selected {
  /// The step the variant belongs to (for its id in the results).
  const Step* step;
  /// The variant to run.
  const Variant* variant;
};

/// Timing settings of a measurement.
struct RunConfig {
  /// Untimed launches before timing.
  int warmup = 10;
  /// Timed launches, one event pair each.
  int reps = 50;
};

/// Throws UsageError when @p plan of @p name cannot launch on @p dev (threads per block,
/// block or grid dimensions, shared memory), naming the limit.
void check_plan(const DeviceInfo& dev, const LaunchPlan& plan, const std::string& name);

/// Throws UsageError when a problem's input and output do not fit in the device's free
/// memory or in the host's memory (the verifier holds both on the host).
void check_fits(const DeviceInfo& dev, const Problem& problem);

/// Allocates input and output for @p problem, fills the input, and for every selected
/// variant: poisons the output, runs once, verifies, times warm-up + reps launches, and
/// verifies again. Mismatch reports go to @p log. Returns one Result per variant.
std::vector<Result> measure(const DeviceInfo& dev, const Problem& problem,
                            const std::vector<Selected>& selected, const RunConfig& config,
                            std::ostream& log);

/// Prints the access analysis of @p variant on @p problem: every memory instruction with its
/// predicted cost per instruction against the ideal, and the picture of warp @p warp of
/// block (0, 0) for each instruction.
void explain(const Step& step, const Variant& variant, const Problem& problem, int warp,
             std::ostream& out);

/// The access analysis as CSV rows (header first when @p header): step, variant, dtype,
/// rows, cols, kind, width, code, instructions, predicted and ideal cost per instruction.
/// Scripts compare these with Nsight Compute's counters.
void explain_csv(const Step& step, const Variant& variant, const Problem& problem, bool header,
                 std::ostream& out);

/// The bank pictures of every shared-memory instruction of @p variants on @p problem, for
/// warp @p warp of block (0, 0), as one SVG document. Throws UsageError when none of them
/// touches shared memory.
void explain_svg(const Step& step, const std::vector<const Variant*>& variants,
                 const Problem& problem, int warp, std::ostream& out);

/// Runs @p body and turns the harness's exceptions into one message on stderr and the
/// matching exit status (see ExitCode). @p program prefixes the message.
int guarded(const std::string& program, const std::function<int()>& body);

/// The whole program of a step: parse, --list, --explain, or verify and time the selected
/// variants (with the references unless --no-compare) and print the results.
int run_step(const Step& step, int argc, char** argv);

}  // namespace tt
