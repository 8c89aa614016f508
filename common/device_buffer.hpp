/// @file device_buffer.hpp
/// @brief An owning device allocation, freed on every path (errors included).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "error.hpp"

namespace tt {

/// Owns @c count elements of device memory; move-only.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// Allocates @p count elements; throws CudaError (cudaErrorMemoryAllocation) on failure.
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    TT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes()));
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  /// Takes over the allocation of @p o, which is left empty.
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  /// Exchanges allocations with @p o; this buffer's old allocation is freed with @p o.
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }

  T* get() const { return ptr_; }                           ///< Device pointer.
  std::size_t size() const { return count_; }               ///< Elements.
  std::size_t bytes() const { return count_ * sizeof(T); }  ///< Bytes.

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace tt
