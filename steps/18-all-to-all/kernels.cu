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
constexpr unsigned kMaxGridYZ = 65535;      // the most blocks a grid has in y or z
constexpr unsigned kMaxGridX = 0x7fffffe0;  // and in x, a multiple of 32 (kBand)

// Element k of a slab whose first element is input element `first` (row-major index).
template <typename T>
__global__ void fill_kernel(T* in, std::int64_t first, std::int64_t count) {
  const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count; k += step)
    in[k] = element<T>(first + k);
}

// The placing pass: the block received from GPU `from` (z of the grid) is out.count(q) rows of
// in.count(from) elements, one after the other; it goes to columns in.first(from) on of the
// output's rows (Plan::place). Thread x of the grid copies element x of kPlaceRows rows at a
// time, its loads issued before its stores (step 05): a warp reads 32 consecutive elements of
// a row and writes 32 consecutive ones.
constexpr int kPlaceRows = 4;
template <typename T>
__global__ void place_kernel(const T* __restrict__ recv, T* __restrict__ out, Plan plan, int q) {
  const std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  for (int from = blockIdx.z; from < plan.gpus(); from += gridDim.z) {
    const Copy2D c = plan.place(q, from);
    if (j >= c.cols) continue;
    for (std::int64_t i = blockIdx.y * std::int64_t(kPlaceRows); i < c.rows;
         i += gridDim.y * std::int64_t(kPlaceRows)) {
      T v[kPlaceRows];
#pragma unroll
      for (int k = 0; k < kPlaceRows; ++k)
        if (i + k < c.rows) v[k] = recv[c.from + (i + k) * c.from_pitch + j];
#pragma unroll
      for (int k = 0; k < kPlaceRows; ++k)
        if (i + k < c.rows) out[c.to + (i + k) * c.to_pitch + j] = v[k];
    }
  }
}

// The peer variant: GPU p transposes its slab in 32 x 32 tiles through shared memory (step 04's
// tile), and each tile row it writes goes straight to the GPU that owns that output row, over
// NVLink where that is another GPU. Where in the owner's memory: Plan::peer_row, computed
// once a tile for each of its 32 output rows (it divides), not for each element. A warp writes
// 32 consecutive elements of one output row, on one GPU. 32 x 8 threads, 4 elements a tile
// each, the 4 loads issued before the first is used (step 05).
//
// Which tile a block takes: bands of kBand rows of tiles (y of the grid), and in a band (x),
// column after column, each from top to bottom; x is the dimension the GPU starts first in
// practice, and kBand a power of two, so the tile comes from a shift and a mask. The
// thousand-odd blocks that run together then cover about 32 x 32 tiles: about a thousand input
// rows and as many output rows, each met for 4 KB. In row order they would write 128 bytes in
// each of thousands of output rows, pages all over the far GPU's memory; in column order down
// the whole slab they would read 128 bytes in each of thousands of input rows, pages all over
// this GPU's memory, once the slab has that many rows.
constexpr int kTile = 32, kPassRows = 8, kBand = 32;
template <typename T>
__global__ void transpose_to_owners_kernel(const T* __restrict__ in, T* const* outs, Plan plan,
                                           int p) {
  __shared__ T tile[kTile][kTile + 1];  // + 1: a tile column falls in 32 different banks
  __shared__ T* row[kTile];             // output row c0 + k, where slab row 0 goes in it
  const std::int64_t rows = plan.in.count(p), cols = plan.cols();
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t bands = (rows + kBand * kTile - 1) / (kBand * kTile);
  const std::int64_t across = (cols + kTile - 1) / kTile * kBand;  // x of a whole band
  for (std::int64_t band = blockIdx.y; band < bands; band += gridDim.y)
    for (std::int64_t x = blockIdx.x; x < across; x += gridDim.x) {
      const std::int64_t r0 = (band * kBand + x % kBand) * kTile, c0 = x / kBand * kTile;
      if (r0 >= rows) continue;  // the last band is short
      if (ty == 0 && c0 + tx < cols) {
        const Target t = plan.peer_row(p, c0 + tx);
        row[tx] = outs[t.gpu] + t.offset;
      }
#pragma unroll
      for (int k = ty; k < kTile; k += kPassRows)  // input row r0 + k, column c0 + tx
        if (r0 + k < rows && c0 + tx < cols) tile[k][tx] = in[(r0 + k) * cols + c0 + tx];
      __syncthreads();
#pragma unroll
      for (int k = ty; k < kTile; k += kPassRows)  // output row c0 + k, slab row r0 + tx
        if (c0 + k < cols && r0 + tx < rows) row[k][r0 + tx] = tile[tx][k];
      __syncthreads();  // the tile and the rows are read before the next one overwrites them
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
                  at_most((plan.out.count(q) + kPlaceRows - 1) / kPlaceRows, kMaxGridYZ),
                  at_most(plan.gpus(), kMaxGridYZ));
  place_kernel<<<grid, kThreads, 0, stream>>>(recv, out, plan, q);
  TT_CHECK_LAUNCH();
}

template <typename T>
void transpose_to_owners(const T* in, T* const* outs, const Plan& plan, int p,
                         cudaStream_t stream) {
  if (plan.slab(p) == 0) return;
  const std::int64_t bands = (plan.in.count(p) + kBand * kTile - 1) / (kBand * kTile);
  const std::int64_t across = (plan.cols() + kTile - 1) / kTile * kBand;
  const dim3 grid(at_most(across, kMaxGridX), at_most(bands, kMaxGridYZ));
  transpose_to_owners_kernel<<<grid, dim3(kTile, kPassRows), 0, stream>>>(in, outs, plan, p);
  TT_CHECK_LAUNCH();
}

template void fill(float*, const Plan&, int, cudaStream_t);
template void fill(double*, const Plan&, int, cudaStream_t);
template void place(const float*, float*, const Plan&, int, cudaStream_t);
template void place(const double*, double*, const Plan&, int, cudaStream_t);
template void transpose_to_owners(const float*, float* const*, const Plan&, int, cudaStream_t);
template void transpose_to_owners(const double*, double* const*, const Plan&, int, cudaStream_t);

}  // namespace step18
