// The verifier must catch every way a transpose can be wrong, and the fill must make every
// element distinct so that a misplaced element cannot pass by having the same value.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "verify.hpp"

using tt::Expect;
using tt::Shape;

namespace {
template <typename T>
std::vector<T> filled(Shape s) {
  std::vector<T> v(static_cast<std::size_t>(s.count()));
  tt::fill_input(v);
  return v;
}
template <typename T>
std::vector<T> transposed(const std::vector<T>& in, Shape s) {
  std::vector<T> out(in.size());
  tt::reference_transpose(in.data(), out.data(), s);
  return out;
}
template <typename T>
void poison(T& x) {
  std::memset(&x, tt::kPoisonByte, sizeof x);
}
}  // namespace

TEST_CASE("TT_THREADS sets the host threads, and anything but a whole number from 1 is ignored",
          "[verify]") {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const char* before = std::getenv("TT_THREADS");
  const std::string kept = before ? before : "";
  ::unsetenv("TT_THREADS");
  CHECK(tt::host_threads() == cores);
  for (const char* given : {"3", "1"}) {
    ::setenv("TT_THREADS", given, 1);
    CHECK(tt::host_threads() == static_cast<unsigned>(std::atoi(given)));
  }
  for (const char* bad : {"0", "-2", "4x", "", "many", "100000"}) {
    ::setenv("TT_THREADS", bad, 1);
    INFO("TT_THREADS=" << bad);
    CHECK(tt::host_threads() == cores);
  }
  // The CPU transpose gives the same result on one thread as on several.
  const Shape s{8250, 67};  // 129 blocks of 64 rows: more than one worker where allowed
  const auto in = filled<float>(s);
  ::setenv("TT_THREADS", "1", 1);
  const auto one = transposed(in, s);
  ::unsetenv("TT_THREADS");
  CHECK(one == transposed(in, s));
  if (before) ::setenv("TT_THREADS", kept.c_str(), 1);
}

TEST_CASE("reference transpose of a 2 x 3 matrix, by hand", "[verify]") {
  const std::vector<double> in = {1, 2, 3,  //
                                  4, 5, 6};
  std::vector<double> out(6);
  tt::reference_transpose(in.data(), out.data(), Shape{2, 3});
  CHECK(out == std::vector<double>{1, 4,  //
                                   2, 5,  //
                                   3, 6});
}

TEST_CASE("reference transpose matches the definition on odd and blocked shapes", "[verify]") {
  for (Shape s : {Shape{1, 1}, Shape{1, 97}, Shape{97, 1}, Shape{65, 130}, Shape{200, 67}}) {
    const auto in = filled<float>(s);
    const auto out = transposed(in, s);
    for (std::int64_t r = 0; r < s.rows; ++r)
      for (std::int64_t c = 0; c < s.cols; ++c)
        REQUIRE(std::memcmp(&out[c * s.rows + r], &in[r * s.cols + c], sizeof(float)) == 0);
  }
}

TEST_CASE("fill values are distinct and decode to their position", "[verify]") {
  std::set<std::uint32_t> seen;
  const std::uint64_t big = tt::fill_distinct_count<float>();
  const std::vector<std::uint64_t> positions = {0,           1,
                                                2,           (1ull << 24) - 1,
                                                1ull << 24,  (1ull << 24) + 1,
                                                1ull << 30,  (1ull << 31) - 1,
                                                1ull << 31,  3ull << 30,
                                                big / 2 - 1, big / 2,
                                                big - 1};
  for (std::uint64_t i : positions) {
    const float v = tt::fill_value<float>(i);
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    CHECK(seen.insert(bits).second);
    REQUIRE(tt::fill_index(v).has_value());
    CHECK(*tt::fill_index(v) == i);
    CHECK(std::isfinite(v));
  }
  // 8192 x 8192 and 32768 x 32768 floats are all distinct.
  CHECK(big >= 32768ull * 32768ull);
  for (std::uint64_t i : std::vector<std::uint64_t>{0, 12345, (1ull << 53) - 1}) {
    REQUIRE(tt::fill_index(tt::fill_value<double>(i)).has_value());
    CHECK(*tt::fill_index(tt::fill_value<double>(i)) == i);
  }
  float p;
  poison(p);
  CHECK_FALSE(tt::fill_index(p).has_value());
  CHECK_FALSE(tt::fill_index(0.0f).has_value());
  CHECK_FALSE(tt::fill_index(0.0).has_value());
}

