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
  CHECK(tt::shared_cost(strided(4), 4, tt::Op::store).wavefronts == 1);  // consecutive words
  CHECK(tt::shared_cost(strided(128), 4, tt::Op::store).wavefronts ==
        32);  // a column of a 32-wide tile
  CHECK(tt::shared_cost(strided(132), 4, tt::Op::store).wavefronts ==
        1);  // a column of a 33-wide tile
  CHECK(tt::shared_cost(strided(8), 4, tt::Op::store).wavefronts == 2);  // stride 2 words: 2-way
  CHECK(tt::shared_cost(strided(0), 4, tt::Op::store).wavefronts == 1);  // one word: broadcast
  CHECK(tt::shared_cost(strided(4), 4, tt::Op::store).ideal == 1);
  WarpAddresses pairs{};  // lanes 2i and 2i+1 read the same word: still one wavefront
  for (int i = 0; i < 32; ++i) pairs[i] = (i / 2) * 4;
  CHECK(tt::shared_cost(pairs, 4, tt::Op::store).wavefronts == 1);
  WarpAddresses half{};  // only 16 lanes active, all in bank 0
  for (int i = 0; i < 16; ++i) half[i] = i * 128;
  CHECK(tt::shared_cost(half, 4, tt::Op::store).wavefronts == 16);
}

TEST_CASE("shared memory: 8-byte accesses are served per half-warp", "[analyser]") {
  // double tile[32][33] column: about 2 wavefronts measured on an H100 (conflict-free).
  CHECK(tt::shared_cost(strided(33 * 8), 8, tt::Op::store).wavefronts == 2);
  CHECK(tt::shared_cost(strided(33 * 8), 8, tt::Op::store).ideal == 2);
  // double tile[32][32] column: about 32 measured.
  CHECK(tt::shared_cost(strided(32 * 8), 8, tt::Op::store).wavefronts == 32);
  CHECK(tt::shared_cost(strided(8), 8, tt::Op::store).wavefronts == 2);  // consecutive doubles
}

TEST_CASE("shared memory: 16-byte accesses are served per quarter-warp", "[analyser]") {
  CHECK(tt::shared_cost(strided(16), 16, tt::Op::store).wavefronts ==
        4);  // consecutive float4: measured 4
  CHECK(tt::shared_cost(strided(128), 16, tt::Op::store).wavefronts ==
        32);  // 128-byte stride: measured 32
  CHECK(tt::shared_cost(strided(16), 16, tt::Op::store).ideal == 4);
}

