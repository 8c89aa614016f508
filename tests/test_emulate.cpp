// Each step's moves run on the CPU exactly as its kernel makes them (common/emulate.hpp):
// every variant, every path it can take (the 16-byte path and its scalar fallback), float and
// double, on awkward shapes, compared bit for bit with the CPU transpose. A slot written
// twice, a slot read that no thread wrote, an address outside the matrix, an output element
// written twice or never: each fails with where it happened. No GPU is needed, so the index
// arithmetic of every kernel is tested wherever the tests run.
#include <sstream>

#include "02-naive/naive.hpp"
#include "catch.hpp"
#include "steps_under_test.hpp"

namespace {

void check_emulated(const tt::Step& step, const tt::Variant& v, tt::Shape shape, tt::DType t,
                    std::optional<tt::BlockShape> block, tt::Reach reach = tt::Reach::all) {
  const tt::Problem pb{shape, t, block};
  const tt::Problems problems = v.emulate(pb, reach);
  std::ostringstream all;
  for (const auto& p : problems) all << "  " << p << "\n";
  INFO(step.id << "/" << v.name << " " << tt::dtype_name(t) << " " << shape.rows << " x "
               << shape.cols << "\n"
               << all.str());
  CHECK(problems.empty());
}

}  // namespace

TEST_CASE("a step's moves transpose every shape exactly (emulated on the CPU)", "[.emulate]") {
  for (const tt::Step* step : steps_under_test()) {
    const auto block = step->block_for();
    for (const auto& v : step->variants) {
      REQUIRE(v.emulate);  // every kernel of a step has a description that can be run
      for (tt::DType t : {tt::DType::f32, tt::DType::f64})
        if (v.supports(t))
          for (const tt::Shape& s : awkward_shapes()) check_emulated(*step, v, s, t, block);
    }
  }
}

TEST_CASE("a step's moves are exact past 2^31 elements (corner blocks, emulated on the CPU)",
          "[emulator]") {
  // 46341 x 46341 is the first square past 2^31 elements; the others are odd in both sides,
  // but 46344 x 46344, whose rows are whole sectors (step 14's copy engine takes it).
  for (const tt::Step* step : steps_under_test())
    for (const auto& v : step->variants)
      for (tt::DType t : {tt::DType::f32, tt::DType::f64})
        if (v.supports(t))
          for (const tt::Shape& s : {tt::Shape{46341, 46341}, tt::Shape{65537, 32771},
                                     tt::Shape{3, 715827883}, tt::Shape{46344, 46344}})
            check_emulated(*step, v, s, t, step->block_for(), tt::Reach::far);
}

TEST_CASE("step 17's bands: every block's moves exact at tall odd shapes", "[emulator]") {
  // Bands of 256 tiles on a one-dimensional grid, from 512 tile rows on: the seam row alone
  // in a third band (32705 x 3), a short third band with the seam row (32833 x 67), and just
  // below two bands (32704 x 3, whole columns). Every variant, every block.
  for (const tt::Step* step : tt::tutorial_steps()) {
    if (step->id != "17-prefetch") continue;
    for (const auto& v : step->variants)
      for (tt::DType t : {tt::DType::f32, tt::DType::f64})
        for (const tt::Shape& s : {tt::Shape{32705, 3}, tt::Shape{32833, 67}, tt::Shape{32704, 3}})
          check_emulated(*step, v, s, t, step->block_for());
    return;
  }
  FAIL("no step 17-prefetch in the course");
}

TEST_CASE("02-naive's moves are exact with other block shapes too", "[emulator]") {
  const auto& st = step02::step();
  for (tt::BlockShape b : {tt::BlockShape{16, 16}, tt::BlockShape{32, 32}, tt::BlockShape{8, 4},
                           tt::BlockShape{7, 3}, tt::BlockShape{1, 1}})
    for (const auto& v : st.variants)
      for (const tt::Shape& s : {tt::Shape{1, 1}, tt::Shape{17, 83}, tt::Shape{96, 64}})
        check_emulated(st, v, s, tt::DType::f32, b);
}

TEST_CASE("a step's block: the default unless one is asked for, and none is refused",
          "[emulator]") {
  const auto& st = step02::step();
  REQUIRE(st.block_for()->x == st.default_block.x);
  REQUIRE(st.block_for()->y == st.default_block.y);
  REQUIRE(st.block_for(tt::BlockShape{16, 4})->x == 16);
  // A plan asked for without a block (a caller that skipped block_for) throws, where a 0 x 0
  // block once divided by zero.
  const tt::Problem no_block{{64, 64}, tt::DType::f32, std::nullopt};
  for (const auto& v : st.variants) REQUIRE_THROWS_AS(v.plan(no_block), std::logic_error);
}

