// Test-only kernels with one mistake each (see broken_kernels.hpp). One thread per element,
// each thread reads in(r, c) and writes out(c, r) unless its mistake says otherwise; no
// thread reads or writes outside the matrices, so the sanitizers stay quiet and only the
// verifier can tell.
#include "broken_kernels.hpp"

namespace broken {
namespace {

/// Input position (r, c) of the calling thread.
__device__ inline tt::Coord position() {
  return {static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y),
          static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x)};
}

template <typename T>
__global__ void correct(const T* in, T* out, int rows, int cols) {
  const tt::Coord e = position();
  if (!tt::inside(e, rows, cols)) return;
  out[tt::offset(e.col, e.row, rows)] = in[tt::offset(e.row, e.col, cols)];
}

/// out(target) = 0, which no input element holds.
template <typename T>
__global__ void one_wrong(const T* in, T* out, int rows, int cols, tt::Coord target) {
  const tt::Coord e = position();
  if (!tt::inside(e, rows, cols)) return;
  const bool hit = e.col == target.row && e.row == target.col;
  out[tt::offset(e.col, e.row, rows)] = hit ? T(0) : in[tt::offset(e.row, e.col, cols)];
}

/// out(target) is never written.
template <typename T>
__global__ void one_unwritten(const T* in, T* out, int rows, int cols, tt::Coord target) {
  const tt::Coord e = position();
  if (!tt::inside(e, rows, cols)) return;
  if (e.col == target.row && e.row == target.col) return;
  out[tt::offset(e.col, e.row, rows)] = in[tt::offset(e.row, e.col, cols)];
}

/// Output row target.row holds out(row, c) = in((c + 1) % rows, row): shifted by one.
template <typename T>
__global__ void row_shifted(const T* in, T* out, int rows, int cols, tt::Coord target) {
  const tt::Coord e = position();
  if (!tt::inside(e, rows, cols)) return;
  const int src_row = e.col == target.row ? (e.row + 1) % rows : e.row;
  out[tt::offset(e.col, e.row, rows)] = in[tt::offset(src_row, e.col, cols)];
}

template <typename T>
void run_correct(const tt::LaunchPlan& p, const T* in, T* out, tt::Shape s, cudaStream_t st) {
  correct<T>
      <<<p.grid, p.block, 0, st>>>(in, out, static_cast<int>(s.rows), static_cast<int>(s.cols));
}
template <typename T>
void run_one_wrong(const tt::LaunchPlan& p, const T* in, T* out, tt::Shape s, cudaStream_t st) {
  one_wrong<T><<<p.grid, p.block, 0, st>>>(in, out, static_cast<int>(s.rows),
                                           static_cast<int>(s.cols), target(s));
}
template <typename T>
void run_one_unwritten(const tt::LaunchPlan& p, const T* in, T* out, tt::Shape s, cudaStream_t st) {
  one_unwritten<T><<<p.grid, p.block, 0, st>>>(in, out, static_cast<int>(s.rows),
                                               static_cast<int>(s.cols), target(s));
}
template <typename T>
void run_row_shifted(const tt::LaunchPlan& p, const T* in, T* out, tt::Shape s, cudaStream_t st) {
  row_shifted<T><<<p.grid, p.block, 0, st>>>(in, out, static_cast<int>(s.rows),
                                             static_cast<int>(s.cols), target(s));
}

/// 32 x 8 threads a block, the grid over the input. No access list: these kernels are not
/// for the analyser.
tt::LaunchPlan plan(const tt::Problem& pb) {
  tt::LaunchPlan p;
  p.block = dim3(32, 8);
  p.grid = dim3(static_cast<unsigned>(tt::ceil_div(pb.shape.cols, 32)),
                static_cast<unsigned>(tt::ceil_div(pb.shape.rows, 8)));
  return p;
}

}  // namespace

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "broken";
    st.title = "test-only kernels with one deliberate mistake each";
    st.variants = {
        {"correct",
         "the unbroken control",
         tt::Expect::transpose,
         plan,
         run_correct<float>,
         run_correct<double>,
         {},
         {}},
        {"one-wrong",
         "one output element holds 0",
         tt::Expect::transpose,
         plan,
         run_one_wrong<float>,
         run_one_wrong<double>,
         {},
         {}},
        {"one-unwritten",
         "one output element is never written",
         tt::Expect::transpose,
         plan,
         run_one_unwritten<float>,
         run_one_unwritten<double>,
         {},
         {}},
        {"row-shifted",
         "one output row is shifted by one element",
         tt::Expect::transpose,
         plan,
         run_row_shifted<float>,
         run_row_shifted<double>,
         {},
         {}},
    };
    st.default_variant = "correct";
    return st;
  }();
  return s;
}

}  // namespace broken
