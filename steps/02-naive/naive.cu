// Step 02: the naive transpose, one thread per element.
//
// What changed since 01: the threads now do work. A 2D grid of 2D blocks covers the matrix,
// and each thread moves one element from in(row, col) to out(col, row).
//
// How the course writes a kernel: each thread makes *moves*. A move says whether the
// thread's element is inside the matrix, where it is in global memory, and (from step 03 on)
// where it sits in the shared-memory tile. The two move functions of a work description,
// load() and store(), hold all the index arithmetic; the kernel is a few lines that call
// them. The same functions feed --explain (the analyser), the CPU emulation in the tests and
// the launch, so the prediction and the kernel cannot disagree.
//
// What to look for: a transpose cannot be coalesced on both sides at once with one thread
// per element. A warp is 32 threads with consecutive threadIdx.x. If x runs along the input's
// columns, the warp reads 32 neighbours of one input row (4 sectors of 32 bytes for float),
// and writes them down one output column, 32 elements apart: 32 sectors. Swap the roles of
// x and y and the strided side moves from the writes to the reads. Both variants are here.
//
// Expected effect: the strided side touches 8 times the sectors it uses, so both variants
// sit far under the copy. Which one wins, and why the caches make the difference, is a
// measurement: the chapter (docs/02-naive.md) shows it.
//
// Run:   02-naive                                   # 8192 x 8192 float, default variant
//        02-naive --variant all --block 16x16       # both variants, another block shape
//        02-naive --explain                         # sectors per request, no GPU needed

#include "02-naive/naive.hpp"

#include "tiled.hpp"

namespace step02 {

using tt::Coord;

// --- The work: which element each thread moves. -----------------------------------------

/// The element a thread owns, in the matrix whose rows it walks along with threadIdx.x.
TT_HD inline Coord element_of(const tt::Thread& me) {
  return {static_cast<int>(me.block.y * me.block_dim.y + me.thread.y),
          static_cast<int>(me.block.x * me.block_dim.x + me.thread.x)};
}

/// Coalesced reads, strided writes: the threads walk the input (rows x cols); element e goes
/// from in(e.row, e.col) to out(e.col, e.row), down an output column.
template <typename T>
struct ReadRows : tt::Work<T> {
  static tt::Launch launch(const tt::Problem& pb) {
    const dim3 b = pb.required_block();
    return {dim3(static_cast<unsigned>(tt::ceil_div(pb.shape.cols, b.x)),
                 static_cast<unsigned>(tt::ceil_div(pb.shape.rows, b.y))),
            b};
  }
  TT_HD static tt::Move<> load(const tt::Thread& me, int /*pass*/, int rows, int cols) {
    const Coord e = element_of(me);
    return {tt::inside(e, rows, cols), tt::offset(e.row, e.col, cols), 0};
  }
  TT_HD static tt::Move<> store(const tt::Thread& me, int /*pass*/, int rows, int cols) {
    const Coord e = element_of(me);
    return {tt::inside(e, rows, cols), tt::offset(e.col, e.row, rows), 0};
  }
};

/// Coalesced writes, strided reads: the threads walk the output (cols x rows); element e of
/// the output comes from in(e.col, e.row), down an input column.
template <typename T>
struct WriteRows : tt::Work<T> {
  static tt::Launch launch(const tt::Problem& pb) {
    const dim3 b = pb.required_block();
    return {dim3(static_cast<unsigned>(tt::ceil_div(pb.shape.rows, b.x)),
                 static_cast<unsigned>(tt::ceil_div(pb.shape.cols, b.y))),
            b};
  }
  // LAB BEGIN 02-naive
  TT_HD static tt::Move<> load(const tt::Thread& me, int /*pass*/, int rows, int cols) {
    const Coord e = element_of(me);
    return {tt::inside(e, cols, rows), tt::offset(e.col, e.row, cols), 0};
  }
  TT_HD static tt::Move<> store(const tt::Thread& me, int /*pass*/, int rows, int cols) {
    const Coord e = element_of(me);
    return {tt::inside(e, cols, rows), tt::offset(e.row, e.col, rows), 0};
  }
  // LAB END
};

// --- The kernel: one move in, one move out. ----------------------------------------------

template <class W>
__global__ void transpose_naive(const tt::Elem<W>* __restrict__ in, tt::Elem<W>* __restrict__ out,
                                int rows, int cols) {
  const tt::Thread me = tt::this_thread();
  const tt::Move<> load = W::load(me, 0, rows, cols);    // the element this thread reads
  const tt::Move<> store = W::store(me, 0, rows, cols);  // and where it writes it
  if (load.inside) out[store.global] = in[load.global];  // (store.inside == load.inside)
}

// --- The variants the program offers. ----------------------------------------------------

template <template <typename> class W>
tt::Variant variant(const char* name, const char* summary) {
  return tt::variant<tt::Path<W<float>, transpose_naive<W<float>>>,
                     tt::Path<W<double>, transpose_naive<W<double>>>>(name, summary);
}

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "02-naive";
    st.title = "Naive transpose: one thread per element, one side coalesced";
    st.variants = {
        variant<ReadRows>("read-coalesced",
                          "warps read along input rows (4 sectors) and write down columns"),
        variant<WriteRows>("write-coalesced",
                           "warps read down input columns and write along output rows"),
    };
    st.default_variant = "write-coalesced";
    st.takes_block = true;
    st.default_block = {32, 8};
    return st;
  }();
  return s;
}

}  // namespace step02
