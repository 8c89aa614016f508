#include "cli.hpp"

#include <cctype>
#include <limits>
#include <sstream>

#include "error.hpp"

namespace tt {

CLI::Validator whole_number(std::int64_t lo, std::int64_t hi) {
  std::ostringstream desc;
  desc << "INT in [" << lo << ", " << hi << "]";
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        if (s.empty()) return "a value is required (got an empty string)";
        std::size_t i = 0;
        const bool negative = s[0] == '-';
        if (s[0] == '-' || s[0] == '+') i = 1;
        if (i == s.size()) return "'" + s + "' is not a whole number";
        for (std::size_t k = i; k < s.size(); ++k)
          if (!std::isdigit(static_cast<unsigned char>(s[k])))
            return "'" + s + "' is not a whole number";
        // Compare as text first so that values beyond 64 bits are reported, not wrapped.
        std::string digits = s.substr(i);
        digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
        const bool huge = digits.size() > 18;
        const long long v = huge ? 0 : std::stoll(digits);
        if (negative && (huge || v > 0)) {
          std::ostringstream os;
          os << s << " is negative; it must be at least " << lo;
          return os.str();
        }
        if (huge || v > hi) {
          std::ostringstream os;
          os << s << " is too large; it must be at most " << hi;
          return os.str();
        }
        if (v < lo) {
          std::ostringstream os;
          os << s << " is too small; it must be at least " << lo;
          return os.str();
        }
        s = digits;  // canonical form for CLI11's own conversion
        return "";
      },
      desc.str(), "whole_number");
}

void add_course_options(CLI::App& app, int& device, bool& list, const std::string& list_help) {
  app.add_option("-d,--device", device, "CUDA device index")->check(whole_number(0, 1023));
  app.add_flag("--list", list, list_help);
  app.footer(
      "Exit status: 0 ok, 2 bad command line, 3 no CUDA device, 4 CUDA error, 5 out of "
      "memory.");
}

std::vector<std::string> variant_names(const std::string& value) {
  std::vector<std::string> names;
  std::size_t from = 0;
  for (std::size_t comma; (comma = value.find(',', from)) != std::string::npos; from = comma + 1)
    names.push_back(value.substr(from, comma - from));
  names.push_back(value.substr(from));
  return names;
}

std::size_t parse_bytes(const std::string& flag, const std::string& text) {
  const UsageError bad(flag + ": '" + text + "' is not a size (give e.g. 16K, 256M or 1G)");
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])) || text.size() > 12)
    throw bad;
  std::size_t pos = 0;
  const unsigned long long v = std::stoull(text, &pos);
  const std::string unit = text.substr(pos);
  const std::size_t scale = unit.empty()  ? 1
                            : unit == "K" ? std::size_t{1} << 10
                            : unit == "M" ? std::size_t{1} << 20
                            : unit == "G" ? std::size_t{1} << 30
                                          : 0;
  if (scale == 0 || v == 0) throw bad;
  return static_cast<std::size_t>(v) * scale;
}

BlockShape parse_block(const std::string& text) {
  const auto x = text.find_first_of("xX");
  const auto bad = [&](const std::string& why) {
    return UsageError("--block: " + why + " (got '" + text +
                      "'); give WIDTHxHEIGHT in threads, for example --block 32x8");
  };
  if (x == std::string::npos || x == 0 || x + 1 == text.size()) throw bad("expected WIDTHxHEIGHT");
  const std::string a = text.substr(0, x), b = text.substr(x + 1);
  for (const auto& part : {a, b}) {
    if (part.size() > 5) throw bad("a side is too large");
    for (char c : part)
      if (!std::isdigit(static_cast<unsigned char>(c))) throw bad("expected two whole numbers");
  }
  BlockShape s{std::stoi(a), std::stoi(b)};
  if (s.x < 1 || s.y < 1) throw bad("both sides must be at least 1");
  if (static_cast<long long>(s.x) * s.y > 1024) throw bad("a block holds at most 1024 threads");
  return s;
}

bool parse_app(CLI::App& app, int argc, const char* const* argv, std::ostream& out) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return false;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return false;
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    throw UsageError(msg.empty() ? "invalid command line" : msg);
  }
  return true;
}

