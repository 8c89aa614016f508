/// @file cli.hpp
/// @brief The command line every step shares, parsed with CLI11, and strict validators that
/// name the problem ("--rows: 'abc' is not a whole number") instead of guessing.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "step.hpp"

namespace tt {

/// Output format of the results.
enum class Format { text, csv, json, svg };

/// Everything a step run can be asked for on the command line.
struct Options {
  Shape shape{8192, 8192};          ///< Input matrix; the default is well above a 50 MB L2.
  DType dtype = DType::f32;         ///< --dtype float|double
  int warmup = 10;                  ///< --warmup launches before timing
  int reps = 50;                    ///< --reps timed launches (one event pair each); 0: --once
  std::string variant;              ///< --variant NAME[,NAME...]|all (empty: the default)
  std::optional<BlockShape> block;  ///< --block BXxBY (steps that take it)
  Format format = Format::text;     ///< --format text|csv|json (svg: with --explain)
  int device = 0;                   ///< --device INDEX
  bool explain = false;             ///< --explain: access analysis, no GPU needed
  int warp = 0;                     ///< --warp: which warp of block (0, 0) --explain draws
  std::uint64_t sample = 16384;     ///< --sample: blocks --explain visits (0: every block)
  bool list = false;                ///< --list: print the variants and exit
  bool compare = true;              ///< run memcpy, the copy kernel and cuBLAS in the same run
};

/// Largest value accepted for a matrix dimension (kernels index rows and columns with int).
constexpr std::int64_t kMaxDim = 2147483647;

/// A CLI11 validator for a whole decimal number in [@p lo, @p hi], with messages that say
/// whether the value was not a number, too small or too large.
CLI::Validator whole_number(std::int64_t lo, std::int64_t hi);

/// Parses a byte count for option @p flag: digits, optionally followed by K, M or G (binary
/// units: 16K is 16384 bytes). Throws UsageError naming the flag otherwise, or for zero.
std::size_t parse_bytes(const std::string& flag, const std::string& text);

/// The names of a --variant value: "a,b" gives a and b, in that order; "a" gives a (an empty
/// value gives one empty name, which no step has).
std::vector<std::string> variant_names(const std::string& value);

/// Parses "BXxBY" (e.g. "32x8"); throws UsageError with the expected form otherwise.
BlockShape parse_block(const std::string& text);

/// Parses @p argc / @p argv for @p step. Prints help to @p out and returns nothing when
/// --help was asked for. Throws UsageError (with the problem and a hint) on bad input.
/// Checks that need no GPU happen here: the variant exists and supports the type, the block
/// shape is sane, the matrix size does not overflow.
std::optional<Options> parse_options(const Step& step, int argc, const char* const* argv,
                                     std::ostream& out);

/// The options every measuring program of course/ takes: -d,--device INDEX, --list (print
/// what the other options ask for and exit, no GPU; @p list_help says what), and the footer
/// with the exit statuses they share.
void add_course_options(CLI::App& app, int& device, bool& list, const std::string& list_help);

/// Runs @p app.parse and turns CLI11's errors into UsageError. Returns false after printing
/// help to @p out when --help was given.
bool parse_app(CLI::App& app, int argc, const char* const* argv, std::ostream& out);

}  // namespace tt
