/// @file report.hpp
/// @brief Results of timed runs and their three output forms: a table, CSV and JSON lines.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "timing.hpp"
#include "types.hpp"

namespace tt {

/// One measured kernel (or library call) on one problem.
struct Result {
  std::string step;     ///< "02-naive", or "references".
  std::string variant;  ///< "read-coalesced", "memcpy", ...
  std::string block;    ///< "32x8", or "" for library calls.
  /// Element type.
  DType dtype = DType::f32;
  /// Input matrix (rows x cols).
  Shape shape;
  /// Median, min and max time of the timed launches.
  Stats stats;
  double gbps = 0;                   ///< 2 x M x N x sizeof(T) / median time, decimal GB/s.
  double pct_peak = 0;               ///< Of the theoretical peak.
  std::optional<double> pct_copy;    ///< Of memcpy device-to-device in the same run.
  std::optional<double> pct_cublas;  ///< Of cuBLAS geam in the same run.
  bool verified = false;             ///< Verified before and after the timed launches.
  bool fits_l2 = false;              ///< Input + output fit in L2: measures the cache.
  std::string device;                ///< Device name.
  std::string cuda;                  ///< CUDA runtime version.
  std::string date;                  ///< UTC date and time of the run (ISO 8601).
};

/// Fills pct_copy and pct_cublas from the "references" rows (memcpy, cublas) of the same
/// dtype and shape, where there are such rows.
void add_ratios(std::vector<Result>& results);

/// A fixed-width table, one row per result, with a legend.
std::string format_table(const std::vector<Result>& results);

/// The CSV header line (no newline).
std::string csv_header();
/// One CSV line for @p r (no newline).
std::string csv_row(const Result& r);
/// One JSON object on one line for @p r (no newline).
std::string json_line(const Result& r);

/// @p s with the characters JSON strings escape (quote, backslash, control characters) escaped.
std::string json_escape(const std::string& s);

/// Current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_now();

/// @p v with @p digits digits after the point, e.g. fixed(2.345, 1) is "2.3".
std::string fixed(double v, int digits);

}  // namespace tt
