// Step 02: the naive transpose, one thread per element.
//
// What changed since 01: the threads now do work. A 2D grid of 2D blocks covers the matrix,
// and each thread moves one element from in(row, col) to out(col, row).
//
// What to look for: a transpose cannot be coalesced on both sides at once with one thread
// per element. A warp is 32 threads with consecutive threadIdx.x. If x runs along the input's
// columns, the warp reads 32 neighbours of one input row (4 sectors of 32 bytes for float),
// and writes them down one output column, 32 elements apart: 32 sectors. Swap the roles of
// x and y and the strided side moves from the writes to the reads. Both variants are here.
//
// Expected effect: the strided side touches 8 times the sectors it uses, so both variants
// sit far under the copy. On an H100 the faster one (write-coalesced) reaches about half of
// it, the other about a sixth; which variant wins, and why the caches make the difference,
// is a measurement: the chapter (docs/02-naive.md) shows it.
//
// Run:   02-naive                                   # 8192 x 8192 float, default variant
//        02-naive --variant all --block 16x16       # both variants, another block shape
//        02-naive --explain                         # sectors per request, no GPU needed

#include "02-naive/naive.hpp"

#include "types.hpp"

namespace step02 {

using tt::Coord;

// --- Index arithmetic: the kernels call these, and so does --explain. -------------------

/// The element a thread owns, in the matrix whose rows it walks along with threadIdx.x.
TT_HD inline Coord element_of(uint3 block, uint3 thread, dim3 block_dim) {
  return {static_cast<int>(block.y * block_dim.y + thread.y),
          static_cast<int>(block.x * block_dim.x + thread.x)};
}

// --- The kernels. -----------------------------------------------------------------------

/// Coalesced reads, strided writes: e is a position in the input (rows x cols).
template <typename T>
__global__ void transpose_read_coalesced(const T* __restrict__ in, T* __restrict__ out, int rows,
                                         int cols) {
  const Coord e = element_of(blockIdx, threadIdx, blockDim);
  if (tt::inside(e, rows, cols)) {
    out[tt::offset(e.col, e.row, rows)] = in[tt::offset(e.row, e.col, cols)];
  }
}

/// Coalesced writes, strided reads: e is a position in the output (cols x rows).
template <typename T>
__global__ void transpose_write_coalesced(const T* __restrict__ in, T* __restrict__ out, int rows,
                                          int cols) {
  const Coord e = element_of(blockIdx, threadIdx, blockDim);
  if (tt::inside(e, cols, rows)) {
    out[tt::offset(e.row, e.col, rows)] = in[tt::offset(e.col, e.row, cols)];
  }
}

// --- Launchers and the description the harness reads. ----------------------------------

template <typename T>
void run_read_coalesced(const tt::LaunchPlan& p, const T* in, T* out, tt::Shape s,
                        cudaStream_t stream) {
  transpose_read_coalesced<T>
      <<<p.grid, p.block, 0, stream>>>(in, out, static_cast<int>(s.rows), static_cast<int>(s.cols));
}

template <typename T>
void run_write_coalesced(const tt::LaunchPlan& p, const T* in, T* out, tt::Shape s,
                         cudaStream_t stream) {
  transpose_write_coalesced<T>
      <<<p.grid, p.block, 0, stream>>>(in, out, static_cast<int>(s.rows), static_cast<int>(s.cols));
}

/// Launch plan and accesses. @p reads_rows: the read-coalesced variant (threads walk the
/// input); otherwise threads walk the output.
tt::LaunchPlan plan(const tt::Problem& pb, bool reads_rows) {
  const int rows = static_cast<int>(pb.shape.rows), cols = static_cast<int>(pb.shape.cols);
  const auto size = static_cast<std::int64_t>(tt::dtype_size(pb.dtype));
  const tt::BlockShape b = pb.block.value_or(tt::BlockShape{32, 8});
  tt::LaunchPlan p;
  p.block = dim3(b.x, b.y);
  // The grid covers the matrix the threads walk: the input, or the (cols x rows) output.
  const int walk_rows = reads_rows ? rows : cols, walk_cols = reads_rows ? cols : rows;
  p.grid = dim3(static_cast<unsigned>(tt::ceil_div(walk_cols, b.x)),
                static_cast<unsigned>(tt::ceil_div(walk_rows, b.y)));
  const dim3 bd = p.block;
  const auto in_addr = [=](const tt::ThreadPos& t) -> std::optional<std::int64_t> {
    const Coord e = element_of(t.block, t.thread, bd);
    if (!tt::inside(e, walk_rows, walk_cols)) return std::nullopt;
    return (reads_rows ? tt::offset(e.row, e.col, cols) : tt::offset(e.col, e.row, cols)) * size;
  };
  const auto out_addr = [=](const tt::ThreadPos& t) -> std::optional<std::int64_t> {
    const Coord e = element_of(t.block, t.thread, bd);
    if (!tt::inside(e, walk_rows, walk_cols)) return std::nullopt;
    return (reads_rows ? tt::offset(e.col, e.row, rows) : tt::offset(e.row, e.col, rows)) * size;
  };
  [[maybe_unused]] const int w = static_cast<int>(size);
  p.accesses = {
      {reads_rows ? "in[offset(e.row, e.col, cols)]" : "in[offset(e.col, e.row, cols)]",
       tt::Space::global, tt::Op::load, w, 1, in_addr},
      {reads_rows ? "out[offset(e.col, e.row, rows)]" : "out[offset(e.row, e.col, rows)]",
       tt::Space::global, tt::Op::store, w, 1, out_addr},
  };
  return p;
}

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "02-naive";
    st.title = "Naive transpose: one thread per element, one side coalesced";
    st.variants = {
        {"read-coalesced", "warps read along input rows (4 sectors) and write down columns",
         tt::Expect::transpose, [](const tt::Problem& pb) { return plan(pb, true); },
         run_read_coalesced<float>, run_read_coalesced<double>},
        {"write-coalesced", "warps read down input columns and write along output rows",
         tt::Expect::transpose, [](const tt::Problem& pb) { return plan(pb, false); },
         run_write_coalesced<float>, run_write_coalesced<double>},
    };
    st.default_variant = "write-coalesced";
    st.takes_block = true;
    st.default_block = {32, 8};
    return st;
  }();
  return s;
}

}  // namespace step02
