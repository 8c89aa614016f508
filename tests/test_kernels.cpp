// GPU tests: every variant of every step, and the references, on shapes that break sloppy
// kernels (1 x 1, single rows and columns, primes, non-square, multiples and non-multiples
// of 32, one large matrix), in float and double, compared bit for bit with the CPU.
// Each run poisons the output first and verifies after the first launch and again after
// repeated launches (tt::measure), so an element nobody writes, or one that is right only
// once, fails.
#include <cuda_runtime_api.h>

#include <cstring>
#include <sstream>
#include <utility>
#include <vector>

#include "02-naive/naive.hpp"
#include "catch.hpp"
#include "device.hpp"
#include "device_buffer.hpp"
#include "error.hpp"
#include "references.hpp"
#include "runner.hpp"
#include "steps_under_test.hpp"

namespace {

/// The GPU tests' shapes: the awkward ones, and one large matrix.
const std::vector<tt::Shape>& shapes() {
  static const std::vector<tt::Shape> s = [] {
    std::vector<tt::Shape> v = awkward_shapes();
    v.push_back({1024, 768});
    v.push_back({4096, 4096});
    return v;
  }();
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
  if (!tt::runs_on(v, device().cc_major, device().cc_minor)) {  // said, never passed silently
    WARN(tt::needs_newer_gpu(step.id, v, device().name, device().cc_major, device().cc_minor));
    return;
  }
  for (tt::DType t : {tt::DType::f32, tt::DType::f64}) {
    if (!v.supports(t)) continue;
    for (const tt::Shape& s : shapes()) {
      std::ostringstream log;
      const tt::Problem pb{s, t, step.block_for(block)};
      const auto r = tt::measure(device(), pb, {{&step, &v}}, tt::RunConfig{0, 2}, log);
      INFO(step.id << "/" << v.name << " " << tt::dtype_name(t) << " " << s.rows << " x " << s.cols
                   << "\n"
                   << log.str());
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

TEST_CASE("every variant of a step is exact on every shape", "[.exact]") {
  for (const tt::Step* step : steps_under_test()) check_step(*step);
}

TEST_CASE("past 2^31 elements, the first and the last transpose step are exact", "[.large]") {
  // 46341 x 46341 floats = 2147488281 elements (2^31 + 4633), 8.6 GB a matrix: every 64-bit
  // offset of the last tiles is exercised. gpu-check.sh runs this (it is not in ctest).
  // The last step also at 46344 x 46344, whose rows are whole sectors: step 14's copy engine.
  const auto& steps = tt::tutorial_steps();
  const std::pair<const tt::Step*, tt::Shape> runs[] = {{steps.front(), {46341, 46341}},
                                                        {steps.back(), {46341, 46341}},
                                                        {steps.back(), {46344, 46344}}};
  for (const auto& [step, big] : runs) {
    const tt::Variant& v = step->headline_variant();
    std::ostringstream log;
    const tt::Problem pb{big, tt::DType::f32, step->block_for()};
    const auto r = tt::measure(device(), pb, {{step, &v}}, tt::RunConfig{0, 1}, log);
    INFO(step->id << "/" << v.name << " " << big.rows << " x " << big.cols << " float\n"
                  << log.str());
    REQUIRE(r.size() == 1);
    REQUIRE(r[0].verified);
  }
}

TEST_CASE("step 17's bands are exact: a short last band, and bands between", "[gpu]") {
  // Odd rows from 512 tile rows (two bands of 256) on go down their columns band by band, on a
  // one-dimensional grid: 32705 x 3 has the seam row alone in a third band, 32833 x 67 a short
  // third band, 40009 x 3001 (the bench's tall shape) three bands.
  for (const tt::Step* step : tt::tutorial_steps()) {
    if (step->id != "17-prefetch") continue;
    const tt::Variant& v = step->headline_variant();
    if (!tt::runs_on(v, device().cc_major, device().cc_minor)) {
      WARN(tt::needs_newer_gpu(step->id, v, device().name, device().cc_major, device().cc_minor));
      return;
    }
    for (tt::DType t : {tt::DType::f32, tt::DType::f64})
      for (const tt::Shape& s :
           {tt::Shape{32705, 3}, tt::Shape{32833, 67}, tt::Shape{40009, 3001}}) {
        std::ostringstream log;
        const tt::Problem pb{s, t, step->block_for()};
        const auto r = tt::measure(device(), pb, {{step, &v}}, tt::RunConfig{0, 2}, log);
        INFO(step->id << "/" << v.name << " " << tt::dtype_name(t) << " " << s.rows << " x "
                      << s.cols << "\n"
                      << log.str());
        REQUIRE(r.size() == 1);
        REQUIRE(r[0].verified);
      }
    return;
  }
  FAIL("no step 17-prefetch in the course");
}

TEST_CASE("every kernel's moves on the GPU are the moves the host computes", "[gpu]") {
  // The analysis, the emulation and the lab's CPU parts run W::load and W::store as the host
  // compiler built them; the kernels run them as the device compiler built them. Sampled
  // blocks of every variant (device_moves.cuh), past 2^31 and 2^32 elements too: the moves
  // need no matrix.
  const tt::Shape moves_shapes[] = {{37, 1000}, {4099, 129}, {4096, 4096}, {65537, 65537}};
  for (const tt::Step* step : steps_under_test())
    for (const auto& v : step->variants) {
      if (!v.device_moves) continue;
      for (tt::DType t : {tt::DType::f32, tt::DType::f64}) {
        if (!v.supports(t)) continue;
        for (const tt::Shape& s : moves_shapes) {
          const tt::Problems diff = v.device_moves(tt::Problem{s, t, step->block_for()});
          INFO(step->id << "/" << v.name << " " << tt::dtype_name(t) << " " << s.rows << " x "
                        << s.cols << ": " << (diff.empty() ? "" : diff[0]));
          REQUIRE(diff.empty());
        }
      }
    }
}

TEST_CASE("02-naive: other block shapes are exact too", "[gpu]") {
  for (tt::BlockShape b :
       {tt::BlockShape{16, 16}, tt::BlockShape{32, 32}, tt::BlockShape{8, 4}, tt::BlockShape{7, 3}})
    for (const auto& v : step02::step().variants) check_variant(step02::step(), v, b);
}

namespace {

/// Runs @p v on views that start one element into their allocations (so no 16-byte
/// alignment), and verifies. Shapes include rows that are multiples of 4, so only the
/// pointers stop the 16-byte path.
template <typename T>
void check_misaligned(const tt::Step& step, const tt::Variant& v) {
  for (const tt::Shape s : {tt::Shape{64, 64}, tt::Shape{128, 96}, tt::Shape{33, 40},
                            tt::Shape{4, 4}, tt::Shape{257, 1031}}) {
    const auto n = static_cast<std::size_t>(s.count());
    std::vector<T> in(n), out(n);
    tt::fill_input(in);
    tt::DeviceBuffer<T> din(n + 1), dout(n + 1);
    TT_CUDA_CHECK(cudaMemcpy(din.get() + 1, in.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    TT_CUDA_CHECK(cudaMemset(dout.get(), tt::kPoisonByte, dout.bytes()));
    const tt::LaunchPlan plan = v.plan(tt::Problem{s, tt::dtype_of<T>::value, step.block_for()});
    const tt::LaunchFn<T> run = [&] {
      if constexpr (std::is_same_v<T, float>)
        return v.run_f32;
      else
        return v.run_f64;
    }();
    run(plan, din.get() + 1, dout.get() + 1, s, nullptr);
    TT_CHECK_LAUNCH();
    TT_CUDA_CHECK(cudaDeviceSynchronize());
    TT_CUDA_CHECK(cudaMemcpy(out.data(), dout.get() + 1, n * sizeof(T), cudaMemcpyDeviceToHost));
    const auto r = tt::verify(in.data(), out.data(), s, tt::Expect::transpose);
    INFO(step.id << "/" << v.name << " " << tt::dtype_name(tt::dtype_of<T>::value) << " " << s.rows
                 << " x " << s.cols << " at an offset of one element\n"
                 << tt::describe(r));
    REQUIRE(r.ok());
    // The element before the view was never touched.
    T guard;
    TT_CUDA_CHECK(cudaMemcpy(&guard, dout.get(), sizeof(T), cudaMemcpyDeviceToHost));
    T poison;
    std::memset(&poison, tt::kPoisonByte, sizeof poison);
    REQUIRE(std::memcmp(&guard, &poison, sizeof(T)) == 0);
  }
}

}  // namespace

TEST_CASE("every step is exact on misaligned views (pointer one element in)", "[gpu]") {
  (void)device();
  for (const tt::Step* st : tt::tutorial_steps())
    for (const auto& v : st->variants) {
      if (!tt::runs_on(v, device().cc_major, device().cc_minor)) continue;  // check_variant says so
      if (v.supports(tt::DType::f32)) check_misaligned<float>(*st, v);
      if (v.supports(tt::DType::f64)) check_misaligned<double>(*st, v);
    }
}

TEST_CASE("a kernel that fails to launch is reported, not ignored", "[gpu]") {
  // A block beyond the device's thread limit is refused by check_plan before any launch.
  const auto& s = step02::step();
  std::ostringstream log;
  const tt::Problem pb{{64, 64}, tt::DType::f32, tt::BlockShape{64, 32}};
  CHECK_THROWS_AS(tt::measure(device(), pb, {{&s, s.find("read-coalesced")}}, {0, 1}, log),
                  tt::UsageError);
}
