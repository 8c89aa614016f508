// Step 11: loads that skip the registers.
//
// What changed since 10: the load phase (async_copy.cuh). Steps 05 to 10 load every element
// into a register, then store the register into the tile: a thread keeps as many loads in
// flight as it has registers to hold them, and each element costs two instructions on the way
// in. Since compute capability 8.0 one instruction, cp.async (LDGSTS), copies from global
// memory straight into a shared-memory slot; the thread waits once for all of its copies, and
// the barrier then makes every thread's copies visible, as it made their stores visible. The
// moves, and so every sector and bank count, are step 10's: only the registers and the
// instructions change. Variant `tall` spends what cp.async saves: tiles twice as tall, 17
// copies a thread in flight with no register for any, so that 8 of every 136 rows a block
// reads are read twice instead of 8 of every 72.
//
// The kernel is async_copy.cuh's transpose_async (step 06's with that load phase); the tiles
// are step 10's (10-invariants/invariants.cuh) and, where output rows are whole sectors, step
// 08's column kernel's (09-alignment/alignment.cuh).
//
// Expected effect: see docs/11-async-copy.md.
//
// Run:   11-async-copy --rows 4099 --cols 8191
//        11-async-copy --rows 4099 --cols 8191 --variant async,registers

#include "11-async-copy/async_copy.hpp"

#include "06-float4/float4.cuh"
#include "09-alignment/alignment.cuh"
#include "10-invariants/invariants.cuh"
#include "11-async-copy/async_copy.cuh"

namespace step11 {

/// Work W with its tile filled by cp.async.
template <class W>
using Async = tt::Path<W, transpose_async<W>, void, true>;
/// Work W with its tile filled through registers: step 10's kernel.
template <class W>
using Registers = tt::Path<W, step06::transpose_vec<W>>;

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "11-async-copy";
    st.title = "Loads that skip the registers: each move one cp.async into its tile slot";
    st.variants = {
        tt::needs(tt::variant<Async<step09::Column<float>>, Async<step10::Lean<float>>,
                              Async<step09::Column<double>>, Async<step10::Lean<double>>>(
                      "async",
                      "step 10's kernels, each tile filled by cp.async: 16-byte copies where "
                      "output rows are whole sectors, else one element a copy"),
                  80, "cp.async"),
        tt::needs(tt::variant<Async<step10::Lean<float>>, Async<step10::Lean<double>>>(
                      "async-only", "always step 10's skewed tiles, filled by cp.async"),
                  80, "cp.async"),
        tt::needs(tt::variant<Async<Tall<float>>>(
                      "tall",
                      "skewed tiles of 136 x 64 (128 output elements a row), 17 cp.async a "
                      "thread; float only"),
                  80, "cp.async"),
        tt::variant<Registers<step09::Column<float>>, Registers<step10::Lean<float>>,
                    Registers<step09::Column<double>>, Registers<step10::Lean<double>>>(
            "registers",
            "step 10's lean kernels as they are (loads through registers), for "
            "the comparison in one run"),
    };
    st.default_variant = "all";
    st.headline = "async";
    return st;
  }();
  return s;
}

}  // namespace step11
