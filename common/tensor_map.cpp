/// @file tensor_map.cpp
/// @brief The tensor maps of tensor_map.hpp: the limits checked here, the map made by the driver.
#include "tensor_map.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>

#include "error.hpp"

namespace tt {

namespace {

/// cuTensorMapEncodeTiled's type, as the driver's header declares it (CUDA 12.0 on).
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                 const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                 const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/// The driver's cuTensorMapEncodeTiled, looked up once through the runtime.
EncodeTiled encode_tiled() {
  static const EncodeTiled fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050  // the versioned lookup, from CUDA 12.5 (and the only one in 13)
    TT_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                   cudaEnableDefault, &found));
#else
    TT_CUDA_CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &found));
#endif
    if (found != cudaDriverEntryPointSuccess || p == nullptr)
      throw CudaError(cudaErrorNotSupported,
                      "the driver has no cuTensorMapEncodeTiled (the tensor memory "
                      "accelerator needs a CUDA 12 driver)");
    return reinterpret_cast<EncodeTiled>(p);
  }();
  return fn;
}

}  // namespace

std::string tile_map_limits(const void* base, std::int64_t rows, std::int64_t cols, int elem_bytes,
                            int box_rows, int box_cols) {
  const std::int64_t pitch = cols * elem_bytes;
  if (reinterpret_cast<std::uintptr_t>(base) % kTmaChunkBytes != 0)
    return "the matrix does not start on a 16-byte boundary";
  if (pitch % kTmaChunkBytes != 0)
    return "a row of " + std::to_string(pitch) + " bytes is not a multiple of 16 bytes";
  if (rows < 1 || cols < 1 || rows > (std::int64_t{1} << 32) || cols > (std::int64_t{1} << 32))
    return "a side outside 1 to 2^32 elements";
  if (pitch >= (std::int64_t{1} << 40)) return "a row of 2^40 bytes or more";
  if (box_rows < 1 || box_rows > 256 || box_cols < 1 || box_cols > 256)
    return "a box side outside 1 to 256 elements";
  if (box_cols * elem_bytes > kTmaSwizzleBytes || (box_cols * elem_bytes) % kTmaChunkBytes)
    return "a box row that is not whole 16-byte chunks within the 128-byte swizzle";
  return {};
}

void make_tile_map(CUtensorMap* map, const void* base, std::int64_t rows, std::int64_t cols,
                   int elem_bytes, int box_rows, int box_cols, bool swizzle) {
  const std::string why = tile_map_limits(base, rows, cols, elem_bytes, box_rows, box_cols);
  if (!why.empty()) throw std::invalid_argument("no tensor map: " + why);
  if (elem_bytes != 4 && elem_bytes != 8)
    throw std::invalid_argument("no tensor map: elements of 4 or 8 bytes only");
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t pitch[1] = {static_cast<cuuint64_t>(cols * elem_bytes)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t step[2] = {1, 1};
  const CUresult r = encode_tiled()(
      map, elem_bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 2,
      const_cast<void*>(base), dims, pitch, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
      swizzle ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
      CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw CudaError(cudaErrorInvalidValue,
                    "cuTensorMapEncodeTiled refused the map (CUresult " + std::to_string(r) + ")");
}

}  // namespace tt