TEST_CASE("shared memory: loads whose lanes pair up on one address use phases of twice the lanes",
          "[analyser]") {
  // Measured with course/banks.cu (scripts/bank_patterns.py): 8-byte, lanes 2i and 2i+1 the
  // same address: a load takes 1 wavefront, a store 2; 16-byte, likewise: a load 2, a store 4.
  const auto paired = [](int width, int k) {
    WarpAddresses a{};
    for (int l = 0; l < 32; ++l) a[l] = width * (k == 1 ? l >> 1 : (l & 1) | (l >> 2) << 1);
    return a;
  };
  for (int k : {1, 2}) {
    CHECK(tt::shared_cost(paired(8, k), 8, tt::Op::load).wavefronts == 1);
    CHECK(tt::shared_cost(paired(8, k), 8, tt::Op::store).wavefronts == 2);
    CHECK(tt::shared_cost(paired(16, k), 16, tt::Op::load).wavefronts == 2);
    CHECK(tt::shared_cost(paired(16, k), 16, tt::Op::store).wavefronts == 4);
    CHECK(tt::phase_lanes(paired(16, k), 16, tt::Op::load) == 16);
  }
  // Lane l and lane l + 16 the same address is no pairing: 2 wavefronts either way.
  WarpAddresses across{};
  for (int l = 0; l < 32; ++l) across[l] = 8 * (l % 16);
  CHECK(tt::shared_cost(across, 8, tt::Op::load).wavefronts == 2);
  // 4-byte loads are one phase of 32 lanes already.
  CHECK(tt::shared_cost(paired(4, 1), 4, tt::Op::load).wavefronts == 1);
  // One lane off the pairing and the merge is gone.
  WarpAddresses almost = paired(8, 1);
  almost[31] = 8 * 16;
  CHECK(tt::shared_cost(almost, 8, tt::Op::load).wavefronts == 2);
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

TEST_CASE("global memory: sectors touched only in part", "[analyser]") {
  CHECK(tt::global_cost(strided(4), 4).partial_sectors == 0);          // 4 whole sectors
  CHECK(tt::global_cost(strided(4, 4), 4).partial_sectors == 2);       // first and last in part
  CHECK(tt::global_cost(strided(8192 * 4), 4).partial_sectors == 32);  // 4 bytes of each
  CHECK(tt::global_cost(strided(16), 16).partial_sectors == 0);
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
  const std::string pic = tt::bank_picture(strided(128), 4, tt::Op::load);
  CHECK(pic.find("wavefront 32") != std::string::npos);
  CHECK(pic.find("wavefront 33") == std::string::npos);
  CHECK(tt::bank_picture(strided(4), 4, tt::Op::load).find("wavefront  2") == std::string::npos);
}

TEST_CASE("the SVG bank picture draws one row per wavefront", "[analyser]") {
  const std::string svg =
      tt::bank_svg({{"column <read>", strided(128), 4}, {"row", strided(4), 4}});
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(svg.find("column &lt;read&gt;: 32 wavefront(s), ideal 1") != std::string::npos);
  CHECK(svg.find("row: 1 wavefront(s), ideal 1") != std::string::npos);
  CHECK(svg.find(">wavefront 32<") != std::string::npos);  // the conflicted read
  CHECK(svg.find(">wavefront 33<") == std::string::npos);
}

// ---- Steps 03 to 08: the shared-memory lessons. ------------------------------------------

#include "03-shared/shared.hpp"
#include "04-padding/padding.hpp"
#include "05-multi-element/multi_element.hpp"
#include "06-float4/float4.hpp"
#include "07-swizzle/swizzle.hpp"
#include "08-diagonal/diagonal.hpp"

namespace {
/// Shared store and shared load cost per instruction (in the order the step lists them).
std::pair<double, double> shared_pair(const std::vector<tt::AccessTotals>& c, const tt::Step& step,
                                      const std::string& variant, const tt::Problem& pb) {
  const auto plan = step.find(variant)->plan(pb);
  double st = -1, ld = -1;
  for (std::size_t i = 0; i < plan.accesses.size(); ++i) {
    if (plan.accesses[i].space != tt::Space::shared) continue;
    (plan.accesses[i].op == tt::Op::store ? st : ld) = c[i].per_instruction();
  }
  return {st, ld};
}
std::pair<double, double> shared(const tt::Step& step, const std::string& variant,
                                 const tt::Problem& pb) {
  return shared_pair(costs(step, variant, pb), step, variant, pb);
}
}  // namespace

TEST_CASE("03-shared: the column read is a 32-way conflict, the row store is not", "[analyser]") {
  auto [st, ld] = shared(step03::step(), "tile-32x32", problem(1024, 1024, tt::DType::f32));
  CHECK(st == 1.0);
  CHECK(ld == 32.0);
  std::tie(st, ld) = shared(step03::step(), "tile-32x32", problem(1024, 1024, tt::DType::f64));
  CHECK(st == 2.0);   // 8-byte: two half-warp phases, the ideal
  CHECK(ld == 32.0);  // 16 distinct words per bank in each of the two phases
}

TEST_CASE("04-padding: 32 x 33 is conflict-free, 16 x 17 keeps a 2-way conflict", "[analyser]") {
  auto [st, ld] = shared(step04::step(), "pad-32x33", problem(1024, 1024, tt::DType::f32));
  CHECK(st == 1.0);
  CHECK(ld == 1.0);
  std::tie(st, ld) = shared(step04::step(), "pad-32x33", problem(1024, 1024, tt::DType::f64));
  CHECK(st == 2.0);  // double: the ideal is 2 (half-warps), and the padded tile gets it
  CHECK(ld == 2.0);
  std::tie(st, ld) = shared(step04::step(), "pad-16x17", problem(1024, 1024, tt::DType::f32));
  CHECK(st == 2.0);
  CHECK(ld == 2.0);
}

TEST_CASE("05-multi-element: every instantiation is conflict-free on both sides", "[analyser]") {
  for (const auto& v : step05::step().variants) {
    for (tt::DType t : {tt::DType::f32, tt::DType::f64}) {
      const auto [st, ld] = shared(step05::step(), v.name, problem(1024, 1024, t));
      INFO(v.name << " " << tt::dtype_name(t));
      CHECK(st == (t == tt::DType::f32 ? 1.0 : 2.0));
      CHECK(ld == (t == tt::DType::f32 ? 1.0 : 2.0));
    }
  }
}

TEST_CASE("06-float4: the unpadded gather is 8-way, the padded one conflict-free for float",
          "[analyser]") {
  const auto f = problem(1024, 1024, tt::DType::f32);
  auto [st, ld] = shared(step06::step(), "unpadded", f);
  CHECK(st == 4.0);  // one 16-byte store: 4 quarter-warp wavefronts, the ideal
  CHECK(ld == 8.0);  // the well-known 8-way conflict
  std::tie(st, ld) = shared(step06::step(), "padded", f);
  CHECK(st == 1.0);  // scalar stores into rows of 33
  CHECK(ld == 1.0);
  // double: scalarised 8-byte accesses into a 33-wide tile keep a 2-way conflict.
  std::tie(st, ld) = shared(step06::step(), "padded", problem(1024, 1024, tt::DType::f64));
  CHECK(st == 4.0);
  CHECK(ld == 4.0);
  // Both global sides: 16 sectors per 16-byte request, the ideal.
  const auto c = costs(step06::step(), "padded", f);
  CHECK(c.front().per_instruction() == 16.0);
  CHECK(c.back().per_instruction() == 16.0);
}

TEST_CASE("07-swizzle: 16-byte stores and conflict-free gathers in a dense tile", "[analyser]") {
  for (const char* v : {"tile64", "tile32"}) {
    INFO(v);
    // float: one 16-byte store is 4 quarter-warp wavefronts (the ideal); the gather is 1.
    auto [st, ld] = shared(step07::step(), v, problem(1024, 1024, tt::DType::f32));
    CHECK(st == 4.0);
    CHECK(ld == 1.0);
    // double: the same 16-byte store; 8-byte gathers in two half-warp phases, the ideal 2.
    std::tie(st, ld) = shared(step07::step(), v, problem(1024, 1024, tt::DType::f64));
    CHECK(st == 4.0);
    CHECK(ld == 2.0);
    // Both global sides: 16 sectors per 16-byte request, the ideal.
    const auto c = costs(step07::step(), v, problem(1024, 1024, tt::DType::f32));
    CHECK(c.front().per_instruction() == 16.0);
    CHECK(c.back().per_instruction() == 16.0);
  }
  auto [st, ld] = shared(step07::step(), "scalar", problem(1024, 1024, tt::DType::f32));
  CHECK(st == 1.0);
  CHECK(ld == 1.0);
  std::tie(st, ld) = shared(step07::step(), "scalar", problem(1024, 1024, tt::DType::f64));
  CHECK(st == 2.0);
  CHECK(ld == 2.0);
  // Misaligned rows take the scalar path, which uses the simple swizzle: still no conflict.
  std::tie(st, ld) = shared(step07::step(), "tile64", problem(4099, 8191, tt::DType::f32));
  CHECK(st == 1.0);
  CHECK(ld == 1.0);
  // The plan says which path: 512 threads on the 16-byte path, 1024 on the scalar path.
  CHECK(step07::step().find("tile64")->plan(problem(64, 64, tt::DType::f32)).block.x == 512u);
  CHECK(step07::step().find("tile64")->plan(problem(63, 64, tt::DType::f32)).block.x == 1024u);
}

TEST_CASE("07-swizzle: the layout is one-to-one for every shape and chunk used", "[swizzle]") {
  // Tile widths, chunk widths (1 = the simple form; 2 and 4 elements = 16-byte chunks of
  // double and float) and row groups (1 = Lei Mao's form; = chunk: this step's form).
  for (int width : {8, 16, 32, 64}) {
    for (int chunk : {1, 2, 4, 8}) {
      if (chunk > width) continue;
      for (int group : {1, 2, 4, 8}) {
        for (int r = 0; r < 2 * width; ++r) {
          std::vector<int> hit(static_cast<std::size_t>(width), 0);
          for (int c = 0; c < width; ++c) {
            const int s = step07::swizzle(r, c, width, chunk, group);
            REQUIRE(s >= 0);
            REQUIRE(s < width);
            REQUIRE(s % chunk == c % chunk);  // a chunk keeps its inside order (alignment)
            ++hit[static_cast<std::size_t>(s)];
          }
          for (int h : hit) REQUIRE(h == 1);
        }
      }
    }
  }
  CHECK(step07::swizzle(3, 5, 32, 1, 1) == (5 ^ 3));  // the simple form is column XOR row
}

TEST_CASE("08-diagonal: the block order is a bijection on square and rectangular grids",
          "[diagonal]") {
  for (unsigned gx : {1u, 2u, 3u, 7u, 8u, 32u, 33u}) {
    for (unsigned gy : {1u, 2u, 5u, 8u, 31u, 64u}) {
      std::vector<int> hit(gx * gy, 0);
      for (unsigned y = 0; y < gy; ++y)
        for (unsigned x = 0; x < gx; ++x) {
          const uint3 t = step08::diagonal_block(y * gx + x, gx, gy);
          REQUIRE(t.x < gx);
          REQUIRE(t.y < gy);
          ++hit[t.y * gx + t.x];
        }
      for (int h : hit) REQUIRE(h == 1);
    }
  }
  // Block 1 of a 4 x 4 grid takes tile (1, 1): one step along the diagonal.
  const uint3 t = step08::diagonal_block(1, 4, 4);
  CHECK(t.x == 1);
  CHECK(t.y == 1);
}

TEST_CASE("08-diagonal: the column order is a bijection on every grid", "[diagonal]") {
  for (unsigned gx : {1u, 2u, 3u, 7u, 33u}) {
    for (unsigned gy : {1u, 2u, 5u, 64u}) {
      std::vector<int> hit(gx * gy, 0);
      for (unsigned y = 0; y < gy; ++y)
        for (unsigned x = 0; x < gx; ++x) {
          const uint3 t = step08::column_block(y * gx + x, gx, gy);
          REQUIRE(t.x < gx);
          REQUIRE(t.y < gy);
          ++hit[t.y * gx + t.x];
        }
      for (int h : hit) REQUIRE(h == 1);
    }
  }
  // Consecutive blocks take consecutive tiles down a column of the input.
  const uint3 t = step08::column_block(1, 4, 3);
  CHECK(t.x == 0);
  CHECK(t.y == 1);
}

TEST_CASE("08-diagonal: every order has step 07's per-instruction costs", "[analyser]") {
  for (auto shape : {tt::Shape{1024, 2048}, tt::Shape{4099, 8191}}) {
    const auto p = problem(shape.rows, shape.cols, tt::DType::f32);
    const auto a = costs(step07::step(), "tile64", p);
    for (const char* order : {"row", "diagonal", "column"}) {
      INFO(order << " " << shape.rows << " x " << shape.cols);
      const auto b = costs(step08::step(), order, p);
      REQUIRE(a.size() == b.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].per_instruction() == b[i].per_instruction());
        CHECK(a[i].instructions == b[i].instructions);
      }
    }
  }
}

