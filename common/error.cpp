#include "error.hpp"

#include <sstream>

namespace tt {

void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  // A failed runtime call also leaves its error as the "last error"; consume it, so that the
  // next cudaGetLastError() (the launch check) does not report this failure a second time.
  cudaGetLastError();
  // Keep only the file name: the message is for a person, not for a build directory.
  std::string where = file;
  const auto slash = where.find_last_of('/');
  if (slash != std::string::npos) where = where.substr(slash + 1);
  std::ostringstream os;
  os << "CUDA error " << cudaGetErrorName(code) << " (" << cudaGetErrorString(code) << ") in "
     << expr << " at " << where << ":" << line;
  throw CudaError(code, os.str());
}

}  // namespace tt
