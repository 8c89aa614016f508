// Step 17: step 15's kernels, the window loads asking the L2 for whole DRAM blocks.
//
// What changed since 15: where rows are odd in length (step 13's line windows), the loads of
// the whole blocks' windows carry PTX's prefetch-size hint (ld.global.nc.L2::256B, SASS
// LDG.E.LTC256B): where a load misses in the L2, the L2 fetches the aligned 256 bytes around
// it from the DRAM. A block's 64-column piece of an odd-length row straddles two such
// blocks, which without the hint are each read in two parts by two blocks a column of tiles
// apart; with it, the first part brings the whole block in. The elements, sectors and banks
// of every tile are step 15's. Two conditions, both measured: the matrix has at most 16384
// rows (a taller column of tiles brings the neighbour too late, and the hint loses), and in
// double 2 blocks an SM (at 3 the hinted loads spill registers). A matrix with odd rows of
// 32705 rows or more (two bands of 256 tile rows) goes down its columns of tiles band by
// band, so that the neighbour comes no later than in a matrix of 16384 rows, with the hint in
// float.
// Elsewhere, and wherever step 15 runs another kernel (rows of whole sectors, even row
// lengths), this step runs step 15's.
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
        tt::needs(tt::variant<Vec<step09::Column<float>>, PrefetchLines<float>, BandLines<float>,
                              Lines<float>, Lean<float>, PrefetchLines<double>, BandLines<double>,
                              Lines<double>, Lean<double>>(
                      "prefetch",
                      "step 15's kernels; where step 13's windows run, the window loads ask the "
                      "L2 for the 256 bytes around each (2 blocks an SM in double) in matrices "
                      "of at most 16384 rows, and from 32705 rows (two bands of 256 tile rows) on "
                      "the blocks go down their columns of tiles band by band (the hint in "
                      "float)"),
                  80, "the L2 prefetch-size hint"),
        tt::needs(tt::variant<Vec<step09::Column<float>>, PrefetchLines<float>, Lines<float>,
                              Lean<float>, PrefetchLines<double>, Lines<double>, Lean<double>>(
                      "columns",
                      "the same with whole columns of tiles, and no hint, above 16384 rows: "
                      "the step's first headline, for the comparison"),
                  80, "the L2 prefetch-size hint"),
        tt::needs(
            tt::variant<Vec<step09::Column<float>>, PrefetchAnyLines<float>, Lean<float>,
                        PrefetchAnyLines<double>, Lean<double>>(
                "prefetch-any", "the same hint at every height of matrix, for the comparison"),
            80, "the L2 prefetch-size hint"),
        tt::variant<Vec<step09::Column<float>>, Lines<float>, Lean<float>, Lines<double>,
                    Lean<double>>("order", "step 15's headline as it is, for the comparison"),
    };
    st.default_variant = "all";
    st.headline = "prefetch";
    return st;
  }();
  return s;
}

}  // namespace step17