TEST_CASE("partial sectors: who completes them", "[analyser]") {
  // 02-naive read-coalesced: every strided store touches 32 sectors in part, and the 8 warps
  // of the block complete each of them (the block-level arithmetic of chapter 02).
  auto pb = problem(1024, 1024, tt::DType::f32, tt::BlockShape{32, 8});
  auto plan = step02::step().find("read-coalesced")->plan(pb);
  auto c = tt::partial_completion(plan.accesses[1], plan, tt::middle_block(plan));
  CHECK(c.sectors == 32);  // 8 warps write 8 neighbouring columns of the same 32 output rows
  CHECK(c.same_block == c.sectors);
  CHECK(c.other_blocks == 0);
  // 07-swizzle tile64 where the output rows (4099 floats) do not start on a sector: pieces of
  // output rows share their end sectors with the neighbouring tile's pieces.
  pb = problem(4099, 8191, tt::DType::f32);
  plan = step07::step().find("tile64")->plan(pb);
  const auto& store = plan.accesses.back();
  REQUIRE(store.op == tt::Op::store);
  c = tt::partial_completion(store, plan, tt::middle_block(plan));
  CHECK(c.sectors > 0);
  CHECK(c.other_blocks > 0);
  CHECK(c.never == 0);
  CHECK(c.same_block + c.other_blocks + c.never == c.sectors);
  // Aligned rows: no partial sector at all.
  pb = problem(4096, 8192, tt::DType::f32);
  plan = step07::step().find("tile64")->plan(pb);
  CHECK(tt::analyse_access(plan.accesses.back(), plan).partial == 0);
}

