// The CPU side of the mutation tests in test_failures.cpp: the same three mistakes (one
// element wrong, one never written, one output row shifted by one), made to a correct
// transpose on the host, on the same shapes and in both types. The verifier must count each
// exactly and name the first wrong element and where its value came from.
#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "verify.hpp"

namespace {

std::string at(std::int64_t r, std::int64_t c) {
  return "(" + std::to_string(r) + ", " + std::to_string(c) + ")";
}

template <typename T>
void check_mutations(tt::Shape s) {
  std::vector<T> in(static_cast<std::size_t>(s.count())), good(in.size());
  tt::fill_input(in);
  tt::reference_transpose(in.data(), good.data(), s);
  // The output is cols x rows; (tr, tc) is the element the first two mistakes hit.
  const std::int64_t tr = s.cols / 2, tc = s.rows / 2;
  const auto out_index = [&](std::int64_t r, std::int64_t c) {
    return static_cast<std::size_t>(r * s.rows + c);
  };
  const std::string total = " of " + std::to_string(s.count()) + " elements differ";
  INFO(s.rows << " x " << s.cols << (sizeof(T) == 4 ? " float" : " double"));

  auto out = good;
  out[out_index(tr, tc)] = T(0);
  auto r = tt::verify(in.data(), out.data(), s, tt::Expect::transpose);
  CHECK(r.wrong == 1);
  CHECK(r.unwritten == 0);
  REQUIRE(r.first.size() == 1);
  CHECK(r.first[0].row == tr);
  CHECK(r.first[0].col == tc);
  CHECK(r.first[0].got.find("not an input value") != std::string::npos);
  CHECK(tt::describe(r).find("WRONG: 1" + total) != std::string::npos);

  out = good;
  std::memset(&out[out_index(tr, tc)], tt::kPoisonByte, sizeof(T));
  r = tt::verify(in.data(), out.data(), s, tt::Expect::transpose);
  CHECK(r.wrong == 1);
  CHECK(r.unwritten == 1);
  CHECK(tt::describe(r).find("out" + at(tr, tc) + ": expected ") != std::string::npos);
  CHECK(tt::describe(r).find("never written") != std::string::npos);

  if (s.rows < 2) return;  // a row of one element cannot shift
  out = good;
  for (std::int64_t c = 0; c < s.rows; ++c)
    out[out_index(tr, c)] = good[out_index(tr, (c + 1) % s.rows)];
  r = tt::verify(in.data(), out.data(), s, tt::Expect::transpose);
  CHECK(r.wrong == static_cast<std::uint64_t>(s.rows));
  CHECK(r.unwritten == 0);
  REQUIRE_FALSE(r.first.empty());
  CHECK(r.first[0].row == tr);
  CHECK(r.first[0].col == 0);
  CHECK(r.first[0].expected.find("= in" + at(0, tr)) != std::string::npos);
  CHECK(r.first[0].got.find("= in" + at(1, tr)) != std::string::npos);
}

}  // namespace

TEST_CASE("one wrong, one unwritten and one shifted row are caught on every shape", "[verify]") {
  for (tt::Shape s :
       {tt::Shape{1, 1}, tt::Shape{1, 1000}, tt::Shape{1000, 1}, tt::Shape{2, 3}, tt::Shape{3, 2},
        tt::Shape{31, 33}, tt::Shape{33, 31}, tt::Shape{64, 64}, tt::Shape{257, 1031},
        tt::Shape{1031, 257}, tt::Shape{4099, 2}, tt::Shape{2, 4099}}) {
    check_mutations<float>(s);
    check_mutations<double>(s);
  }
}
