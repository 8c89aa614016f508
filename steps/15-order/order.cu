// Step 15: step 13's kernel, its blocks in column order.
//
// What changed since 13: which tile each block takes (order.cuh), nothing in the kernel. On a
// two-dimensional grid the GPU starts the blocks x first, so the blocks that run together in
// steps 09 to 13 write a 64-element piece of every output row of the matrix; here, as in
// step 08's column order, they go down a column of input tiles and fill whole output rows one
// after another. The elements, sectors and banks of every tile are step 13's.
//
// Expected effect: see docs/15-order.md.
//
// Run:   15-order --rows 4099 --cols 8191
//        15-order --rows 4099 --cols 8191 --variant order --explain

#include "15-order/order.hpp"

#include "06-float4/float4.cuh"
#include "09-alignment/alignment.cuh"
#include "10-invariants/invariants.cuh"
#include "13-lines/lines.cuh"
#include "15-order/order.cuh"

namespace step15 {

/// Step 13's work on T, in column order.
template <typename T>
using LinesWork = ColumnFirstLines<step13::Lines<T>>;
/// Step 10's work on T, in column order (where step 13 falls back to it).
template <typename T>
using LeanWork = ColumnFirst<step10::Lean<T>>;
/// Step 13's kernel on its work in column order.
template <typename T>
using Lines = tt::Path<LinesWork<T>, step13::transpose_lines<LinesWork<T>>>;
/// Step 06's kernel on step 10's work in column order.
template <typename T>
using Lean = tt::Path<LeanWork<T>, step06::transpose_vec<LeanWork<T>>>;
/// Work W, moved by step 06's kernel, as it is (steps 08 to 13).
template <class W>
using Vec = tt::Path<W, step06::transpose_vec<W>>;
/// Work W, moved by step 13's kernel, as it is.
template <class W>
using RowLines = tt::Path<W, step13::transpose_lines<W>>;

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "15-order";
    st.title = "Column order at every shape: step 13's tiles, taken down the columns";
    st.variants = {
        tt::variant<Vec<step09::Column<float>>, Lines<float>, Lean<float>, Lines<double>,
                    Lean<double>>(
            "order",
            "step 13's line-window tiles (step 10's where not line-aligned or rows even), in "
            "column order; in float, step 08's column kernel where output rows are whole sectors"),
        tt::variant<Lines<float>, Lean<float>, Lines<double>, Lean<double>>(
            "order-only",
            "always step 13's (or step 10's) skewed tiles in column order, "
            "also where output rows are whole sectors"),
        tt::variant<Vec<step09::Column<float>>, RowLines<step13::Lines<float>>,
                    Vec<step10::Lean<float>>, Vec<step09::Column<double>>,
                    RowLines<step13::Lines<double>>, Vec<step10::Lean<double>>>(
            "rows", "step 13's headline as it is (blocks x first), for the comparison in one run"),
    };
    st.default_variant = "all";
    st.headline = "order";
    return st;
  }();
  return s;
}

}  // namespace step15