#include "08-diagonal/diagonal.hpp"
#include "09-alignment/alignment.hpp"

TEST_CASE("09-alignment: no output sector is written in part, at any shape", "[analyser]") {
  for (tt::DType t : {tt::DType::f32, tt::DType::f64}) {
    const std::int64_t sector = t == tt::DType::f32 ? 8 : 4;  // elements a 32-byte sector
    for (const tt::Shape s :
         {tt::Shape{1, 1}, tt::Shape{1, 1000}, tt::Shape{1000, 1}, tt::Shape{3, 5},
          tt::Shape{17, 83}, tt::Shape{63, 65}, tt::Shape{4099, 129}, tt::Shape{129, 4099},
          tt::Shape{512, 512}, tt::Shape{4100, 260}})
      for (const char* v : {"sectors", "skewed"}) {
        const auto plan = step09::step().find(v)->plan(problem(s.rows, s.cols, t));
        const auto& store = plan.accesses.back();
        REQUIRE(store.op == tt::Op::store);
        const auto totals = tt::analyse_access(store, plan, 0);  // every block
        INFO(v << " " << tt::dtype_name(t) << " " << s.rows << " x " << s.cols);
        // Each warp instruction writes whole sectors; only the matrix's last sector is cut,
        // where the matrix ends inside one.
        CHECK(totals.partial == (s.rows * s.cols % sector != 0 ? 1u : 0u));
      }
  }
  // The lesson's contrast: step 08's pieces of 4099-float output rows share their end sectors.
  const auto plan = step08::step().find("column")->plan(problem(4099, 129, tt::DType::f32));
  CHECK(tt::analyse_access(plan.accesses.back(), plan, 0).partial > 0);
}

