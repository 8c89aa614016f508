// Step 10 moves what step 09 moves: only the instructions that compute it differ. A CUDA
// source, because the work classes' header (common/tiled.hpp) holds their launchers.
#include <vector>

#include "10-invariants/invariants.cuh"
#include "catch.hpp"
#include "emulate.hpp"

namespace {

/// Every move of step 10's Lean<T> equals step 09's Skewed<T> move, in every pass of every
/// thread of the blocks @p blocks (all of them when empty) of a rows x cols problem.
template <typename T>
int lean_differs(int rows, int cols, std::vector<uint3> blocks) {
  using L = step10::Lean<T>;
  using S = step09::Skewed<T>;
  const tt::Launch l = S::launch(tt::Problem{tt::Shape{rows, cols}, tt::dtype_of<T>::value, {}});
  if (blocks.empty())
    for (unsigned y = 0; y < l.grid.y; ++y)
      for (unsigned x = 0; x < l.grid.x; ++x) blocks.push_back({x, y, 0});
  int differ = 0;
  const auto same = [](const tt::Move<>& a, const tt::Move<>& b) {
    return a.inside == b.inside && (!a.inside || (a.global == b.global && a.slot == b.slot));
  };
  for (const uint3 b : blocks)
    for (unsigned t = 0; t < l.block.x; ++t) {
      const tt::Thread me{b, {t, 0, 0}, l.block, l.grid};
      for (int p = 0; p < S::kLoadPasses; ++p)
        differ += !same(L::load(me, p, rows, cols), S::load(me, p, rows, cols));
      for (int p = 0; p < S::kStorePasses; ++p)
        differ += !same(L::store(me, p, rows, cols), S::store(me, p, rows, cols));
    }
  return differ;
}

}  // namespace

TEST_CASE("10-invariants: every move is step 09's, on every shape", "[emulator]") {
  for (const tt::Shape s :
       {tt::Shape{1, 1}, tt::Shape{1, 1000}, tt::Shape{1000, 1}, tt::Shape{3, 5}, tt::Shape{73, 65},
        tt::Shape{4099, 129}, tt::Shape{129, 4099}, tt::Shape{512, 512}, tt::Shape{1001, 997}}) {
    INFO(s.rows << " x " << s.cols);
    CHECK(lean_differs<float>(static_cast<int>(s.rows), static_cast<int>(s.cols), {}) == 0);
    CHECK(lean_differs<double>(static_cast<int>(s.rows), static_cast<int>(s.cols), {}) == 0);
  }
  // Past 2^31 elements, where a 32-bit product would wrap: the grid's corners and middle.
  const int n = 46341;
  const tt::Launch l =
      step09::Skewed<float>::launch(tt::Problem{tt::Shape{n, n}, tt::DType::f32, {}});
  CHECK(lean_differs<float>(n, n, tt::far_blocks(l.grid)) == 0);
  CHECK(lean_differs<double>(n, n, tt::far_blocks(l.grid)) == 0);
}
