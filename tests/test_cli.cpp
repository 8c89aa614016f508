// The command line: good input parses, bad input is refused with a message that names the
// problem, and a step program given bad input exits with status 2 before touching a GPU.
#include <sstream>
#include <string>
#include <vector>

#include "02-naive/naive.hpp"
#include "03-shared/shared.hpp"
#include "catch.hpp"
#include "cli.hpp"
#include "error.hpp"
#include "references.hpp"
#include "registry.hpp"
#include "runner.hpp"

namespace {

std::optional<tt::Options> parse(const tt::Step& step, std::vector<std::string> args) {
  args.insert(args.begin(), step.id);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out;
  return tt::parse_options(step, static_cast<int>(argv.size()), argv.data(), out);
}

/// The UsageError message for @p args, or "" if they parse.
std::string error_of(const tt::Step& step, std::vector<std::string> args) {
  try {
    parse(step, std::move(args));
  } catch (const tt::UsageError& e) {
    return e.what();
  }
  return "";
}

int exit_status(const tt::Step& step, std::vector<std::string> args) {
  args.insert(args.begin(), step.id);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return tt::run_step(step, static_cast<int>(argv.size()), argv.data());
}

}  // namespace

TEST_CASE("defaults: 8192 x 8192 float, the step's default variant and block", "[cli]") {
  const auto o = parse(step02::step(), {});
  REQUIRE(o);
  CHECK(o->shape.rows == 8192);
  CHECK(o->shape.cols == 8192);
  CHECK(o->dtype == tt::DType::f32);
  CHECK(o->variant == step02::step().default_variant);
  REQUIRE(o->block);
  CHECK(o->block->x == 32);
  CHECK(o->block->y == 8);
  CHECK(o->compare);
}

TEST_CASE("good command lines", "[cli]") {
  auto o = parse(step02::step(), {"--rows", "4099", "--cols", "8191", "--dtype", "double",
                                  "--variant", "read-coalesced", "--block", "16x16", "--reps", "7",
                                  "--warmup", "0", "--format", "csv", "--no-compare"});
  REQUIRE(o);
  CHECK(o->shape.rows == 4099);
  CHECK(o->shape.cols == 8191);
  CHECK(o->dtype == tt::DType::f64);
  CHECK(o->variant == "read-coalesced");
  CHECK(o->block->x == 16);
  CHECK(o->block->y == 16);
  CHECK(o->reps == 7);
  CHECK(o->warmup == 0);
  CHECK(o->format == tt::Format::csv);
  CHECK_FALSE(o->compare);
  o = parse(step02::step(), {"--size", "1", "--variant", "all", "--explain"});
  REQUIRE(o);
  CHECK(o->shape.rows == 1);
  CHECK(o->shape.cols == 1);
  CHECK(o->explain);
  CHECK_FALSE(parse(step02::step(), {"--help"}));  // help printed, nothing to run
}

TEST_CASE("one untimed launch a variant (--once), for a profiler", "[cli]") {
  const auto o = parse(step02::step(), {"--once", "--variant", "all"});
  REQUIRE(o);
  CHECK(o->warmup == 0);
  CHECK(o->reps == 0);  // RunConfig's 'no timed launch'
  CHECK(error_of(step02::step(), {"--once", "--reps", "3"}).find("excludes") != std::string::npos);
  CHECK(error_of(step02::step(), {"--once", "--warmup", "3"}).find("excludes") !=
        std::string::npos);
}

