// Step 15: step 13's kernel, its blocks in column order.
//
// What changed since 13: which tile each block takes (order.cuh), nothing in the kernel. On a
// two-dimensional grid the GPU starts the blocks x first in practice, so the blocks that run
// together in steps 09 to 13 write a 64-element piece of every output row of the matrix; here,
// as in step 08's column order, they go down a column of input tiles and fill whole output
// rows one after another. The elements, sectors and banks of every tile are step 13's.
//
// Expected effect: see docs/15-order.md.
//
// Run:   15-order --rows 4099 --cols 8191
//        15-order --rows 4099 --cols 8191 --variant order --explain

#include "15-order/order.hpp"

#include "09-alignment/alignment.cuh"
#include "15-order/order.cuh"

namespace step15 {

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
