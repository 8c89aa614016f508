// The access analyser's model, pinned: the bank and sector counts each chapter teaches.
// If a change to a step breaks the lesson (a conflict appears or a side stops coalescing),
// these fail.
#include <string>

#include "02-naive/naive.hpp"
#include "analyser.hpp"
#include "catch.hpp"
#include "references.hpp"

using tt::WarpAddresses;

namespace {

/// Lane i touches base + i * stride bytes.
WarpAddresses strided(std::int64_t stride, std::int64_t base = 0) {
  WarpAddresses a{};
  for (int i = 0; i < 32; ++i) a[i] = base + i * stride;
  return a;
}

/// Per-instruction cost of every access of @p variant of @p step on @p pb, in order.
std::vector<tt::AccessTotals> costs(const tt::Step& step, const std::string& variant,
                                    const tt::Problem& pb) {
  const tt::LaunchPlan plan = step.find(variant)->plan(pb);
  std::vector<tt::AccessTotals> out;
  for (const auto& a : plan.accesses) out.push_back(tt::analyse_access(a, plan));
  return out;
}

tt::Problem problem(std::int64_t rows, std::int64_t cols, tt::DType t,
                    std::optional<tt::BlockShape> block = std::nullopt) {
  return tt::Problem{tt::Shape{rows, cols}, t, block};
}

}  // namespace

TEST_CASE("shared memory: 4-byte accesses, one phase of 32 lanes", "[analyser]") {
  CHECK(tt::shared_cost(strided(4), 4).wavefronts == 1);      // consecutive words
  CHECK(tt::shared_cost(strided(128), 4).wavefronts == 32);   // a column of a 32-wide tile
  CHECK(tt::shared_cost(strided(132), 4).wavefronts == 1);    // a column of a 33-wide tile
  CHECK(tt::shared_cost(strided(8), 4).wavefronts == 2);      // stride 2 words: 2-way
  CHECK(tt::shared_cost(strided(0), 4).wavefronts == 1);      // one word: broadcast
  CHECK(tt::shared_cost(strided(4), 4).ideal == 1);
  WarpAddresses pairs{};  // lanes 2i and 2i+1 read the same word: still one wavefront
  for (int i = 0; i < 32; ++i) pairs[i] = (i / 2) * 4;
  CHECK(tt::shared_cost(pairs, 4).wavefronts == 1);
  WarpAddresses half{};  // only 16 lanes active, all in bank 0
  for (int i = 0; i < 16; ++i) half[i] = i * 128;
  CHECK(tt::shared_cost(half, 4).wavefronts == 16);
}

TEST_CASE("shared memory: 8-byte accesses are served per half-warp", "[analyser]") {
  // double tile[32][33] column: about 2 wavefronts measured on an H100 (conflict-free).
  CHECK(tt::shared_cost(strided(33 * 8), 8).wavefronts == 2);
  CHECK(tt::shared_cost(strided(33 * 8), 8).ideal == 2);
  // double tile[32][32] column: about 32 measured.
  CHECK(tt::shared_cost(strided(32 * 8), 8).wavefronts == 32);
  CHECK(tt::shared_cost(strided(8), 8).wavefronts == 2);  // consecutive doubles
}

TEST_CASE("shared memory: 16-byte accesses are served per quarter-warp", "[analyser]") {
  CHECK(tt::shared_cost(strided(16), 16).wavefronts == 4);    // consecutive float4: measured 4
  CHECK(tt::shared_cost(strided(128), 16).wavefronts == 32);  // 128-byte stride: measured 32
  CHECK(tt::shared_cost(strided(16), 16).ideal == 4);
}

TEST_CASE("global memory: sectors, ideal and lines", "[analyser]") {
  auto c = tt::global_cost(strided(4), 4);  // 32 consecutive floats
  CHECK(c.sectors == 4);
  CHECK(c.ideal_sectors == 4);
  CHECK(c.lines == 1);
  c = tt::global_cost(strided(4, 4), 4);  // the same, shifted by one float: one more sector
  CHECK(c.sectors == 5);
  CHECK(c.lines == 2);
  c = tt::global_cost(strided(8192 * 4), 4);  // a column of an 8192-wide float matrix
  CHECK(c.sectors == 32);
  CHECK(c.ideal_sectors == 4);
  CHECK(c.lines == 32);
  c = tt::global_cost(strided(8), 8);  // 32 consecutive doubles
  CHECK(c.sectors == 8);
  CHECK(c.ideal_sectors == 8);
  c = tt::global_cost(strided(16), 16);  // 32 consecutive 16-byte vectors
  CHECK(c.sectors == 16);
  CHECK(c.ideal_sectors == 16);
  c = tt::global_cost(strided(0), 4);  // every lane the same float
  CHECK(c.sectors == 1);
  CHECK(c.ideal_sectors == 1);
}

TEST_CASE("02-naive: the strided side touches 32 sectors per request against 4", "[analyser]") {
  const auto& s = step02::step();
  const auto p = problem(1024, 1024, tt::DType::f32, tt::BlockShape{32, 8});
  auto rc = costs(s, "read-coalesced", p);  // load in, store out
  REQUIRE(rc.size() == 2);
  CHECK(rc[0].per_instruction() == 4.0);
  CHECK(rc[0].ideal_per_instruction() == 4.0);
  CHECK(rc[1].per_instruction() == 32.0);
  CHECK(rc[1].ideal_per_instruction() == 4.0);
  auto wc = costs(s, "write-coalesced", p);
  CHECK(wc[0].per_instruction() == 32.0);
  CHECK(wc[1].per_instruction() == 4.0);
  // double: 8 sectors ideal, 32 on the strided side.
  wc = costs(s, "write-coalesced", problem(1024, 1024, tt::DType::f64, tt::BlockShape{32, 8}));
  CHECK(wc[0].per_instruction() == 32.0);
  CHECK(wc[1].per_instruction() == 8.0);
  CHECK(wc[1].ideal_per_instruction() == 8.0);
  // A 16 x 16 block: a warp covers 2 rows of 16, so the strided side needs 16 sectors.
  rc = costs(s, "read-coalesced", problem(1024, 1024, tt::DType::f32, tt::BlockShape{16, 16}));
  CHECK(rc[0].per_instruction() == 4.0);
  CHECK(rc[1].per_instruction() == 16.0);
}

TEST_CASE("02-naive: edge warps at odd sizes execute with fewer lanes", "[analyser]") {
  const auto p = problem(33, 33, tt::DType::f32, tt::BlockShape{32, 8});
  const auto rc = costs(step02::step(), "read-coalesced", p);
  // 2 x 5 blocks of 8 warps; rows 33..39 of the second block row are outside: 33 rows,
  // each covered by 2 warps (columns 0-31 and column 32).
  CHECK(rc[0].instructions == 66u);
}

TEST_CASE("the copy kernel reads and writes 16 sectors per request, the ideal", "[analyser]") {
  const auto c = costs(tt::references(), "copy-kernel", problem(1024, 1024, tt::DType::f32));
  REQUIRE(c.size() == 2);
  CHECK(c[0].per_instruction() == 16.0);
  CHECK(c[1].ideal_per_instruction() == 16.0);
}

TEST_CASE("the bank picture stacks a 32-way conflict into 32 wavefronts", "[analyser]") {
  const std::string pic = tt::bank_picture(strided(128), 4);
  CHECK(pic.find("wavefront 32") != std::string::npos);
  CHECK(pic.find("wavefront 33") == std::string::npos);
  CHECK(tt::bank_picture(strided(4), 4).find("wavefront  2") == std::string::npos);
}