// ---- What each block asks of the L2: its distinct sectors, summed over the blocks. ---------

#include "10-invariants/invariants.hpp"
#include "11-async-copy/async_copy.hpp"
#include "12-reads/reads.hpp"

namespace {
/// (load, store) sectors asked of the L2 (block_sectors) of @p variant on @p pb, every block
/// visited.
std::pair<std::uint64_t, std::uint64_t> l2_sectors(const tt::Step& step, const std::string& variant,
                                                   const tt::Problem& pb) {
  const auto plan = step.find(variant)->plan(pb);
  std::uint64_t ld = 0, st = 0;
  for (const auto& a : plan.accesses)
    if (a.space == tt::Space::global)
      (a.op == tt::Op::load ? ld : st) += tt::analyse_access(a, plan, 0).block_sectors;
  return {ld, st};
}
}  // namespace

TEST_CASE("L2 sectors: a block's repeated touches count once, another block's again",
          "[analyser]") {
  // 08's column kernel at 8192 x 8192: every sector of the input read and of the output
  // written by one block, once: the matrix's own sectors on both sides.
  const std::uint64_t matrix = 8192ull * 8192 * 4 / 32;
  auto [ld, st] = l2_sectors(step08::step(), "column", problem(8192, 8192, tt::DType::f32));
  CHECK(ld == matrix);
  CHECK(st == matrix);
  // At 4099 x 8191 step 10's skewed tiles write whole sectors, each by one block, but read 72
  // rows for 64 and share the sectors at the ends of each row piece with the next column of
  // blocks; the tall tiles (136 rows for 128) read fewer of them twice.
  const std::uint64_t odd = (4099ull * 8191 * 4 + 31) / 32;
  const auto lean = l2_sectors(step10::step(), "lean-only", problem(4099, 8191, tt::DType::f32));
  const auto tall = l2_sectors(step11::step(), "tall", problem(4099, 8191, tt::DType::f32));
  CHECK(lean.second == odd);
  CHECK(tall.second == odd);
  CHECK(lean.first > odd * 12 / 10);
  CHECK(tall.first < lean.first);
  CHECK(tall.first > odd);
  // The L1 count (sectors summed over requests) is higher than the L2's: two warps read the
  // halves of a sector that one block asks of the L2 once.
  const auto plan = step10::step().find("lean-only")->plan(problem(4099, 8191, tt::DType::f32));
  const auto t = tt::analyse_access(plan.accesses.front(), plan, 0);
  CHECK(t.cost > t.block_sectors);
}

