#include "types.hpp"

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace tt {

unsigned host_threads() {
  if (const char* set = std::getenv("TT_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(set, &end, 10);
    if (end != set && *end == '\0' && n >= 1 && n <= 4096) return static_cast<unsigned>(n);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

const char* dtype_name(DType t) {
  return t == DType::f32 ? "float" : "double";
}

std::size_t dtype_size(DType t) {
  return t == DType::f32 ? sizeof(float) : sizeof(double);
}

}  // namespace tt