TEST_CASE("bad values name the flag and the problem", "[cli]") {
  const auto& s = step02::step();
  CHECK(error_of(s, {"--rows", "abc"}).find("'abc' is not a whole number") != std::string::npos);
  CHECK(error_of(s, {"--rows", "0"}).find("too small") != std::string::npos);
  CHECK(error_of(s, {"--cols", "-5"}).find("negative") != std::string::npos);
  CHECK(error_of(s, {"--rows", "2147483648"}).find("too large") != std::string::npos);
  CHECK(error_of(s, {"--rows", "99999999999999999999999"}).find("too large") != std::string::npos);
  CHECK(error_of(s, {"--reps", "1.5"}).find("not a whole number") != std::string::npos);
  CHECK(error_of(s, {"--rows", ""}).find("--rows") != std::string::npos);
  CHECK(error_of(s, {"--dtype", "half"}).find("half") != std::string::npos);
  CHECK(error_of(s, {"--variant", "fast"}).find("choose one of: read-coalesced") !=
        std::string::npos);
  // Several variants, a,b: each name is checked, and a wrong one is named.
  CHECK(error_of(s, {"--variant", "read-coalesced,fast"}).find("'fast'") != std::string::npos);
  CHECK(error_of(s, {"--variant", "read-coalesced,"}).find("''") != std::string::npos);
  CHECK(exit_status(s, {"--variant", "read-coalesced,write-coalesced", "--explain", "--size",
                        "64"}) == tt::kExitOk);
  CHECK(tt::variant_names("a,b") == std::vector<std::string>{"a", "b"});
  CHECK(tt::variant_names("a") == std::vector<std::string>{"a"});
  CHECK(error_of(s, {"--block", "32"}).find("WIDTHxHEIGHT") != std::string::npos);
  CHECK(error_of(s, {"--block", "64x32"}).find("1024 threads") != std::string::npos);
  CHECK(error_of(s, {"--block", "0x8"}).find("at least 1") != std::string::npos);
  CHECK(error_of(s, {"--bogus"}).find("--bogus") != std::string::npos);
  CHECK(error_of(s, {"--rows", "3", "--rows", "4"}).find("--rows") != std::string::npos);
  CHECK(error_of(s, {"--size", "8", "--rows", "4"}).find("excludes") != std::string::npos);
  CHECK(error_of(s, {"--rows", "2147483647", "--cols", "2147483647", "--dtype", "double"})
            .find("too large to address") != std::string::npos);
  // The references take no --block.
  CHECK(error_of(tt::references(), {"--block", "32x8"}).find("--block") != std::string::npos);
}

TEST_CASE("a step program exits with status 2 on bad input, before any GPU work", "[cli]") {
  CHECK(exit_status(step02::step(), {"--rows", "abc"}) == tt::kExitUsage);
  CHECK(exit_status(step02::step(), {"--block", "2000x1"}) == tt::kExitUsage);
  CHECK(exit_status(tt::references(), {"--variant", "nope"}) == tt::kExitUsage);
  CHECK(exit_status(step02::step(), {"--help"}) == tt::kExitOk);
  CHECK(exit_status(step02::step(), {"--list"}) == tt::kExitOk);
  CHECK(exit_status(step02::step(), {"--explain", "--size", "100"}) == tt::kExitOk);
  // SVG bank pictures: only with --explain, and only for a step that uses shared memory.
  CHECK(exit_status(step02::step(), {"--format", "svg"}) == tt::kExitUsage);
  CHECK(exit_status(step02::step(), {"--explain", "--format", "svg"}) == tt::kExitUsage);
  // A grid beyond what every CUDA device allows is refused in every mode, GPU or not.
  for (const char* mode : {"--explain", "--list"}) {
    CHECK(exit_status(step02::step(), {"--rows", "8", "--cols", "524281", mode}) == tt::kExitUsage);
    CHECK(exit_status(step02::step(), {"--rows", "8", "--cols", "524280", mode}) == tt::kExitOk);
  }
}

TEST_CASE("the SVG form of --explain draws the shared-memory accesses of a step", "[cli]") {
  std::ostringstream out;
  const auto& s = step03::step();
  tt::explain_svg(
      {tt::analyse(s, *s.find("tile-32x32"), tt::Problem{{64, 64}, tt::DType::f32, std::nullopt})},
      0, out);
  const std::string svg = out.str();
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("shared load") != std::string::npos);
  CHECK(svg.find("32 wavefront(s), ideal 1") != std::string::npos);  // the column read
  CHECK(svg.find("shared store") != std::string::npos);
}

// ---- --explain in every format, and its options checked in every mode. -----------------------

#include <cstdio>

#include "05-multi-element/multi_element.hpp"
#include "analyser.hpp"

namespace {

/// What run_step prints on stdout for @p args (stdout redirected into a temporary file).
std::string stdout_of(const tt::Step& step, std::vector<std::string> args, int* status) {
  std::fflush(stdout);
  std::ostringstream captured;
  std::streambuf* old = std::cout.rdbuf(captured.rdbuf());
  *status = exit_status(step, std::move(args));
  std::cout.rdbuf(old);
  return captured.str();
}

}  // namespace