TEST_CASE("L2 sectors: step 12 reads only the rows its stores read, and wider pieces",
          "[analyser]") {
  // Rows odd: a block of step 10 reads 72 rows, of which its stores read 71 in float (a
  // float sector is 8 elements: heads 0 to 7) and 67 in double (heads 0 to 3).
  const tt::Problem f = problem(4099, 8191, tt::DType::f32);
  const tt::Problem d = problem(4099, 8191, tt::DType::f64);
  const std::uint64_t odd_f = (4099ull * 8191 * 4 + 31) / 32;
  const std::uint64_t odd_d = (4099ull * 8191 * 8 + 31) / 32;
  const auto lean_f = l2_sectors(step10::step(), "lean-only", f);
  const auto lean_d = l2_sectors(step10::step(), "lean-only", d);
  const auto trim_f = l2_sectors(step12::step(), "trimmed", f);
  const auto trim_d = l2_sectors(step12::step(), "trimmed", d);
  const auto wide_f = l2_sectors(step12::step(), "wide", f);
  CHECK(trim_f.second == odd_f);  // the stores are step 10's: every sector once, whole
  CHECK(trim_d.second == odd_d);
  CHECK(wide_f.second == odd_f);
  CHECK(trim_f.first < lean_f.first);
  CHECK(trim_d.first < lean_d.first);
  CHECK(wide_f.first < trim_f.first);
  // The figures chapter 12 predicts with (its table): 1.23, 1.10 and 1.17 sectors for each
  // sector of the matrix, against step 10's 1.25 and 1.18.
  CHECK(trim_f.first * 100 / odd_f == 123);
  CHECK(trim_d.first * 100 / odd_d == 109);
  CHECK(wide_f.first * 100 / odd_f == 117);
  CHECK(lean_f.first * 100 / odd_f == 125);
  CHECK(lean_d.first * 100 / odd_d == 117);
  // Rows even but not a multiple of 4 (g = 2): float blocks read 70 rows, double 66.
  const auto t2 = l2_sectors(step12::step(), "trimmed", problem(4098, 8190, tt::DType::f32));
  const auto l2 = l2_sectors(step10::step(), "lean-only", problem(4098, 8190, tt::DType::f32));
  CHECK(t2.first < l2.first);
}

// ---- What each block's SM asks of the L2: requests, one a line an instruction reads anew. --

#include "13-lines/lines.hpp"

