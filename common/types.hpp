/// @file types.hpp
/// @brief Element types, matrix shapes and the small index helpers every kernel shares.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#ifdef __CUDACC__
#define TT_HD __host__ __device__
#else
#define TT_HD
#endif

/// The shared harness of the tutorial: command line, device report, timing, verification,
/// references, the access analyser and the runner that every step's program is.
namespace tt {

/// Element type of a run.
enum class DType { f32, f64 };

/// Threads a program may use for its work on the host (the CPU transpose and comparison, the
/// access analyser): TT_THREADS where it is set to a whole number from 1 up, else the
/// machine's cores. The GPU check gives each of its parts a share of the host this way, so
/// that parts running at once do not each start a thread a core.
unsigned host_threads();

/// "float" or "double".
const char* dtype_name(DType t);
/// Bytes per element.
std::size_t dtype_size(DType t);

/// Maps a C++ element type to its DType.
template <typename T>
struct dtype_of;
/// float is DType::f32.
template <>
struct dtype_of<float> {
  /// The DType of float.
  static constexpr DType value = DType::f32;
};
/// double is DType::f64.
template <>
struct dtype_of<double> {
  /// The DType of double.
  static constexpr DType value = DType::f64;
};

/// A matrix of @c rows x @c cols elements, stored row-major.
struct Shape {
  /// Number of rows (M).
  std::int64_t rows = 0;
  /// Number of columns (N): elements per row.
  std::int64_t cols = 0;
  /// Number of elements.
  std::int64_t count() const { return rows * cols; }
};

/// One element position: row and column.
struct Coord {
  /// Row index, from 0.
  int row;
  /// Column index, from 0.
  int col;
};

/// Offset of element (@p row, @p col) in a row-major matrix whose rows hold @p ld elements.
/// 64-bit, so that matrices of more than 2^31 elements index correctly.
TT_HD inline std::int64_t offset(int row, int col, int ld) {
  return static_cast<std::int64_t>(row) * ld + col;
}

/// Whether @p e lies inside a @p rows x @p cols matrix (the bounds check of every kernel).
TT_HD inline bool inside(Coord e, int rows, int cols) {
  return e.row >= 0 && e.row < rows && e.col >= 0 && e.col < cols;
}

/// 16 bytes of elements, aligned to 16: 4 floats or 2 doubles, loaded and stored with one
/// 16-byte instruction (LDG.128 / STG.128 / LDS.128 / STS.128).
template <typename T>
struct alignas(16) Pack {
  static constexpr int size = static_cast<int>(16 / sizeof(T));  ///< Elements per pack.
  T e[size];                                                     ///< The elements.
};

/// Ceiling division for sizes and grid dimensions.
TT_HD constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace tt
