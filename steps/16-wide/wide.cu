// Step 16: in float, tiles twice as wide, in step 15's column order.
//
// What changed since 15: in float at odd row lengths, the tile. Step 15's block reads a piece
// of 64 input columns from each of its rows; a piece that starts inside a sector shares its
// first and last sectors with the neighbouring blocks, which read them too. Here a block
// reads 128 columns (step 12's wide tile) through step 13's line windows, so half as many
// sectors are read twice. Its kernel is step 13's with the windows copied by step 11's
// cp.async (no register holds them, so 4 blocks an SM fit); the order is step 15's. In double,
// and where rows are even or not line-aligned, this step runs step 15's kernels.
//
// Expected effect: see docs/16-wide.md. Measured: the wide windows read fewer sectors and
// bought no time (slower at most odd shapes on the H200), so the step's headline stays step
// 15's kernels (variant order); the step is kept for what the miss teaches.
//
// Run:   16-wide --rows 12345 --cols 6789
//        16-wide --rows 12345 --cols 6789 --variant wide --explain

#include "16-wide/wide.hpp"

#include "09-alignment/alignment.cuh"
#include "12-reads/reads.cuh"
#include "15-order/order.cuh"
#include "16-wide/wide.cuh"

namespace step16 {

/// The wide line-window work in column order, and this step's kernel on it (cp.async).
using WideWork = step15::ColumnFirstLines<WideCopies<float>>;
using Wide = tt::Path<WideWork, transpose_windows<WideWork>, void, true>;
/// The same windows loaded through registers by step 13's kernel (2 blocks an SM).
using RegWork = step15::ColumnFirstLines<WideLines<float>>;
using WideRegisters = tt::Path<RegWork, step13::transpose_lines<RegWork>>;
/// Step 12's tall tiles (136 x 64, 128 output elements a row) in column order, and step 12's
/// kernel on them: the other way to fewer sectors read twice, for the comparison.
using TallWork = step15::ColumnFirst<step12::TallTrimmed<float>>;
using Tall = tt::Path<TallWork, step12::transpose_trimmed<TallWork>, void, false, true>;

const tt::Step& step() {
  static const tt::Step s = [] {
    using step15::Lean;
    using step15::Lines;
    using step15::Vec;
    tt::Step st;
    st.id = "16-wide";
    st.title = "Wider tiles in column order: fewer sectors read by two blocks";
    st.variants = {
        tt::needs(tt::variant<Vec<step09::Column<float>>, Wide, Lines<float>, Lean<float>,
                              Lines<double>, Lean<double>>(
                      "wide",
                      "in float, step 12's wide tiles (128 columns) with step 13's line "
                      "windows, copied by cp.async, in column order, where step 13's would "
                      "run; otherwise step 15's"),
                  80, "cp.async"),
        tt::variant<Vec<step09::Column<float>>, WideRegisters, Lines<float>, Lean<float>,
                    Lines<double>, Lean<double>>(
            "wide-registers",
            "the same windows loaded through registers by step 13's kernel (2 blocks an SM)"),
        tt::variant<Tall>("tall",
                          "step 12's tall tiles (136 x 64) in column order, at every shape; "
                          "float only"),
        tt::variant<Vec<step09::Column<float>>, Lines<float>, Lean<float>, Lines<double>,
                    Lean<double>>("order",
                                  "step 15's headline as it is, and this step's: the wide "
                                  "windows bought no time (docs/16-wide.md)"),
    };
    st.default_variant = "all";
    st.headline = "order";  // measured: wide is no faster (chapter 16)
    return st;
  }();
  return s;
}

}  // namespace step16
