#include "device.hpp"

#include <cuda_runtime_api.h>

#include <iomanip>
#include <sstream>

#include "error.hpp"

namespace tt {

double peak_bandwidth_gbps(int memory_clock_khz, int bus_width_bits) {
  return static_cast<double>(memory_clock_khz) * 1e3 * bus_width_bits / 8.0 * 2.0 / 1e9;
}

int require_devices() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) {
    cudaGetLastError();
    throw NoDeviceError(
        "no CUDA device found. This program times kernels on a GPU; on a machine without one, "
        "the step programs' --explain shows the access analysis, which needs no GPU.");
  }
  if (e != cudaSuccess) {
    cudaGetLastError();
    std::ostringstream os;
    os << "no usable CUDA device: cudaGetDeviceCount failed with " << cudaGetErrorName(e) << " ("
       << cudaGetErrorString(e)
       << "). Either this machine has no NVIDIA GPU and driver, or its driver is older than "
          "this CUDA runtime needs (nvidia-smi shows the driver's CUDA version). Without a "
          "GPU, the step programs' --explain still shows the access analysis.";
    throw NoDeviceError(os.str());
  }
  return count;
}

DeviceInfo select_device(int index) {
  const int count = require_devices();
  if (index < 0 || index >= count) {
    std::ostringstream os;
    os << "--device " << index << " does not exist: this machine has " << count << " CUDA device"
       << (count == 1 ? "" : "s") << " (0 to " << count - 1 << ")";
    throw UsageError(os.str());
  }
  TT_CUDA_CHECK(cudaSetDevice(index));
  cudaDeviceProp p{};
  TT_CUDA_CHECK(cudaGetDeviceProperties(&p, index));
  DeviceInfo d;
  d.index = index;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
  d.global_bytes = p.totalGlobalMem;
  d.bus_width_bits = p.memoryBusWidth;
  TT_CUDA_CHECK(cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, index));
  d.max_threads_per_block = p.maxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) {
    d.max_block_dim[i] = p.maxThreadsDim[i];
    d.max_grid_dim[i] = p.maxGridSize[i];
  }
  d.shared_per_block = p.sharedMemPerBlock;
  TT_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  TT_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  return d;
}

std::size_t free_device_memory() {
  std::size_t free_bytes = 0, total = 0;
  TT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

std::string cuda_version_string(int v) {
  std::ostringstream os;
  os << v / 1000 << "." << (v % 1000) / 10;
  return os.str();
}

std::string describe(const DeviceInfo& d) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1);
  os << "Device " << d.index << ": " << d.name << ", compute capability " << d.cc_major << "."
     << d.cc_minor << ", " << d.sm_count << " SMs, L2 " << d.l2_bytes / 1e6 << " MB, memory "
     << d.global_bytes / 1e9 << " GB, CUDA runtime " << cuda_version_string(d.runtime_version)
     << " (driver supports " << cuda_version_string(d.driver_version) << ")\n";
  os << std::setprecision(0);
  os << "Theoretical peak: " << d.memory_clock_khz << " kHz x " << d.bus_width_bits
     << " bit / 8 x 2 (DDR) = " << peak_bandwidth_gbps(d.memory_clock_khz, d.bus_width_bits)
     << " GB/s (decimal)";
  return os.str();
}

}  // namespace tt