TEST_CASE("the analyser prints every format the help lists, and refuses a warp the block lacks",
          "[cli]") {
  int status = -1;
  const auto& s = step05::step();
  const std::string json = stdout_of(s, {"--explain", "--format", "json", "--size", "64"}, &status);
  CHECK(status == tt::kExitOk);
  CHECK(json.rfind("{\"step\":\"05-multi-element\"", 0) == 0);
  CHECK(json.find("\"accesses\":[") != std::string::npos);
  const std::string csv = stdout_of(s, {"--explain", "--format", "csv", "--size", "64"}, &status);
  CHECK(status == tt::kExitOk);
  CHECK(csv.rfind("step,variant,dtype,rows,cols,block,kind", 0) == 0);
  const std::string text = stdout_of(s, {"--explain", "--size", "64"}, &status);
  CHECK(status == tt::kExitOk);
  CHECK(text.find("Predicted cost of each memory instruction") != std::string::npos);
  // The default block is 32 x 8 threads: warps 0 to 7.
  CHECK(exit_status(s, {"--explain", "--warp", "7", "--size", "64"}) == tt::kExitOk);
  CHECK(exit_status(s, {"--explain", "--warp", "8", "--size", "64"}) == tt::kExitUsage);
  // --warp and --sample choose what --explain shows; without it they are refused.
  CHECK(exit_status(s, {"--warp", "1"}) == tt::kExitUsage);
  CHECK(exit_status(s, {"--sample", "0"}) == tt::kExitUsage);
}

TEST_CASE("the analyser's output says what it means", "[cli]") {
  CHECK(tt::lane_list({0, 16}) == "0, 16");
  CHECK(tt::lane_list({0, 1, 2, 3}) == "0-3");
  CHECK(tt::lane_list({0, 1, 2, 3, 8, 9, 31}) == "0-3, 8-9, 31");
  int status = -1;
  // A 1 x 1 block: every instruction has 1 lane of 32; the output says so.
  const std::string one =
      stdout_of(step02::step(), {"--explain", "--block", "1x1", "--size", "64"}, &status);
  CHECK(status == tt::kExitOk);
  CHECK(one.find("only 1.00 of 32 lanes active") != std::string::npos);
  // A sampled analysis says that its counts are estimates, and how to get exact ones.
  const std::string big = stdout_of(step02::step(), {"--explain", "--size", "8192"}, &status);
  CHECK(big.find("The counts are estimates") != std::string::npos);
  CHECK(big.find("--sample 0") != std::string::npos);
  const std::string exact = stdout_of(step02::step(), {"--explain", "--size", "64"}, &status);
  CHECK(exact.find("The counts are estimates") == std::string::npos);
}

TEST_CASE("a variant that needs a newer GPU is named, with what it needs and what the GPU is",
          "[cli]") {
  // Every variant states the compute capability its kernels need (0: any the course builds
  // for). cp.async needs 8.0: on a 7.5 GPU such a variant is not launched, and the program
  // says why (common/runner.cpp), then exits with status 6 once the rest have run.
  int needing = 0;
  for (const tt::Step* st : tt::tutorial_steps())
    for (const tt::Variant& v : st->variants) {
      INFO(st->id << "/" << v.name << " needs " << v.needs_sm);
      CHECK(tt::runs_on(v, 9, 0));  // the lent GPUs (sm_90) run every variant
      if (v.needs_sm == 0) CHECK(tt::runs_on(v, 7, 5));
      if (v.needs_sm > 0) {
        ++needing;
        CHECK_FALSE(tt::runs_on(v, 7, 5));
        CHECK(tt::runs_on(v, v.needs_sm / 10, v.needs_sm % 10));
        CHECK_FALSE(tt::runs_on(v, v.needs_sm / 10, v.needs_sm % 10 - 1));
        const std::string line = tt::needs_newer_gpu(st->id, v, "Tesla T4", 7, 5);
        CHECK(line.find(st->id + "/" + v.name) == 0);
        CHECK(line.find(std::to_string(v.needs_sm / 10) + "." + std::to_string(v.needs_sm % 10) +
                        " or newer") != std::string::npos);
        CHECK(line.find("Tesla T4 is 7.5") != std::string::npos);
        CHECK_FALSE(v.needs_what.empty());  // what it needs: the line names it
        CHECK(line.find("(" + v.needs_what + ")") != std::string::npos);
      }
    }
  // Steps 11, 14 (cp.async and the copy engine), 16 (cp.async) and 17 (the L2 hint); whether
  // each declaration is the one its machine code needs, scripts/arch_check.py checks.
  CHECK(needing >= 11);
  CHECK(tt::kExitNeedsNewerGpu == 6);
}