// ---- The emulator itself: each planted mistake is caught. --------------------------------

#include "emulate.hpp"

namespace {

constexpr int kT = 8;  // an 8 x 8 tile moved by 8 x 8 threads

/// A correct little transpose, with one of several mistakes switched on.
enum class Mistake { none, swapped_slot, unguarded, same_slot, unwritten_slot, copy, int32 };

template <Mistake M>
struct Little : tt::Work<float> {
  static constexpr int kTileElems = kT * (kT + 1);
  static tt::Launch launch(const tt::Problem& pb) {
    return {dim3(static_cast<unsigned>(tt::ceil_div(pb.shape.cols, kT)),
                 static_cast<unsigned>(tt::ceil_div(pb.shape.rows, kT))),
            dim3(kT, kT)};
  }
  static int slot(int r, int c) { return r * (kT + 1) + c; }
  static tt::Move<> load(const tt::Thread& me, int, int rows, int cols) {
    const int r = me.thread.y, c = me.thread.x;
    const tt::Coord src{static_cast<int>(me.block.y) * kT + r,
                        static_cast<int>(me.block.x) * kT + c};
    const bool in = M == Mistake::unguarded || tt::inside(src, rows, cols);
    const int s = M == Mistake::same_slot ? slot(r, 0) : slot(r, c);
    if (M == Mistake::int32)  // the offset in 32-bit arithmetic: it wraps past 2^31
      return {in,
              static_cast<std::int64_t>(static_cast<std::int32_t>(
                  static_cast<std::uint32_t>(src.row) * static_cast<std::uint32_t>(cols) +
                  static_cast<std::uint32_t>(src.col))),
              s};
    return {in, tt::offset(src.row, src.col, cols), s};
  }
  static tt::Move<> store(const tt::Thread& me, int, int rows, int cols) {
    const int r = me.thread.y, c = me.thread.x;
    const tt::Coord dst{static_cast<int>(me.block.x) * kT + r,
                        static_cast<int>(me.block.y) * kT + c};
    int s = slot(c, r);
    if (M == Mistake::swapped_slot) s = slot(r, c);
    if (M == Mistake::unwritten_slot) s = slot(c, kT);  // the padding column: nobody writes it
    if (M == Mistake::copy) {  // writes the input's element (r, c) to output position (r, c)
      const tt::Coord e{static_cast<int>(me.block.y) * kT + r,
                        static_cast<int>(me.block.x) * kT + c};
      return {tt::inside(e, rows, cols), tt::offset(e.row, e.col, cols), slot(r, c)};
    }
    return {tt::inside(dst, cols, rows), tt::offset(dst.row, dst.col, rows), s};
  }
};

template <Mistake M>
tt::Problems run_little(tt::Shape s, tt::Reach reach = tt::Reach::all) {
  return tt::emulate<Little<M>>(tt::Problem{s, tt::DType::f32, std::nullopt}, reach);
}

bool mentions(const tt::Problems& p, const std::string& what) {
  for (const auto& x : p)
    if (x.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("the emulator passes a correct transpose and names each planted mistake", "[emulator]") {
  for (tt::Shape s : {tt::Shape{8, 8}, tt::Shape{13, 21}, tt::Shape{1, 1}})
    CHECK(run_little<Mistake::none>(s).empty());
  const tt::Shape odd{13, 21};
  CHECK(mentions(run_little<Mistake::swapped_slot>({16, 16}), "differ from the CPU reference"));
  CHECK(mentions(run_little<Mistake::unguarded>(odd), "outside the matrix"));
  CHECK(mentions(run_little<Mistake::same_slot>(odd), "two writes to tile slot"));
  CHECK(mentions(run_little<Mistake::unwritten_slot>(odd), "which no thread wrote"));
  CHECK_FALSE(run_little<Mistake::copy>({16, 24}).empty());  // a copy is not a transpose
  CHECK(run_little<Mistake::copy>({1, 1}).empty());          // (except where they agree)
}

/// The kernel's load phase on the host, for emulate()'s HOST: right, or (SKIP) without the
/// edge tiles' moves, or (OUTSIDE) writing one slot past the tile.
template <bool SKIP, bool OUTSIDE = false>
struct LittleLoad {
  template <bool CHECKED, typename T>
  static void load(const tt::Thread& me, const T* in, T* tile, int rows, int cols) {
    if (SKIP && CHECKED) return;
    const tt::Move<> m = Little<Mistake::none>::load(me, 0, rows, cols);
    if (!CHECKED || m.inside) tile[m.slot + (OUTSIDE ? kT * (kT + 1) : 0)] = in[m.global];
  }
};

TEST_CASE("the emulator runs the kernel's own load phase where it is host code too", "[emulator]") {
  const tt::Problem odd{{13, 21}, tt::DType::f32, std::nullopt};
  CHECK(tt::emulate<Little<Mistake::none>, LittleLoad<false>>(odd).empty());
  const tt::Problems skipped = tt::emulate<Little<Mistake::none>, LittleLoad<true>>(odd);
  CHECK(mentions(skipped, "the load phase (the kernel's code, run on the CPU) leaves tile slot"));
  // Little states no whole tiles: every block runs the checked path, even without an edge.
  const tt::Problem square{{16, 16}, tt::DType::f32, std::nullopt};
  CHECK_FALSE(tt::emulate<Little<Mistake::none>, LittleLoad<true>>(square).empty());
  CHECK(mentions(tt::emulate<Little<Mistake::none>, LittleLoad<false, true>>(odd),
                 "writes outside the tile"));
}

TEST_CASE("the emulator checks the corner blocks of a matrix past 2^31 elements without it",
          "[emulator]") {
  const tt::Shape big{46341, 46341};  // 2147488281 elements: 8.6 GB of float, not allocated
  CHECK(run_little<Mistake::none>(big, tt::Reach::far).empty());
  CHECK(run_little<Mistake::int32>({13, 21}, tt::Reach::far).empty());  // small: the same offsets
  CHECK(mentions(run_little<Mistake::int32>(big, tt::Reach::far), "outside the matrix"));
  CHECK(mentions(run_little<Mistake::swapped_slot>(big, tt::Reach::far), "puts input element"));
  CHECK(mentions(run_little<Mistake::copy>(big, tt::Reach::far), "puts input element"));
}

// ---- Matrices of more than 2^31 elements: offsets are 64-bit all the way. -------------------

#include "analyser.hpp"

TEST_CASE("past 2^31 elements, every step's global addresses stay in the matrix", "[emulator]") {
  const tt::Shape s{50000, 50001};  // 2500050000 elements, more than 2^31
  for (const tt::Step* step : tt::tutorial_steps())
    for (const auto& v : step->variants)
      for (tt::DType t : {tt::DType::f32, tt::DType::f64}) {
        if (!v.supports(t)) continue;  // a variant of one type (11-async-copy's tall: float)
        const tt::Problem pb{s, t, step->block_for()};
        const tt::LaunchPlan plan = v.plan(pb);
        const auto size = static_cast<std::int64_t>(tt::dtype_size(t));
        const std::int64_t bytes = s.count() * size;
        const int warps = static_cast<int>((plan.block.x * plan.block.y + 31) / 32);
        // The last block, and the one before it in y (09-alignment's last row of blocks
        // writes the seams between output rows, its main tiles end one row earlier) and in x
        // (15-order runs down the columns of tiles: x is its tile row, the seam row last).
        const uint3 last{plan.grid.x - 1, plan.grid.y - 1, 0};
        const uint3 before_last{plan.grid.x - 1, plan.grid.y > 1 ? plan.grid.y - 2 : 0, 0};
        const uint3 before_last_x{plan.grid.x > 1 ? plan.grid.x - 2 : 0, plan.grid.y - 1, 0};
        std::int64_t highest = 0;
        for (const auto& a : plan.accesses) {
          if (a.space != tt::Space::global) continue;
          for (const uint3 b : {last, before_last, before_last_x})
            for (int w = 0; w < warps; ++w)
              for (int it = 0; it < a.iterations; ++it)
                for (const auto& addr : tt::warp_addresses(a, plan, b, w, it)) {
                  if (!addr) continue;
                  INFO(step->id << "/" << v.name << " " << tt::dtype_name(t) << " " << a.code);
                  REQUIRE(*addr >= 0);
                  REQUIRE(*addr + a.width <= bytes);
                  highest = std::max(highest, *addr);
                }
        }
        INFO(step->id << "/" << v.name << " " << tt::dtype_name(t));
        CHECK(highest >= (std::int64_t{1} << 31) * size);  // the last tile is past 2^31 elements
      }
}
