/// @file invariants.cuh
/// @brief Step 10's work: step 09's skewed tiles, their moves written so that every part of an
/// address that is the same in all of a thread's passes is computed once.
#pragma once

#include <cstdint>

#include "09-alignment/alignment.cuh"
#include "kernel.hpp"

namespace step10 {

/// Step 09's tiling (the same tile, skew, seams and threads), with other move functions.
///
/// In step 09 a thread's pass p works out its element from e = p kThreads + t: a division,
/// a 64-bit product with the row length, and, on the way out, the output row's head() (a
/// 64-bit product and a mask), all again for each of its 9 loads and 8 stores. The compiler
/// cannot see that most of it is the same in every pass. Here the pass enters only as a
/// constant added at the end:
///  - loads: pass p is tile row i0 + 8p of the same column j, so its offset is base + 8p
///    cols (one 64-bit add), and its slot (i0 + 8p) 64 + (j XOR i0 XOR 8p) (constants);
///  - stores: pass p is output row c0 + 8p, whose head() is head(c0), because 8p rows of
///    output start 8p x rows elements later, a whole number of sectors (a sector is at most 8
///    elements); its offset is base + 8p rows, its slot i 64 + ((u0 XOR (i & 7)) |
///    (8p XOR (i & 56))).
/// The elements each thread moves, and so every address, sector and bank, are step 09's.
template <typename T>
struct Lean : step09::Skewed<T> {
  using Base = step09::Skewed<T>;
  static constexpr int kStride = Base::kThreads / Base::kTile;  ///< Rows a pass: 8.
  static_assert(kStride == 8 && Base::kTile == 64, "the XOR split below assumes 8 and 64");
  static_assert(Base::kSectorElems <= kStride, "8 output rows are whole sectors apart");

  /// Pass p: tile row i0 + 8p, column j (t = 64 i0 + j), as step 09's load.
  TT_HD static tt::Move<> load(const tt::Thread& me, int pass, int rows, int cols) {
    if (Base::seam(me)) return Base::seam_move(me, pass, true, rows, cols);
    const int t = static_cast<int>(me.thread.x), i0 = t / 64, j = t % 64;
    const std::int64_t r0 = std::int64_t{me.block.y} * 64 + i0,
                       c = std::int64_t{me.block.x} * 64 + j;
    const std::int64_t base = r0 * cols + c;                         // the same in every pass
    const int i = i0 + kStride * pass;                               // tile row
    const int slot = i * 64 + ((j ^ i0) ^ ((kStride * pass) & 63));  // = Base::slot(i, j)
    return {r0 + kStride * pass < rows && c < cols, base + std::int64_t{kStride} * pass * cols,
            slot};
  }
  /// Pass p: output row c0 + 8p (t = 64 u0 + j), its j-th element from head(c0), as step
  /// 09's store.
  TT_HD static tt::Move<> store(const tt::Thread& me, int pass, int rows, int cols) {
    if (Base::seam(me)) return Base::seam_move(me, pass, false, rows, cols);
    const int t = static_cast<int>(me.thread.x), u0 = t / 64, j = t % 64;
    const std::int64_t c0 = std::int64_t{me.block.x} * 64 + u0;
    const int i = step09::head<Base::kSectorElems>(c0, rows) + j;  // head(c0 + 8p) = head(c0)
    const std::int64_t r = std::int64_t{me.block.y} * 64 + i;
    const std::int64_t base = c0 * rows + r;  // the same in every pass
    const std::int64_t c = c0 + kStride * pass;
    const int slot = i * 64 + ((u0 ^ (i & 7)) | ((kStride * pass) ^ (i & 56)));  // Base::slot(i, u)
    return {c < cols && r < step09::tail<Base::kSectorElems>(c, rows),
            base + std::int64_t{kStride} * pass * rows, slot};
  }
};

}  // namespace step10
