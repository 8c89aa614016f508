#include "types.hpp"

namespace tt {

const char* dtype_name(DType t) {
  return t == DType::f32 ? "float" : "double";
}

std::size_t dtype_size(DType t) {
  return t == DType::f32 ? sizeof(float) : sizeof(double);
}

}  // namespace tt
