/// @file timing.hpp
/// @brief Timing with CUDA events (warm-up, many samples, median) and bandwidth arithmetic.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace tt {

/// Median, minimum and maximum of a set of samples, in milliseconds.
struct Stats {
  /// Median of the samples.
  double median_ms = 0;
  /// Fastest sample.
  double min_ms = 0;
  /// Slowest sample.
  double max_ms = 0;
  /// Number of samples.
  int samples = 0;
};

/// Median (mean of the two middle values for an even count), min and max of @p ms.
/// Throws std::invalid_argument on an empty set.
Stats summarize(std::vector<double> ms);

/// Effective bandwidth of a transpose or copy in decimal GB/s:
/// bytes read + bytes written = 2 x elements x element size, over the time.
double effective_gbps(std::int64_t elements, std::size_t elem_bytes, double ms);

/// Runs @p launch @p warmup times, then @p reps times with a CUDA event pair around each
/// launch on @p stream, and summarizes the per-launch times. Checks every CUDA call.
Stats time_launches(const std::function<void()>& launch, int warmup, int reps, cudaStream_t stream);

}  // namespace tt
