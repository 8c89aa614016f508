/// @file runner.hpp
/// @brief The program every step is: parse the command line, then either explain the
/// kernel's memory accesses (no GPU) or verify and time it beside the references.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "analyser.hpp"
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
  /// Timed launches, one event pair each. 0: none (--once): each variant is launched once,
  /// verified and reported untimed.
  int reps = 50;
};

/// Throws UsageError when @p plan of @p name exceeds a limit that every CUDA device of
/// compute capability 7.5 or newer has (1024 threads a block, grid.y and grid.z at most
/// 65535, 48 KB of static shared memory a block), naming the limit. Needs no GPU: every
/// mode of a program (runs, --explain, --list) refuses such a plan alike.
void check_limits(const LaunchPlan& plan, const std::string& name);

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

/// The access analysis of one variant on one problem: its launch plan and the totals of each
/// of its accesses (what --explain prints, in any format).
struct Analysis {
  const Step* step = nullptr;        ///< The step.
  const Variant* variant = nullptr;  ///< The variant.
  Problem problem;                   ///< The problem analysed.
  LaunchPlan plan;                   ///< The variant's plan for it.
  std::vector<AccessTotals> totals;  ///< One per plan.accesses, in order.
};

/// Analyses every access of @p variant on @p problem, visiting at most @p sample_blocks
/// blocks (0: every block). Throws UsageError when the plan exceeds a CUDA limit.
Analysis analyse(const Step& step, const Variant& variant, const Problem& problem,
                 std::uint64_t sample_blocks = kDefaultSampleBlocks);

/// Throws UsageError when the plan's block has no warp @p warp.
void check_warp(const LaunchPlan& plan, int warp);

/// Prints @p a as text: every memory instruction with its predicted cost per instruction
/// against the ideal, the bytes each thread has in flight, and the picture of warp @p warp of
/// block (0, 0) for each instruction.
void explain(const Analysis& a, int warp, std::ostream& out);

/// @p a as CSV rows (header first when @p header): step, variant, dtype, rows, cols, block,
/// kind, width, code, instructions, predicted and ideal cost per instruction, unit, lanes,
/// kernel, loads per thread and their bytes. Scripts compare these with Nsight Compute.
void explain_csv(const Analysis& a, bool header, std::ostream& out);

/// @p a as one JSON object on one line: the plan (grid, block, shared bytes, kernel, loads
/// per thread and their bytes, blocks visited) and every access with its totals.
void explain_json(const Analysis& a, std::ostream& out);

/// The bank pictures of every shared-memory instruction of @p analyses, for warp @p warp of
/// block (0, 0), as one SVG document. Throws UsageError when none of them touches shared
/// memory.
void explain_svg(const std::vector<Analysis>& analyses, int warp, std::ostream& out);

/// Runs @p body and turns the harness's exceptions into one message on stderr and the
/// matching exit status (see ExitCode). @p program prefixes the message.
int guarded(const std::string& program, const std::function<int()>& body);

/// The whole program of a step: parse, --list, --explain, or verify and time the selected
/// variants (with the references unless --no-compare) and print the results.
int run_step(const Step& step, int argc, char** argv);

}  // namespace tt
