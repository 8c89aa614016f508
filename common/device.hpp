/// @file device.hpp
/// @brief Device selection and the device report (name, SMs, L2, theoretical peak bandwidth).
#pragma once

#include <cstddef>
#include <string>

namespace tt {

/// What the tutorial needs to know about a GPU.
struct DeviceInfo {
  int index = 0;     ///< CUDA device index.
  std::string name;  ///< e.g. "NVIDIA H100 80GB HBM3".
  /// Compute capability, major number (9 for sm_90).
  int cc_major = 0, cc_minor = 0;    ///< Compute capability, minor number.
  int sm_count = 0;                  ///< Streaming multiprocessors.
  std::size_t l2_bytes = 0;          ///< L2 cache size.
  std::size_t global_bytes = 0;      ///< Device memory.
  int memory_clock_khz = 0;          ///< Peak memory clock (kHz).
  int bus_width_bits = 0;            ///< Memory bus width (bits).
  int max_threads_per_block = 0;     ///< Threads per block limit.
  int max_block_dim[3] = {0, 0, 0};  ///< Block dimension limits.
  int max_grid_dim[3] = {0, 0, 0};   ///< Grid dimension limits.
  std::size_t shared_per_block = 0;  ///< Static shared memory per block (bytes).
  int runtime_version = 0;           ///< CUDA runtime version (e.g. 13000).
  int driver_version = 0;            ///< Latest CUDA version the driver supports.
};

/// Theoretical peak DRAM bandwidth in decimal GB/s:
/// memory clock (kHz) x 1000 x bus width (bits) / 8 x 2 (double data rate) / 1e9.
double peak_bandwidth_gbps(int memory_clock_khz, int bus_width_bits);

/// Number of usable CUDA devices. Throws NoDeviceError with a readable reason when there
/// is no device or the driver cannot be loaded.
int require_devices();

/// Makes device @p index current and reads its properties. Throws UsageError when the
/// index does not exist, NoDeviceError when there is no device at all.
DeviceInfo select_device(int index);

/// Free device memory on the current device, in bytes.
std::size_t free_device_memory();

/// One paragraph: name, compute capability, SMs, L2, memory, peak and its formula.
std::string describe(const DeviceInfo& d);

/// "13.0" style version string from a CUDA version number such as 13000.
std::string cuda_version_string(int version);

}  // namespace tt
