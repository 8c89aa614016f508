// Step 14: the tensor memory accelerator copies each tile.
//
// What changed since 13: no thread loads the input (tma.cuh). Steps 05 to 13 keep bytes in
// flight with registers (one load a register) or with cp.async (step 11: one instruction an
// element or a vector); here one thread of a block hands the copy engine the block's tile,
// as boxes of 64 rows x 128 bytes, and the whole block waits on one barrier that the copies
// complete. The engine writes each box with its 128-byte swizzle, which keeps the stores'
// column reads free of bank conflicts, as chapter 07's swizzle does.
//
// The copy engine needs a row pitch of whole 16-byte chunks, and the stores here write whole
// sectors only where output rows are whole sectors: at other shapes step 13's kernels run.
//
// Expected effect: see docs/14-tma.md.
//
// Variants `async` (step 11's cp.async) and `lines` (step 13's headline) run beside it, so
// that one run compares the three ways of filling a tile.
//
// Run:   14-tma --size 8192
//        14-tma --size 8192 --variant tma,async,lines --dtype double

#include "14-tma/tma.hpp"

#include <string>
#include <utility>

#include "06-float4/float4.cuh"
#include "09-alignment/alignment.cuh"
#include "10-invariants/invariants.cuh"
#include "11-async-copy/async_copy.cuh"
#include "13-lines/lines.cuh"
#include "14-tma/tma.cuh"

namespace step14 {

/// Work W, moved by step 13's kernel.
template <class W>
using Lines = tt::Path<W, step13::transpose_lines<W>>;
/// Work W, moved by step 06's kernel (steps 08 to 10).
template <class W>
using Vec = tt::Path<W, step06::transpose_vec<W>>;
/// Work W with its tile filled by cp.async: step 11's kernel.
template <class W>
using Async = tt::Path<W, step11::transpose_async<W>, void, true>;

/// A variant of the copy engine: path P for float and double where its work W suits the shape
/// and the pointers, else step 13's kernels (its headline's paths, in their order).
template <template <class> class P, template <typename> class W>
tt::Variant engine_variant(std::string name, std::string summary) {
  tt::Variant v = tt::variant<P<W<float>>, Vec<step09::Column<float>>, Lines<step13::Lines<float>>,
                              Vec<step10::Lean<float>>, P<W<double>>, Vec<step09::Column<double>>,
                              Lines<step13::Lines<double>>, Vec<step10::Lean<double>>>(
      std::move(name), std::move(summary));
  return tt::needs(std::move(v), 90, "Hopper's tensor memory accelerator");
}

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "14-tma";
    st.title = "The copy engine: the tensor memory accelerator copies each tile";
    st.variants = {
        engine_variant<TmaPath, TmaLoad>(
            "tma",
            "tiles copied by the tensor memory accelerator where rows are whole 16-byte chunks "
            "and output rows whole sectors, else step 13's kernels"),
        engine_variant<TmaPath, TmaWide>(
            "tma-wide",
            "tma with each thread storing 16-byte vectors, a quarter of tma's store "
            "instructions: two lanes a column, so the column reads keep clear of conflicts"),
        engine_variant<TmaPath, TmaPlain>(
            "tma-plain",
            "tma with the boxes written dense, no swizzle: the column reads' bank conflicts "
            "come back"),
        engine_variant<TmaBothPath, TmaBoth>(
            "tma-store",
            "tma, and the copy engine also copies the output out: the threads transpose the "
            "tile in shared memory"),
        tt::needs(tt::variant<Async<step09::Column<float>>, Async<step10::Lean<float>>,
                              Async<step09::Column<double>>, Async<step10::Lean<double>>>(
                      "async",
                      "step 11's cp.async copies (a thread's instruction a vector or an "
                      "element), for the comparison in one run"),
                  80, "cp.async"),
        tt::variant<Vec<step09::Column<float>>, Lines<step13::Lines<float>>,
                    Vec<step10::Lean<float>>, Vec<step09::Column<double>>,
                    Lines<step13::Lines<double>>, Vec<step10::Lean<double>>>(
            "lines", "step 13's kernels as they are, for the comparison in one run"),
    };
    st.default_variant = "all";
    st.headline = "tma";
    return st;
  }();
  return s;
}

}  // namespace step14
