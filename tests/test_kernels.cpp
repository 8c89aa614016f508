// GPU tests: every variant of every step, and the references, on shapes that break sloppy
// kernels (1 x 1, single rows and columns, primes, non-square, multiples and non-multiples
// of 32, one large matrix), in float and double, compared bit for bit with the CPU.
// Each run poisons the output first and verifies after the first launch and again after
// repeated launches (tt::measure), so an element nobody writes, or one that is right only
// once, fails.
#include <sstream>
#include <vector>

#include "02-naive/naive.hpp"
#include "catch.hpp"
#include "device.hpp"
#include "error.hpp"
#include "references.hpp"
#include "runner.hpp"

namespace {

const std::vector<tt::Shape>& shapes() {
  static const std::vector<tt::Shape> s = {
      {1, 1},    {1, 1000},   {1000, 1},  {2, 3},     {17, 83},    {83, 17},     {31, 33},
      {32, 32},  {33, 31},    {64, 96},   {96, 64},   {127, 129},  {257, 1031},  {1031, 257},
      {512, 512}, {1024, 768}, {4096, 4096}};
  return s;
}

const tt::DeviceInfo& device() {
  static const tt::DeviceInfo d = tt::select_device(0);
  return d;
}

/// Runs @p variant of @p step on every shape in both element types (where supported) and
/// requires every result to verify.
void check_variant(const tt::Step& step, const tt::Variant& v,
                   std::optional<tt::BlockShape> block = std::nullopt) {
  for (tt::DType t : {tt::DType::f32, tt::DType::f64}) {
    if (!v.supports(t)) continue;
    for (const tt::Shape& s : shapes()) {
      std::ostringstream log;
      const tt::Problem pb{s, t, block ? block : (step.takes_block
                                                      ? std::optional(step.default_block)
                                                      : std::nullopt)};
      const auto r = tt::measure(device(), pb, {{&step, &v}}, tt::RunConfig{0, 2}, log);
      INFO(step.id << "/" << v.name << " " << tt::dtype_name(t) << " " << s.rows << " x "
                   << s.cols << "\n" << log.str());
      REQUIRE(r.size() == 1);
      REQUIRE(r[0].verified);
    }
  }
}

void check_step(const tt::Step& step) {
  for (const auto& v : step.variants) check_variant(step, v);
}

}  // namespace

TEST_CASE("references: memcpy, copy kernel and cuBLAS geam are exact", "[gpu]") {
  check_step(tt::references());
  tt::release_references();
}

TEST_CASE("02-naive: both variants are exact on every shape", "[gpu]") {
  check_step(step02::step());
}

TEST_CASE("02-naive: other block shapes are exact too", "[gpu]") {
  for (tt::BlockShape b : {tt::BlockShape{16, 16}, tt::BlockShape{32, 32}, tt::BlockShape{8, 4},
                           tt::BlockShape{7, 3}})
    for (const auto& v : step02::step().variants) check_variant(step02::step(), v, b);
}

TEST_CASE("a kernel that fails to launch is reported, not ignored", "[gpu]") {
  // A block beyond the device's thread limit is refused by check_plan before any launch.
  const auto& s = step02::step();
  std::ostringstream log;
  const tt::Problem pb{{64, 64}, tt::DType::f32, tt::BlockShape{64, 32}};
  CHECK_THROWS_AS(tt::measure(device(), pb, {{&s, s.find("read-coalesced")}}, {0, 1}, log),
                  tt::UsageError);
}
