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
