// Step 18's own kernels. The nccl variant's transpose is not here: it is the course's best
// single-GPU kernel, called on a GPU's slab as on any matrix (all_to_all.cpp). Every offset is
// 64 bits: a GPU's part, and the whole matrix, may pass 2^31 and 2^32 elements.
#include <algorithm>
#include <cstdint>

#include "18-all-to-all/kernels.hpp"
#include "error.hpp"

namespace step18 {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kMaxGridYZ = 65535;  // the most blocks a grid has in y or z

// Element k of a slab whose first element is input element `first` (row-major index).
template <typename T>
__global__ void fill_kernel(T* in, std::int64_t first, std::int64_t count) {
  const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count; k += step)
    in[k] = element<T>(first + k);
}

// The placing pass: the block received from GPU `from` (z of the grid) is out.count(q) rows of
// in.count(from) elements, one after the other; it goes to columns in.first(from) on of the
// output's rows (Plan::place). Thread x of the grid copies element x of rows y, y + gridDim.y,
// and so on: a warp reads 32 consecutive elements of a row and writes 32 consecutive ones.
template <typename T>
__global__ void place_kernel(const T* __restrict__ recv, T* __restrict__ out, Plan plan, int q) {
  const std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  for (int from = blockIdx.z; from < plan.gpus(); from += gridDim.z) {
    const Copy2D c = plan.place(q, from);
    if (j >= c.cols) continue;
    for (std::int64_t i = blockIdx.y; i < c.rows; i += gridDim.y)
      out[c.to + i * c.to_pitch + j] = recv[c.from + i * c.from_pitch + j];
  }
}

// The peer variant: GPU p transposes its slab in 32 x 32 tiles through shared memory (step 04's
// tile), and each tile row it writes goes straight to the GPU that owns that output row, over
// NVLink where that is another GPU. Where in the owner's memory: Plan::peer_row, computed
// once a tile for each of its 32 output rows (it divides), not for each element. A warp writes
// 32 consecutive elements of one output row, on one GPU. 32 x 8 threads, 4 elements a tile each.
//
// Block (x, y) takes the tile row x and the tile columns y, y + gridDim.y, ...: in column order
// (step 15), since the GPU starts the blocks x first. The blocks that run together go down a
// column of tiles and write runs of the same 32 output rows, so that the far GPU's memory
// pages are met a few at a time. In row order they would write 128 bytes in each of thousands
// of output rows at once, pages all over the far GPU's memory.
constexpr int kTile = 32;
template <typename T>
__global__ void transpose_to_owners_kernel(const T* __restrict__ in, T* const* outs, Plan plan,
                                           int p) {
  __shared__ T tile[kTile][kTile + 1];  // + 1: a tile column falls in 32 different banks
  __shared__ T* row[kTile];             // output row c0 + k, where slab row 0 goes in it
  const std::int64_t rows = plan.in.count(p), cols = plan.cols();
  const std::int64_t r0 = blockIdx.x * std::int64_t(kTile);
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (std::int64_t c0 = blockIdx.y * std::int64_t(kTile); c0 < cols;
       c0 += gridDim.y * std::int64_t(kTile)) {
    if (ty == 0 && c0 + tx < cols) {
      const Target t = plan.peer_row(p, c0 + tx);
      row[tx] = outs[t.gpu] + t.offset;
    }
    for (int k = ty; k < kTile; k += blockDim.y)  // input row r0 + k, column c0 + tx
      if (r0 + k < rows && c0 + tx < cols) tile[k][tx] = in[(r0 + k) * cols + c0 + tx];
    __syncthreads();
    for (int k = ty; k < kTile; k += blockDim.y)  // output row c0 + k, slab row r0 + tx
      if (c0 + k < cols && r0 + tx < rows) row[k][r0 + tx] = tile[tx][k];
    __syncthreads();  // the tile and the rows are read before the next columns overwrite them
  }
}

unsigned at_most(std::int64_t n, unsigned cap) {
  return static_cast<unsigned>(std::min<std::int64_t>(n, cap));
}

}  // namespace

template <typename T>
void fill(T* in, const Plan& plan, int p, cudaStream_t stream) {
  const std::int64_t n = plan.slab(p);
  if (n == 0) return;
  fill_kernel<<<at_most((n + kThreads - 1) / kThreads, 4 * kMaxGridYZ), kThreads, 0, stream>>>(
      in, plan.in.first(p) * plan.cols(), n);
  TT_CHECK_LAUNCH();
}

template <typename T>
void place(const T* recv, T* out, const Plan& plan, int q, cudaStream_t stream) {
  const std::int64_t widest = plan.in.count(0);  // the first GPUs hold the most rows
  if (plan.output(q) == 0) return;
  const dim3 grid(static_cast<unsigned>((widest + kThreads - 1) / kThreads),
                  at_most(plan.out.count(q), kMaxGridYZ), at_most(plan.gpus(), kMaxGridYZ));
  place_kernel<<<grid, kThreads, 0, stream>>>(recv, out, plan, q);
  TT_CHECK_LAUNCH();
}

template <typename T>
void transpose_to_owners(const T* in, T* const* outs, const Plan& plan, int p,
                         cudaStream_t stream) {
  if (plan.slab(p) == 0) return;
  const dim3 grid(static_cast<unsigned>((plan.in.count(p) + kTile - 1) / kTile),
                  at_most((plan.cols() + kTile - 1) / kTile, kMaxGridYZ));
  transpose_to_owners_kernel<<<grid, dim3(kTile, 8), 0, stream>>>(in, outs, plan, p);
  TT_CHECK_LAUNCH();
}

template void fill(float*, const Plan&, int, cudaStream_t);
template void fill(double*, const Plan&, int, cudaStream_t);
template void place(const float*, float*, const Plan&, int, cudaStream_t);
template void place(const double*, double*, const Plan&, int, cudaStream_t);
template void transpose_to_owners(const float*, float* const*, const Plan&, int, cudaStream_t);
template void transpose_to_owners(const double*, double* const*, const Plan&, int, cudaStream_t);

}  // namespace step18
