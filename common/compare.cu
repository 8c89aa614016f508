/// @file compare.cu
/// @brief count_different_words: a grid-stride comparison of two buffers, word by word.
#include "compare.hpp"

#include <algorithm>

#include "device_buffer.hpp"
#include "error.hpp"

namespace tt {
namespace {

__global__ void count_different(const std::uint32_t* a, const std::uint32_t* b, std::size_t words,
                                unsigned long long* count) {
  unsigned long long mine = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words;
       i += stride)
    mine += a[i] != b[i];
  for (int offset = 16; offset > 0; offset /= 2)
    mine += __shfl_down_sync(0xffffffffu, mine, offset);
  if (threadIdx.x % 32 == 0 && mine != 0) atomicAdd(count, mine);
}

}  // namespace

std::uint64_t count_different_words(const void* a, const void* b, std::size_t bytes,
                                    cudaStream_t stream) {
  if (bytes % 4 != 0 || reinterpret_cast<std::uintptr_t>(a) % 4 != 0 ||
      reinterpret_cast<std::uintptr_t>(b) % 4 != 0)
    throw UsageError("count_different_words: buffers must be whole, aligned 4-byte words");
  DeviceBuffer<unsigned long long> count(1);
  TT_CUDA_CHECK(cudaMemsetAsync(count.get(), 0, count.bytes(), stream));
  const std::size_t words = bytes / 4;
  constexpr int kThreads = 256;
  const std::size_t wanted = (words + kThreads - 1) / kThreads;
  const auto blocks = static_cast<unsigned>(std::clamp<std::size_t>(wanted, 1, 4096));
  count_different<<<blocks, kThreads, 0, stream>>>(static_cast<const std::uint32_t*>(a),
                                                   static_cast<const std::uint32_t*>(b), words,
                                                   count.get());
  TT_CHECK_LAUNCH();
  unsigned long long host = 0;
  TT_CUDA_CHECK(cudaMemcpyAsync(&host, count.get(), sizeof host, cudaMemcpyDeviceToHost, stream));
  TT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

}  // namespace tt