std::optional<Options> parse_options(const Step& step, int argc, const char* const* argv,
                                     std::ostream& out) {
  Options o;
  CLI::App app{step.id + ": " + step.title};
  app.option_defaults()->always_capture_default();
  std::string variants;
  for (const auto& v : step.variants) variants += "\n    " + v.name + ": " + v.summary;
  app.footer("Variants (--variant, default " + step.default_variant + "):" + variants +
             "\n\nExamples:\n  " + step.id + "                      # 8192 x 8192 float\n  " +
             step.id + " --rows 4099 --cols 8191 --dtype double\n  " + step.id +
             " --explain            # access analysis, no GPU needed\n\nExit status: 0 ok, 1 "
             "wrong result, 2 bad command line, 3 no CUDA device, 4 CUDA error, 5 out of "
             "memory, 6 a variant needs a newer GPU (the others ran and verified).");

  std::int64_t size = 0;
  auto* rows = app.add_option("-m,--rows", o.shape.rows, "Rows of the input matrix (M)")
                   ->check(whole_number(1, kMaxDim));
  auto* cols = app.add_option("-n,--cols", o.shape.cols, "Columns of the input matrix (N)")
                   ->check(whole_number(1, kMaxDim));
  app.add_option("-s,--size", size, "Square matrix: sets both rows and cols")
      ->check(whole_number(1, kMaxDim))
      ->excludes(rows)
      ->excludes(cols);
  std::string dtype = "float";
  app.add_option("-t,--dtype", dtype, "Element type")->check(CLI::IsMember({"float", "double"}));
  auto* warmup = app.add_option("--warmup", o.warmup, "Untimed launches before timing")
                    ->check(whole_number(0, 100000));
  auto* reps = app.add_option("--reps", o.reps, "Timed launches (median, min and max are reported)")
                   ->check(whole_number(1, 100000));
  bool once = false;
  app.add_flag("--once", once,
               "Launch each variant once and verify it, untimed: one launch a variant, for a "
               "profiler (ncu) or compute-sanitizer")
      ->excludes(warmup)
      ->excludes(reps);
  auto* variant = app.add_option("-v,--variant", o.variant,
                                 "Kernel variant, several separated by commas, or 'all'");
  std::string block;
  std::ostringstream def;
  def << step.default_block.x << "x" << step.default_block.y;
  CLI::Option* block_option = app.add_option(
      "-b,--block", block,
      step.takes_block ? "Thread block WIDTHxHEIGHT (default " + def.str() + ")"
                       : "Thread block WIDTHxHEIGHT: only where the block is free (02-naive); "
                         "here each variant's tile sets its block");
  std::string format = "text";
  app.add_option("-f,--format", format,
                 "Output, of the measurements and of --explain alike: a table (text), CSV rows or "
                 "one JSON object a line; svg (with --explain only) draws the banks of the "
                 "shared-memory accesses")
      ->check(CLI::IsMember({"text", "csv", "json", "svg"}));
  app.add_option("-d,--device", o.device, "CUDA device index")->check(whole_number(0, 1023));
  app.add_flag("--explain", o.explain,
               "Print the predicted bank conflicts and sectors of every memory instruction "
               "(no GPU needed)");
  auto* warp = app.add_option("--warp", o.warp, "With --explain: the warp of block (0, 0) to draw")
                   ->check(whole_number(0, 31));
  auto* sample = app.add_option("--sample", o.sample,
                                "With --explain: analyse at most this many blocks, spread evenly "
                                "over the grid, and scale the counts up (0: every block, exact)")
                     ->check(whole_number(0, 1000000000));
  app.add_flag("--list", o.list, "List the variants and exit");
  bool no_compare = false;
  app.add_flag("--no-compare", no_compare,
               "Do not run the references (memcpy, copy kernel, cuBLAS) in the same run");

  if (!parse_app(app, argc, argv, out)) return std::nullopt;

  if (size > 0) o.shape = {size, size};
  o.dtype = dtype == "double" ? DType::f64 : DType::f32;
  o.format = format == "csv"    ? Format::csv
             : format == "json" ? Format::json
             : format == "svg"  ? Format::svg
                                : Format::text;
  if (o.format == Format::svg && !o.explain)
    throw UsageError("--format svg draws the access analysis: it needs --explain");
  for (const CLI::Option* opt : {warp, sample})
    if (opt->count() > 0 && !o.explain)
      throw UsageError(opt->get_name() + " chooses what --explain shows: it needs --explain");
  o.compare = !no_compare;
  if (once) o.warmup = o.reps = 0;  // RunConfig: no timed launch, only the verified first one
  // Given but empty ("--block ''") is refused like any other malformed value.
  if (block_option->count() > 0 && !step.takes_block)
    throw UsageError("--block: " + step.id +
                     " takes no block shape: the tile of each variant fixes who moves which "
                     "element, so the block comes with the variant (--list shows them); only "
                     "02-naive, whose threads each move one element, takes --block");
  if (block_option->count() > 0) o.block = parse_block(block);
  o.block = step.block_for(o.block);

  // Checks that need no GPU.
  // The usage hint is printed once, by tt::guarded, after the message.
  if (o.variant.empty() && variant->count() == 0) o.variant = step.default_variant;
  if (o.variant != "all") {
    for (const std::string& name : variant_names(o.variant)) {  // one, or several: a,b
      const Variant* v = step.find(name);
      if (v == nullptr) {
        std::string names;
        for (const auto& x : step.variants) names += (names.empty() ? "" : ", ") + x.name;
        throw UsageError("--variant: '" + name + "' is not a variant of " + step.id +
                         "; choose one of: " + names + ", all (or several, a,b)");
      }
      if (!v->supports(o.dtype))
        throw UsageError("--variant " + v->name + " does not support --dtype " +
                         dtype_name(o.dtype));
    }
  }
  // Bytes of one matrix must fit in 63 bits (the product of two 31-bit sides times 8 does not).
  const long double bytes = static_cast<long double>(o.shape.rows) * o.shape.cols *
                            static_cast<long double>(dtype_size(o.dtype));
  if (bytes > static_cast<long double>(std::numeric_limits<std::int64_t>::max()) / 4) {
    std::ostringstream os;
    os << o.shape.rows << " x " << o.shape.cols << " " << dtype_name(o.dtype)
       << " elements is too large to address (" << bytes / 1e18L << " EB a matrix)";
    throw UsageError(os.str());
  }
  return o;
}

}  // namespace tt
