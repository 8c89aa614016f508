// Step 17: step 15's kernels, the float line-window loads asking the L2 for whole DRAM blocks.
//
// What changed since 15: in float where rows are odd in length, the loads of the whole
// blocks' line windows carry PTX's prefetch-size hint (ld.global.nc.L2::256B, SASS
// LDG.E.LTC256B): where a load misses in the L2, the L2 fetches the aligned 256 bytes around
// it from the DRAM. A block's 64-column piece of an odd-length row straddles two such
// blocks, which without the hint are each read in two parts by two blocks a column of tiles
// apart; with it, the first part brings the whole block in. The elements, sectors and banks
// of every tile are step 15's. In double step 13's kernel holds its 6 window loads in 40
// registers a thread (3 blocks an SM), and with the hint they spill to local memory; so double
// runs step 15's kernels, and `prefetch-double` tries the hint there at 2 blocks an SM.
// Wherever step 15 runs another kernel (rows of whole sectors, even row lengths), so does 17.
//
// Expected effect: see docs/17-prefetch.md.
//
// Run:   17-prefetch --rows 12345 --cols 6789
//        17-prefetch --rows 12345 --cols 6789 --variant prefetch,order

#include "17-prefetch/prefetch.hpp"

#include "09-alignment/alignment.cuh"
#include "17-prefetch/prefetch.cuh"

namespace step17 {

const tt::Step& step() {
  static const tt::Step s = [] {
    using step15::Lean;
    using step15::Lines;
    using step15::Vec;
    tt::Step st;
    st.id = "17-prefetch";
    st.title = "Whole DRAM blocks for odd rows: the L2 prefetch-size hint";
    st.variants = {
        tt::variant<Vec<step09::Column<float>>, PrefetchLines<float>, Lean<float>, Lines<double>,
                    Lean<double>>(
            "prefetch",
            "step 15's kernels; in float, the line-window loads ask the L2 for the 256 bytes "
            "around each (where step 13's windows run)"),
        tt::variant<Vec<step09::Column<float>>, PrefetchLines<float>, Lean<float>,
                    PrefetchLinesDouble2, Lean<double>>(
            "prefetch-double",
            "the same hint in double too, at 2 blocks an SM (at 3 the hinted loads spill)"),
        tt::variant<Vec<step09::Column<float>>, Lines<float>, Lean<float>, Lines<double>,
                    Lean<double>>("order", "step 15's headline as it is, for the comparison"),
        tt::variant<Vec<step09::Column<float>>, BandLines<float, 128>, BandLean<float, 128>,
                    BandLines<double, 128>, BandLean<double, 128>>(
            "bands",
            "prefetch's kernels, the skewed tiles in column order by bands of 128 tile "
            "rows (8192 input rows)"),
        tt::variant<Vec<step09::Column<float>>, BandLines<float, 256>, BandLean<float, 256>,
                    BandLines<double, 256>, BandLean<double, 256>>(
            "bands-256", "the same, bands of 256 tile rows"),
    };
    st.default_variant = "all";
    st.headline = "prefetch";
    return st;
  }();
  return s;
}

}  // namespace step17