namespace {
/// Global-load requests asked of the L2 (block_requests) and lines touched (lines) of
/// @p variant on @p pb, every block visited.
std::pair<std::uint64_t, std::uint64_t> l2_requests(const tt::Step& step,
                                                    const std::string& variant,
                                                    const tt::Problem& pb) {
  const auto plan = step.find(variant)->plan(pb);
  std::uint64_t req = 0, lines = 0;
  for (const auto& a : plan.accesses)
    if (a.space == tt::Space::global && a.op == tt::Op::load) {
      const auto t = tt::analyse_access(a, plan, 0);
      req += t.block_requests;
      lines += t.lines;
    }
  return {req, lines};
}
}  // namespace

TEST_CASE("L2 requests: a load that crosses a line asks twice, step 13's loads do not",
          "[analyser]") {
  // A copy of 4099 x 8191 floats: each warp reads aligned lines, once (16-byte vectors, and
  // the last element or so on its own).
  const std::uint64_t lines_f = (4099ull * 8191 * 4 + 127) / 128;
  const auto copy =
      l2_requests(tt::references(), "copy-kernel", problem(4099, 8191, tt::DType::f32));
  CHECK(copy.first >= lines_f);
  CHECK(copy.first <= lines_f + 2);
  CHECK(copy.second == copy.first);
  // Step 10 at an odd row length: nearly every warp load crosses a line (1.98 lines a
  // request); the L1 serves some lines a block's earlier warp read, so fewer requests reach
  // the L2 than lines are touched.
  const tt::Problem f = problem(4099, 8191, tt::DType::f32);
  const tt::Problem d = problem(4099, 8191, tt::DType::f64);
  const auto lean_f = l2_requests(step10::step(), "lean-only", f);
  const auto lean_d = l2_requests(step10::step(), "lean-only", d);
  const auto lines_f13 = l2_requests(step13::step(), "lines-only", f);
  const auto lines_d13 = l2_requests(step13::step(), "lines-only", d);
  CHECK(lean_f.first < lean_f.second);
  CHECK(lean_f.first > 2 * lines_f);
  // Step 13's whole blocks read whole lines: every line they touch is a request, and the
  // requests are the figures chapter 13 predicts with: 1.74 M in float and 2.72 M in double,
  // against step 10's 2.15 M and 3.34 M (the copy's: 1.05 M and 2.10 M).
  CHECK(lines_f13.first < lean_f.first);
  CHECK(lines_d13.first < lean_d.first);
  CHECK(lean_f.first / 10000 == 215);
  CHECK(lean_d.first / 10000 == 333);
  CHECK(lines_f13.first / 10000 == 174);
  CHECK(lines_d13.first / 10000 == 272);
}

// ---- Step 16: step 13's line windows on step 12's wide tiles, in column order. -------------

#include "15-order/order.hpp"
#include "16-wide/wide.hpp"

TEST_CASE("L2 sectors and requests: step 16's wide windows read fewer than step 15's",
          "[analyser]") {
  // At the odd shapes step 15's float blocks read pieces of 64 columns, 1.23 sectors for each
  // sector of the matrix; step 16's read pieces of 128 (1.17), through line windows, so with
  // fewer requests too (whole lines, 16% fewer): the figures chapter 16 predicts with. The stores
  // write every sector of the output once, whole, in both.
  for (const auto& [r, c] : {std::pair{4099, 8191}, {12345, 6789}, {8191, 4099}}) {
    INFO(r << " x " << c);
    const tt::Problem f = problem(r, c, tt::DType::f32);
    const std::uint64_t odd = (std::uint64_t(r) * c * 4 + 31) / 32;
    const auto order = l2_sectors(step15::step(), "order", f);
    const auto wide = l2_sectors(step16::step(), "wide", f);
    CHECK(order.second == odd);
    CHECK(wide.second == odd);
    CHECK(order.first * 100 / odd == 123);
    CHECK(wide.first * 100 / odd == 117);
    const auto order_req = l2_requests(step15::step(), "order", f);
    const auto wide_req = l2_requests(step16::step(), "wide", f);
    const auto pct = wide_req.first * 100 / order_req.first;  // 84% of step 15's, to 1%
    CHECK(pct >= 83);
    CHECK(pct <= 84);
  }
  // In double step 16 runs step 15's kernels: the same counts.
  const tt::Problem d = problem(4099, 8191, tt::DType::f64);
  CHECK(l2_sectors(step16::step(), "wide", d) == l2_sectors(step15::step(), "order", d));
}

