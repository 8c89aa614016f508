/// @file tensor_map.hpp
/// @brief Hopper's tensor memory accelerator (TMA), the host's side: the tensor map that
/// describes a row-major matrix to the copy engine, made by the driver's
/// cuTensorMapEncodeTiled, reached through the runtime (cudaGetDriverEntryPointByVersion), so
/// that no program links the driver library.
///
/// A tensor map names the matrix (base, rows, columns, the bytes between rows), the box that
/// one copy moves (box_rows x box_cols elements) and how the box is laid out in shared memory
/// (swizzle). The hardware's limits, which make_tile_map() checks before it asks the driver:
/// the base aligned to 16 bytes, the row pitch a multiple of 16 bytes, each box side at most
/// 256 elements, and with the 128-byte swizzle a box row of at most 128 bytes.
#pragma once

#include <cuda.h>  // CUtensorMap and its enums (types only: nothing is linked)

#include <cstddef>
#include <cstdint>
#include <string>

namespace tt {

/// The bytes of one 16-byte chunk of a box row, and of a box row under the 128-byte swizzle.
constexpr int kTmaChunkBytes = 16;
/// A box row under the 128-byte swizzle (CU_TENSOR_MAP_SWIZZLE_128B): at most 128 bytes.
constexpr int kTmaSwizzleBytes = 128;
/// The alignment of a box in shared memory under the 128-byte swizzle: 8 rows of 128 bytes.
constexpr int kTmaSwizzleAlign = 1024;

/// Why a rows x cols matrix of @p elem_bytes-byte elements at @p base cannot be described to
/// the copy engine with boxes of @p box_rows x @p box_cols elements and the 128-byte swizzle;
/// empty if it can.
std::string tile_map_limits(const void* base, std::int64_t rows, std::int64_t cols, int elem_bytes,
                            int box_rows, int box_cols);

/// Makes in @p map the tensor map of a row-major rows x cols matrix of @p elem_bytes-byte
/// elements (4: float, 8: double) at @p base, whose copies move boxes of @p box_rows x
/// @p box_cols elements into shared memory with the 128-byte swizzle (16-byte chunk j of box
/// row r lands at chunk j XOR (r mod 8)), or with @p swizzle false dense, row after row;
/// elements outside the matrix filled with zeros.
/// Throws tt::CudaError where the runtime cannot reach the driver's function or the driver
/// refuses the map, std::invalid_argument where tile_map_limits() names a limit.
void make_tile_map(CUtensorMap* map, const void* base, std::int64_t rows, std::int64_t cols,
                   int elem_bytes, int box_rows, int box_cols, bool swizzle = true);

/// The tensor map of one kernel's matrix, made again only when its base or its shape changes
/// (the element, box and swizzle are the kernel's own, the same at every call): a timed run
/// then times the kernel, not the driver's encoding. One for each kernel and matrix it maps.
class TileMapMemo {
 public:
  /// The map of make_tile_map() for these arguments.
  const CUtensorMap& get(const void* base, std::int64_t rows, std::int64_t cols, int elem_bytes,
                         int box_rows, int box_cols, bool swizzle = true) {
    if (!made_ || base != base_ || rows != rows_ || cols != cols_) {
      make_tile_map(&map_, base, rows, cols, elem_bytes, box_rows, box_cols, swizzle);
      made_ = true, base_ = base, rows_ = rows, cols_ = cols;
    }
    return map_;
  }

 private:
  bool made_ = false;
  const void* base_ = nullptr;
  std::int64_t rows_ = 0, cols_ = 0;
  CUtensorMap map_{};
};

}  // namespace tt
