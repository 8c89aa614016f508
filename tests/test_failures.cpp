// GPU tests of the failure paths: an allocation that fails, a launch that the device refuses,
// and kernels with one deliberate mistake each (tests/broken_kernels.cu), which the verifier
// must catch on every shape and explain. The last test case, tagged [sanitize], runs every
// kernel of the course on small odd shapes; scripts/sanitize.sh runs it under
// compute-sanitizer.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "02-naive/naive.hpp"
#include "broken_kernels.hpp"
#include "catch.hpp"
#include "compare.hpp"
#include "device.hpp"
#include "device_buffer.hpp"
#include "error.hpp"
#include "references.hpp"
#include "registry.hpp"
#include "runner.hpp"

namespace {

const tt::DeviceInfo& device() {
  static const tt::DeviceInfo d = tt::select_device(0);
  return d;
}

std::size_t free_memory() {
  std::size_t free_bytes = 0, total = 0;
  TT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

/// Slack allowed between two readings of free memory; a leaked matrix here is hundreds of MB.
constexpr std::size_t kSlack = std::size_t{16} << 20;

/// Holds all of the device's free memory but about @p keep bytes.
tt::DeviceBuffer<char> hold_all_but(std::size_t keep) {
  for (std::size_t back_off = 0; back_off < (std::size_t{4} << 30); back_off += 64 << 20) {
    const std::size_t f = free_memory();
    if (f <= keep + back_off) break;
    try {
      return tt::DeviceBuffer<char>(f - keep - back_off);
    } catch (const tt::CudaError&) {
      cudaGetLastError();  // a failed cudaMalloc leaves its error behind; clear it
    }
  }
  return {};
}

/// Runs @p body with std::cerr captured; returns what was written.
template <typename F>
std::string captured_cerr(F body) {
  std::ostringstream err;
  std::streambuf* old = std::cerr.rdbuf(err.rdbuf());
  try {
    body();
  } catch (...) {
    std::cerr.rdbuf(old);
    throw;
  }
  std::cerr.rdbuf(old);
  return err.str();
}

std::size_t lines_in(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("an allocation that fails is refused or reported as out of memory, and nothing leaks",
          "[gpu][failure]") {
  const tt::Step& s = step02::step();
  const tt::Variant& v = *s.find("read-coalesced");
  std::ostringstream warm;  // load the kernels first, so free memory is compared like for like
  REQUIRE(
      tt::measure(device(), {{64, 64}, tt::DType::f32, std::nullopt}, {{&s, &v}}, {0, 1}, warm)[0]
          .verified);

  constexpr std::size_t kLeft = std::size_t{512} << 20;
  const tt::DeviceBuffer<char> hold = hold_all_but(kLeft);
  const std::size_t before = free_memory();
  INFO("holding " << hold.bytes() / 1e6 << " MB; " << before / 1e6 << " MB left");
  REQUIRE(hold.bytes() > 0);

  // Each matrix takes 60% of what is left: the pair cannot fit. Wide rows keep the grid small,
  // so that check_plan has nothing to say and only the memory is at stake.
  const std::int64_t cols = 8192;
  const auto rows = static_cast<std::int64_t>(before * 6 / 10 / sizeof(float) / cols);
  const tt::Problem pb{{rows, cols}, tt::DType::f32, std::nullopt};
  const auto n = static_cast<std::size_t>(rows * cols);

  SECTION("through the harness: check_fits refuses it, or the allocation reports it") {
    bool refused = false, out_of_memory = false;
    std::ostringstream log;
    try {
      tt::measure(device(), pb, {{&s, &v}}, {0, 1}, log);
    } catch (const tt::UsageError& e) {
      refused = true;
      INFO(e.what());
      CHECK(contains(e.what(), "GB of device memory"));
    } catch (const tt::CudaError& e) {
      out_of_memory = e.code() == cudaErrorMemoryAllocation;
      cudaGetLastError();
      INFO(e.what());
      CHECK(out_of_memory);
    }
    CHECK((refused || out_of_memory));
    CHECK(free_memory() + kSlack >= before);
  }

  SECTION(
      "the harness's two allocations without check_fits: the second fails, the first is "
      "freed") {
    try {
      tt::DeviceBuffer<float> in(n), out(n);
      FAIL("two matrices of 60% of the free memory each were allocated");
    } catch (const tt::CudaError& e) {
      cudaGetLastError();
      INFO(e.what());
      CHECK(e.code() == cudaErrorMemoryAllocation);
      CHECK(contains(e.what(), "cudaErrorMemoryAllocation"));
      CHECK(contains(e.what(), "cudaMalloc"));
    }
    CHECK(free_memory() + kSlack >= before);
  }

  SECTION("tt::guarded turns it into exit status 5 and one line") {
    int status = -1;
    const std::string err = captured_cerr([&] {
      status = tt::guarded("oom-test", [&] {
        tt::DeviceBuffer<float> in(n), out(n);
        return tt::kExitOk;
      });
    });
    cudaGetLastError();
    INFO(err);
    CHECK(status == tt::kExitOutOfMemory);
    CHECK(lines_in(err) == 1);
    CHECK(err.rfind("oom-test: CUDA error cudaErrorMemoryAllocation", 0) == 0);
    CHECK(free_memory() + kSlack >= before);
  }
}

TEST_CASE("a launch the device refuses throws CudaError, and tt::guarded exits 4",
          "[gpu][failure]") {
  const tt::Shape shape{64, 64};
  const auto n = static_cast<std::size_t>(shape.count());
  const tt::Step& s = step02::step();
  tt::DeviceBuffer<float> in(n), out(n);
  for (const tt::Variant& v : s.variants) {
    INFO(s.id << "/" << v.name);
    tt::LaunchPlan plan = v.plan({shape, tt::DType::f32, s.default_block});
    plan.block = dim3(2048, 1);  // twice the threads any CUDA device allows in a block
    const auto bad_launch = [&] {
      v.run_f32(plan, in.get(), out.get(), shape, nullptr);
      TT_CHECK_LAUNCH();
    };

    // The harness refuses the plan before launching it...
    CHECK_THROWS_AS(tt::check_plan(device(), plan, s.id + "/" + v.name), tt::UsageError);
    // ...and a launch made anyway is caught at once by TT_CHECK_LAUNCH.
    try {
      bad_launch();
      FAIL("a block of 2048 threads was launched without an error");
    } catch (const tt::CudaError& e) {
      INFO(e.what());
      // The runtime names a refused block shape cudaErrorInvalidConfiguration or, for a side
      // beyond the block-dimension limit, cudaErrorInvalidValue (seen on an H100, CUDA 13.0).
      CHECK((e.code() == cudaErrorInvalidConfiguration || e.code() == cudaErrorInvalidValue));
      CHECK(contains(e.what(), "cudaGetLastError"));
    }

    int status = -1;
    const std::string err = captured_cerr([&] {
      status = tt::guarded("launch-test", [&] {
        bad_launch();
        return tt::kExitOk;
      });
    });
    INFO(err);
    CHECK(status == tt::kExitCudaError);
    CHECK(lines_in(err) == 1);
    CHECK(err.rfind("launch-test: CUDA error cudaErrorInvalid", 0) == 0);
    CHECK(contains(err, "cudaGetLastError"));

    // A refused launch is not sticky: the variant still runs and verifies afterwards.
    std::ostringstream log;
    const auto r =
        tt::measure(device(), {shape, tt::DType::f32, s.default_block}, {{&s, &v}}, {0, 1}, log);
    INFO(log.str());
    CHECK(r.at(0).verified);
  }
}

namespace {

const std::vector<tt::Shape>& mutation_shapes() {
  static const std::vector<tt::Shape> s = {{1, 1},      {1, 1000},   {1000, 1}, {2, 3},
                                           {3, 2},      {31, 33},    {33, 31},  {64, 64},
                                           {257, 1031}, {1031, 257}, {4099, 2}, {2, 4099}};
  return s;
}

std::string at(std::int64_t r, std::int64_t c) {
  return "(" + std::to_string(r) + ", " + std::to_string(c) + ")";
}

}  // namespace

TEST_CASE("the verifier catches each mutated kernel on every shape, and names the mismatch",
          "[gpu][verify]") {
  const tt::Step& st = broken::step();
  int caught = 0;
  for (tt::DType t : {tt::DType::f32, tt::DType::f64})
    for (const tt::Shape& s : mutation_shapes()) {
      const tt::Coord target = broken::target(s);
      const std::string total = " of " + std::to_string(s.count()) + " elements differ";
      for (const tt::Variant& v : st.variants) {
        if (v.name == "row-shifted" && s.rows < 2) continue;  // a row of one cannot shift
        std::ostringstream log;
        const auto r =
            tt::measure(device(), {s, t, std::nullopt}, {{&st, &v}}, tt::RunConfig{0, 2}, log);
        const std::string text = log.str();
        INFO(v.name << " " << tt::dtype_name(t) << " " << s.rows << " x " << s.cols << "\n"
                    << text);
        REQUIRE(r.size() == 1);
        if (v.name == "correct") {
          CHECK(r[0].verified);
          CHECK(text.empty());
          continue;
        }
        CHECK_FALSE(r[0].verified);
        // Reported after the first run and again after the timed runs.
        CHECK(contains(text, "broken/" + v.name + " (first run): WRONG: "));
        CHECK(contains(text, "broken/" + v.name + " (after the timed runs): WRONG: "));
        if (v.name == "one-wrong") {
          CHECK(contains(text, "WRONG: 1" + total + " from the CPU reference (0 never written)"));
          CHECK(contains(text, "out" + at(target.row, target.col) + ": expected "));
          CHECK(contains(text, "= in" + at(target.col, target.row) + ", got 0 [0x"));
          CHECK(contains(text, "(not an input value)"));
        } else if (v.name == "one-unwritten") {
          CHECK(contains(text, "WRONG: 1" + total + " from the CPU reference (1 never written)"));
          CHECK(contains(text, "out" + at(target.row, target.col) + ": expected "));
          CHECK(contains(text, "(poison: never written)"));
        } else {
          REQUIRE(v.name == "row-shifted");
          // Every element of the row holds its neighbour's value; the first is reported first.
          CHECK(contains(text, "WRONG: " + std::to_string(s.rows) + total));
          CHECK(contains(text, "(0 never written)"));
          CHECK(contains(text, "out" + at(target.row, 0) + ": expected "));
          CHECK(contains(text, "= in" + at(0, target.row) + ", got "));
          CHECK(contains(text, "= in" + at(1, target.row) + "\n"));
        }
        ++caught;
      }
    }
  // 3 mutations x 12 shapes x 2 types, less row-shifted on the 2 shapes with one row.
  CHECK(caught == 2 * (3 * 12 - 2));
}

TEST_CASE("the device comparison counts every differing word, and nothing else", "[gpu][verify]") {
  // Lengths around the comparison's grid: one word, a partial block, more words than the
  // grid's threads (each thread then strides), and an odd count of 8-byte elements.
  for (std::size_t words :
       {std::size_t{1}, std::size_t{37}, std::size_t{3} << 20, (std::size_t{4099} * 8191 * 2)}) {
    std::vector<std::uint32_t> host(words);
    for (std::size_t i = 0; i < words; ++i) host[i] = static_cast<std::uint32_t>(i * 2654435761u);
    tt::DeviceBuffer<std::uint32_t> a(words), b(words);
    TT_CUDA_CHECK(cudaMemcpy(a.get(), host.data(), a.bytes(), cudaMemcpyHostToDevice));
    TT_CUDA_CHECK(cudaMemcpy(b.get(), host.data(), b.bytes(), cudaMemcpyHostToDevice));
    INFO(words << " words");
    CHECK(tt::count_different_words(a.get(), b.get(), a.bytes()) == 0);
    // One bit flipped in the first, the middle and the last word, one at a time, then all.
    const std::size_t at[] = {0, words / 2, words - 1};
    for (std::size_t i : at) {
      const std::uint32_t flipped = host[i] ^ 0x80000000u;
      TT_CUDA_CHECK(cudaMemcpy(b.get() + i, &flipped, 4, cudaMemcpyHostToDevice));
      INFO("word " << i);
      CHECK(tt::count_different_words(a.get(), b.get(), a.bytes()) == 1);
      TT_CUDA_CHECK(cudaMemcpy(b.get() + i, &host[i], 4, cudaMemcpyHostToDevice));
    }
    TT_CUDA_CHECK(cudaMemset(b.get(), tt::kPoisonByte, b.bytes()));
    std::size_t poisoned = 0;  // words whose value happens to be all ones are not different
    for (std::uint32_t w : host) poisoned += w != 0xFFFFFFFFu;
    CHECK(tt::count_different_words(a.get(), b.get(), a.bytes()) == poisoned);
    // Only the bytes asked for are compared: the last word differs, the ones before do not.
    TT_CUDA_CHECK(cudaMemcpy(b.get(), host.data(), b.bytes() - 4, cudaMemcpyHostToDevice));
    CHECK(tt::count_different_words(a.get(), b.get(), a.bytes() - 4) == 0);
    CHECK(tt::count_different_words(a.get(), b.get(), a.bytes()) == (host.back() != 0xFFFFFFFFu));
  }
  tt::DeviceBuffer<std::uint32_t> a(4), b(4);
  CHECK_THROWS_AS(tt::count_different_words(a.get(), b.get(), 6), tt::UsageError);
  CHECK_THROWS_AS(tt::count_different_words(reinterpret_cast<const char*>(a.get()) + 2, b.get(), 8),
                  tt::UsageError);
}

TEST_CASE("without room for the reference on the device, the CPU compares and catches alike",
          "[gpu][verify]") {
  const tt::Step& st = broken::step();
  const tt::Shape s{2048, 4096};
  const std::size_t bytes = static_cast<std::size_t>(s.count()) * sizeof(float);
  std::ostringstream warm;  // load the kernels first, so free memory is compared like for like
  REQUIRE(tt::measure(device(), {{64, 64}, tt::DType::f32, std::nullopt},
                      {{&st, st.find("correct")}}, {0, 1}, warm)[0]
              .verified);
  // Room for the input and the output (and check_fits' 64 MB), not for a third matrix: the
  // runner keeps its reference on the device only with more than bytes + 64 MB left over.
  const tt::DeviceBuffer<char> hold = hold_all_but(2 * bytes + (std::size_t{80} << 20));
  const std::size_t before = free_memory();
  INFO("holding " << hold.bytes() / 1e6 << " MB; " << before / 1e6 << " MB left");
  REQUIRE(hold.bytes() > 0);
  REQUIRE(before >= 2 * bytes + (std::size_t{64} << 20));
  REQUIRE(before <= 3 * bytes + (std::size_t{64} << 20));
  for (const char* name : {"correct", "one-wrong", "one-unwritten"}) {
    std::ostringstream log;
    const auto r = tt::measure(device(), {s, tt::DType::f32, std::nullopt}, {{&st, st.find(name)}},
                               tt::RunConfig{0, 1}, log);
    INFO(name << "\n" << log.str());
    CHECK(r.at(0).verified == (std::string(name) == "correct"));
    if (std::string(name) != "correct")
      CHECK(contains(log.str(), "WRONG: 1 of " + std::to_string(s.count()) + " elements"));
  }
}

namespace {

/// Runs every variant of @p step that is ours (not a library call) on @p shapes; each must
/// verify (the broken kernels are only run: the test above checks what they get wrong).
void run_small(const tt::Step& step, const std::vector<tt::Shape>& shapes,
               std::optional<tt::BlockShape> block = std::nullopt) {
  for (const tt::Variant& v : step.variants) {
    if (step.id == "references" && v.name == "cublas") continue;          // library code, not ours
    if (!tt::runs_on(v, device().cc_major, device().cc_minor)) continue;  // an older GPU
    for (tt::DType t : {tt::DType::f32, tt::DType::f64}) {
      if (!v.supports(t)) continue;
      for (const tt::Shape& s : shapes) {
        std::ostringstream log;
        const tt::Problem pb{s, t, step.block_for(block)};
        const auto r = tt::measure(device(), pb, {{&step, &v}}, tt::RunConfig{0, 1}, log);
        INFO(step.id << "/" << v.name << " " << tt::dtype_name(t) << " " << s.rows << " x "
                     << s.cols << "\n"
                     << log.str());
        if (step.id != broken::step().id) CHECK(r.at(0).verified);
      }
    }
  }
}

/// Runs @p v on views one element into their allocations (no 16-byte alignment).
template <typename T>
void run_misaligned(const tt::Step& step, const tt::Variant& v, tt::Shape s) {
  const auto n = static_cast<std::size_t>(s.count());
  std::vector<T> in(n), out(n);
  tt::fill_input(in);
  tt::DeviceBuffer<T> din(n + 1), dout(n + 1);
  TT_CUDA_CHECK(cudaMemcpy(din.get() + 1, in.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  TT_CUDA_CHECK(cudaMemset(dout.get(), tt::kPoisonByte, dout.bytes()));
  const tt::LaunchPlan plan = v.plan(tt::Problem{s, tt::dtype_of<T>::value, step.block_for()});
  if constexpr (std::is_same_v<T, float>)
    v.run_f32(plan, din.get() + 1, dout.get() + 1, s, nullptr);
  else
    v.run_f64(plan, din.get() + 1, dout.get() + 1, s, nullptr);
  TT_CHECK_LAUNCH();
  TT_CUDA_CHECK(cudaDeviceSynchronize());
  TT_CUDA_CHECK(cudaMemcpy(out.data(), dout.get() + 1, n * sizeof(T), cudaMemcpyDeviceToHost));
  const auto r = tt::verify(in.data(), out.data(), s, tt::Expect::transpose);
  INFO(step.id << "/" << v.name << " " << s.rows << " x " << s.cols << " one element in\n"
               << tt::describe(r));
  CHECK(r.ok());
}

}  // namespace

TEST_CASE(
    "every kernel on small odd shapes (scripts/sanitize.sh runs this under "
    "compute-sanitizer)",
    "[gpu][sanitize]") {
  // Odd shapes take the scalar paths; shapes whose rows are whole 16-byte vectors take the
  // 16-byte paths of 06-08, with whole tiles (64 x 64) and partial ones (36 x 100, 132 x 68).
  const std::vector<tt::Shape> shapes = {{1, 1},   {31, 33}, {33, 31}, {129, 127}, {1, 257},
                                         {257, 1}, {4, 4},   {64, 64}, {36, 100},  {132, 68}};
  for (const tt::Step* st : tt::tutorial_steps()) run_small(*st, shapes);
  for (tt::BlockShape b : {tt::BlockShape{7, 3}, tt::BlockShape{32, 32}, tt::BlockShape{1, 1}})
    run_small(step02::step(), shapes, b);
  run_small(tt::references(), shapes);
  run_small(broken::step(), shapes);
  for (const tt::Step* st : tt::tutorial_steps())
    for (const tt::Variant& v : st->variants)
      for (tt::Shape s : {tt::Shape{4, 4}, tt::Shape{33, 40}, tt::Shape{64, 64}}) {
        if (!tt::runs_on(v, device().cc_major, device().cc_minor)) continue;  // an older GPU
        if (v.supports(tt::DType::f32)) run_misaligned<float>(*st, v, s);
        if (v.supports(tt::DType::f64)) run_misaligned<double>(*st, v, s);
      }
}