// ---- Step 17: step 15's kernels, the float window loads asking the L2 for 256 bytes. -------

#include "17-prefetch/prefetch.hpp"

TEST_CASE("step 17: step 15's moves, the hint on the window loads of short matrices",
          "[analyser]") {
  // The hint changes no element, sector or request the kernel asks for: the analyser counts
  // step 15's; the plan names the hint (the SASS check finds it in the machine code) where
  // step 13's windows run and the matrix has at most 16384 rows, in both types, and nowhere
  // else; `prefetch-any` has it at every height.
  for (const auto& [r, c] : {std::pair{4099, 8191}, {12345, 6789}, {16384, 16385}}) {
    INFO(r << " x " << c);
    for (tt::DType t : {tt::DType::f32, tt::DType::f64}) {
      const tt::Problem pb = problem(r, c, t);
      CHECK(l2_sectors(step17::step(), "prefetch", pb) == l2_sectors(step15::step(), "order", pb));
      CHECK(l2_requests(step17::step(), "prefetch", pb) ==
            l2_requests(step15::step(), "order", pb));
      CHECK(step17::step().find("prefetch")->plan(pb).l2_prefetch == 256);
      CHECK(step17::step().find("prefetch-any")->plan(pb).l2_prefetch == 256);
      CHECK(step17::step().find("order")->plan(pb).l2_prefetch == 0);
    }
  }
  // From 512 tile rows (two bands) on: the same moves, band by band, the hint in float only;
  // `columns` runs step 15's kernels there, `prefetch-any` keeps the hint. Between 16384 rows
  // and two bands, `prefetch` too runs step 15's kernels.
  for (tt::DType t : {tt::DType::f32, tt::DType::f64}) {
    INFO(tt::dtype_name(t));
    const tt::Problem between = problem(32704, 67, t);  // 511 tile rows: less than two bands
    CHECK(step17::step().find("prefetch")->plan(between).l2_prefetch == 0);
    CHECK(step17::step().find("prefetch")->plan(between).kernel ==
          step15::step().find("order")->plan(between).kernel);
    const tt::Problem tall = problem(32705, 67, t);  // 512: two bands, the seam row a third
    CHECK(step17::step().find("prefetch")->plan(tall).l2_prefetch ==
          (t == tt::DType::f32 ? 256 : 0));
    CHECK(l2_sectors(step17::step(), "prefetch", tall) ==
          l2_sectors(step15::step(), "order", tall));
    CHECK(l2_requests(step17::step(), "prefetch", tall) ==
          l2_requests(step15::step(), "order", tall));
    CHECK(step17::step().find("prefetch")->plan(tall).grid.y == 1);  // one-dimensional
    CHECK(step17::step().find("columns")->plan(tall).l2_prefetch == 0);
    CHECK(step17::step().find("columns")->plan(tall).kernel ==
          step15::step().find("order")->plan(tall).kernel);
    CHECK(step17::step().find("prefetch-any")->plan(tall).l2_prefetch == 256);
  }
  // Where step 15 runs another kernel (rows of whole sectors; even row lengths), so does 17.
  for (const auto& [r, c] : {std::pair{8192, 8192}, {4099, 8192}, {4100, 8196}})
    CHECK(step17::step().find("prefetch")->plan(problem(r, c, tt::DType::f32)).l2_prefetch == 0);
  // Every plan of steps 02 to 16 asks for no hint.
  CHECK(step16::step().find("order")->plan(problem(4099, 8191, tt::DType::f32)).l2_prefetch == 0);
  CHECK(step13::step().find("lines")->plan(problem(4099, 8191, tt::DType::f32)).l2_prefetch == 0);
}
