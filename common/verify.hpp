/// @file verify.hpp
/// @brief Input filling, the CPU reference transpose, and the exact verifier.
///
/// Every input element gets a distinct bit pattern that encodes its own position, so a
/// mismatch can be explained: "out(3, 5) should hold in(5, 3) but holds in(5, 4)" tells a
/// student which index is wrong. The output is poisoned with a pattern the fill never makes,
/// so an element nobody wrote is reported as such.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "types.hpp"

namespace tt {

/// Value of input element number @p index (row-major position).
/// float: consecutive positive then negative normal floats from the smallest normal,
/// distinct for the first fill_distinct_count<float>() elements (then the pattern repeats).
/// double: index + 1, exact and distinct up to 2^53.
template <typename T>
T fill_value(std::uint64_t index);

/// How many elements get distinct values before the fill repeats.
template <typename T>
std::uint64_t fill_distinct_count();

/// Position whose fill value is @p value, or nothing if no element is filled with it
/// (the poison value, zero, or anything a kernel invented).
template <typename T>
std::optional<std::uint64_t> fill_index(T value);

/// Byte that the harness memsets into outputs before each run: every element becomes
/// all-ones bits, a NaN that the fill never produces.
constexpr int kPoisonByte = 0xFF;

/// Fills @p data (row-major, @p data.size() elements) with fill_value(i), using all cores.
template <typename T>
void fill_input(std::vector<T>& data);

/// CPU reference: @p out (cols x rows) = transpose of @p in (rows x cols).
template <typename T>
void reference_transpose(const T* in, T* out, Shape in_shape);

/// What the kernel under test should have produced from the input.
enum class Expect { transpose, copy };

/// One wrong output element.
struct Mismatch {
  std::int64_t row;      ///< Output row.
  std::int64_t col;      ///< Output column.
  std::string expected;  ///< The expected value, printed with what it is.
  std::string got;       ///< The value found, and where it came from when it can be told.
};

/// Outcome of a verification: counts and the first mismatches.
struct VerifyResult {
  std::uint64_t checked = 0;    ///< Elements compared.
  std::uint64_t wrong = 0;      ///< Elements whose bits differ from the reference.
  std::uint64_t unwritten = 0;  ///< Of those, elements still holding the poison.
  std::vector<Mismatch> first;  ///< The first mismatches in row-major output order.
  /// True when every element matched.
  bool ok() const { return wrong == 0; }
};

/// Compares @p out bit for bit with the reference transpose (or copy) of @p in, where @p in
/// has @p in_shape. The reference is computed here, block by block, on all cores.
/// At most @p max_report mismatches are described.
template <typename T>
VerifyResult verify(const T* in, const T* out, Shape in_shape, Expect expect,
                    std::size_t max_report = 8);

/// Several lines: the counts and one line per reported mismatch as (row, col, expected, got).
std::string describe(const VerifyResult& r);

}  // namespace tt
