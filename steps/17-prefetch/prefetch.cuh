/// @file prefetch.cuh
/// @brief Step 17's work: step 15's, whose line-window loads carry the L2 prefetch-size hint.
///
/// What changed since step 15: one word of the load. Every block moves the elements, sectors
/// and banks that step 15's block of the same tile moves; each 16-byte load of a whole
/// block's window now asks the L2, where it misses, to fetch the aligned 256 bytes around it
/// from the DRAM (tt::load_vec's Prefetch, LDG.E.LTC256B in the machine code).
#pragma once

#include "13-lines/lines.cuh"
#include "15-order/order.cuh"
#include "kernel.hpp"

namespace step17 {

/// Work W, its window loads asking the L2 for the 256 bytes around each (step 13's kernel
/// reads W::kL2Prefetch in its loads of the line windows; W's moves are unchanged).
///
/// Why: where rows are odd in length, a block's 64-column piece of a row starts anywhere in
/// a 256-byte block of the DRAM and ends in the next one, so each such block is read in two
/// parts, by two blocks of neighbouring tile columns, one column of tiles apart in time.
/// With the hint, the first part's miss brings the whole block into the L2, and the second
/// block finds its part there.
template <class W>
struct Prefetching : W {
  static constexpr int kL2Prefetch = 256;  // the largest size PTX offers: .L2::256B
};

/// Step 15's line-window work on T in column order, prefetching.
template <typename T>
using PrefetchWork = Prefetching<step15::LinesWork<T>>;
/// Step 13's kernel on it.
template <typename T>
using PrefetchLines = tt::Path<PrefetchWork<T>, step13::transpose_lines<PrefetchWork<T>>>;

/// The double work, prefetching, at 2 blocks an SM: at step 13's 3 (40 registers a thread) the
/// hinted loads spill registers to local memory (the SASS check fails it), which would be
/// measured instead of the hint.
struct PrefetchWorkDouble2 : PrefetchWork<double> {
  static constexpr int kMinBlocks = 2;
};
using PrefetchLinesDouble2 =
    tt::Path<PrefetchWorkDouble2, step13::transpose_lines<PrefetchWorkDouble2>>;

}  // namespace step17
