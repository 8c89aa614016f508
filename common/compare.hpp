/// @file compare.hpp
/// @brief Bit-for-bit comparison of two device buffers, on the device.
///
/// The runner keeps the CPU reference's result on the device and compares each kernel's
/// output with it there: copying every output back to the host to compare it costs more than
/// the timed runs themselves at the large sizes (about a second for 2 GB over PCIe). An output
/// that differs is still copied back and compared on the CPU, which says where and how.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace tt {

/// How many of the 4-byte words of @p a and @p b (device pointers, @p bytes each, a multiple
/// of 4, both 4-byte aligned) differ. Runs on @p stream and waits for the result.
std::uint64_t count_different_words(const void* a, const void* b, std::size_t bytes,
                                    cudaStream_t stream = nullptr);

}  // namespace tt
