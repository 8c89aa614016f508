/// @file prefetch.cuh
/// @brief Step 17's work: step 15's, whose line-window loads carry the L2 prefetch-size hint.
///
/// What changed since step 15: one word of the load, and where it is used. Every block moves
/// the elements, sectors and banks that step 15's block of the same tile moves; each 16-byte
/// load of a whole block's window now asks the L2, where it misses, to fetch the aligned 256
/// bytes around it from the DRAM (tt::load_vec's Prefetch, LDG.E.LTC256B in the machine
/// code), in matrices of at most 16384 rows, and in double at 2 blocks an SM.
#pragma once

#include <cstdint>

#include "13-lines/lines.cuh"
#include "15-order/order.cuh"
#include "kernel.hpp"

namespace step17 {

/// Work W, its window loads asking the L2 for the 256 bytes around each (step 13's kernel
/// reads W::kL2Prefetch in its loads of the line windows; W's moves are unchanged), at any
/// height of matrix.
///
/// Why: where rows are odd in length, a block's 64-column piece of a row starts anywhere in
/// a 256-byte block of the DRAM and ends in the next one, so each such block is read in two
/// parts, by two blocks of neighbouring tile columns, one column of tiles apart in time.
/// With the hint, the first part's miss brings the whole block into the L2, and the second
/// block finds its part there, if the L2 still holds it a column of tiles later.
template <class W>
struct PrefetchingAny : W {
  static constexpr int kL2Prefetch = 256;  // the largest size PTX offers: .L2::256B
  /// In double, 2 blocks an SM: at step 13's 3 (40 registers a thread) the hinted loads
  /// spill registers to local memory (the SASS check fails that), and the spills would be
  /// measured instead of the hint.
  static constexpr int kMinBlocks = sizeof(typename W::Elem) == 4 ? W::kMinBlocks : 2;
};

/// PrefetchingAny where a column of tiles is at most kMaxRows input rows: measured on the H100
/// and the H200, the hint gains at 16383 rows in both types, and loses at 32767 (H100) and
/// 65535 rows (both), where the neighbour comes too late and the L2 has dropped the bytes
/// fetched for it (docs/17-prefetch.md). Taller matrices run step 15's kernels.
template <class W>
struct Prefetching : PrefetchingAny<W> {
  static constexpr std::int64_t kMaxRows = 16384;
  static bool fits(const tt::Shape& s) { return W::fits(s) && s.rows <= kMaxRows; }
};

/// Step 15's line-window work on T in column order, prefetching where a column is short, and
/// step 13's kernel on it.
template <typename T>
using PrefetchWork = Prefetching<step15::LinesWork<T>>;
template <typename T>
using PrefetchLines = tt::Path<PrefetchWork<T>, step13::transpose_lines<PrefetchWork<T>>>;

/// The same at every height, for the comparison.
template <typename T>
using PrefetchAnyWork = PrefetchingAny<step15::LinesWork<T>>;
template <typename T>
using PrefetchAnyLines = tt::Path<PrefetchAnyWork<T>, step13::transpose_lines<PrefetchAnyWork<T>>>;

}  // namespace step17
