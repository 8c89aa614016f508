/// @file error.hpp
/// @brief Exit codes, the exceptions the harness throws, and the CUDA error-checking macros.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace tt {

/// Exit status of every program of the tutorial. Each failure has its own code so that a
/// script (or a test) can tell a wrong answer from a typo from a missing GPU.
enum ExitCode : int {
  kExitOk = 0,             ///< Ran and every result verified.
  kExitVerifyFailed = 1,   ///< A kernel produced a wrong or incomplete transpose.
  kExitUsage = 2,          ///< Bad command line or a problem that cannot fit: nothing ran.
  kExitNoDevice = 3,       ///< No usable CUDA device or driver.
  kExitCudaError = 4,      ///< A CUDA call or kernel launch failed.
  kExitOutOfMemory = 5,    ///< An allocation failed (device or host).
  kExitNeedsNewerGpu = 6,  ///< Every variant that ran verified; one or more need a newer GPU.
};

/// Bad input detected before any kernel runs (maps to kExitUsage).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// No CUDA device, or the driver cannot be used (maps to kExitNoDevice).
class NoDeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A failed CUDA runtime call, with the expression, file and line that made it.
class CudaError : public std::runtime_error {
 public:
  /// An error for CUDA status @p code; @p message is what what() returns.
  CudaError(cudaError_t code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  /// The CUDA error code.
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

/// Builds and throws a CudaError for @p code raised by @p expr at line @p line of @p file.
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line);

}  // namespace tt

/// Checks a CUDA runtime call; throws tt::CudaError naming the call, file and line.
#define TT_CUDA_CHECK(expr)                                       \
  do {                                                            \
    const cudaError_t tt_err_ = (expr);                           \
    if (tt_err_ != cudaSuccess) {                                 \
      ::tt::throw_cuda_error(tt_err_, #expr, __FILE__, __LINE__); \
    }                                                             \
  } while (0)

/// Checks the launch that was just made (bad configuration shows up here, at once).
#define TT_CHECK_LAUNCH() TT_CUDA_CHECK(cudaGetLastError())