TEST_CASE("a correct transpose verifies", "[verify]") {
  const Shape s{37, 53};
  const auto in = filled<double>(s);
  const auto r = tt::verify(in.data(), transposed(in, s).data(), s, Expect::transpose);
  CHECK(r.ok());
  CHECK(r.checked == 37u * 53u);
}

TEST_CASE("a copy is not a transpose, and a transpose is not a copy", "[verify]") {
  const Shape s{8, 12};
  const auto in = filled<float>(s);
  CHECK_FALSE(tt::verify(in.data(), in.data(), s, Expect::transpose).ok());
  CHECK(tt::verify(in.data(), in.data(), s, Expect::copy).ok());
  CHECK_FALSE(tt::verify(in.data(), transposed(in, s).data(), s, Expect::copy).ok());
}

TEST_CASE("a single unwritten element is caught and reported as never written", "[verify]") {
  const Shape s{31, 33};
  const auto in = filled<float>(s);
  auto out = transposed(in, s);
  poison(out[5 * s.rows + 7]);  // out(5, 7)
  const auto r = tt::verify(in.data(), out.data(), s, Expect::transpose);
  REQUIRE_FALSE(r.ok());
  CHECK(r.wrong == 1);
  CHECK(r.unwritten == 1);
  REQUIRE(r.first.size() == 1);
  CHECK(r.first[0].row == 5);
  CHECK(r.first[0].col == 7);
  CHECK(r.first[0].expected.find("in(7, 5)") != std::string::npos);
  CHECK(r.first[0].got.find("never written") != std::string::npos);
}

TEST_CASE("a deliberately wrong transpose is caught, and says where values came from", "[verify]") {
  const Shape s{16, 24};
  const auto in = filled<float>(s);
  auto out = transposed(in, s);
  std::swap(out[0], out[1]);  // out(0, 0) <-> out(0, 1)
  const auto r = tt::verify(in.data(), out.data(), s, Expect::transpose);
  REQUIRE_FALSE(r.ok());
  CHECK(r.wrong == 2);
  CHECK(r.unwritten == 0);
  REQUIRE(r.first.size() == 2);
  CHECK(r.first[0].got.find("in(1, 0)") != std::string::npos);
  CHECK(tt::describe(r).find("WRONG: 2 of 384") != std::string::npos);
}

TEST_CASE("every mismatch is counted and the first ones are in row-major order", "[verify]") {
  const Shape s{300, 200};  // several blocks of 64 and several threads
  const auto in = filled<double>(s);
  std::vector<double> out(in.size());
  for (auto& x : out) poison(x);
  const auto r = tt::verify(in.data(), out.data(), s, Expect::transpose, 5);
  CHECK(r.wrong == 60000u);
  CHECK(r.unwritten == 60000u);
  REQUIRE(r.first.size() == 5);
  for (int i = 0; i < 5; ++i) {
    CHECK(r.first[i].row == 0);
    CHECK(r.first[i].col == i);
  }
}

TEST_CASE("a row shifted by one is caught", "[verify]") {
  const Shape s{40, 50};
  const auto in = filled<float>(s);
  auto out = transposed(in, s);
  for (std::int64_t c = s.rows - 1; c > 0; --c) out[3 * s.rows + c] = out[3 * s.rows + c - 1];
  const auto r = tt::verify(in.data(), out.data(), s, Expect::transpose);
  CHECK(r.wrong == static_cast<std::uint64_t>(s.rows - 1));
}
