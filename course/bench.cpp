// The benchmark: every step's headline variant beside the references (memcpy, the copy kernel,
// cuBLAS), over a list of sizes and element types, in one process, written as one CSV and
// summarised as one table per matrix. Sweeps add every variant of every step, 02-naive's
// block shapes, or a ladder of sizes from L2-resident to device-memory-sized matrices.
//
// Run:   bench                                      # default sizes, float and double
//        bench --sizes 8192,4099x8191 --dtypes float --reps 20 --out quick.csv
//        bench --sweep all --out all.csv
//        scripts/plot_results.py results.csv --out plots
//        bench --list --predict docs/results/h200     # the model's predictions, no GPU
//        bench --sizes 8192 --predict docs/results/h100  # measured beside predicted
//
// The CSV is tt::csv_header()'s columns with one more in front, `sweep`, naming the part of
// the run a row belongs to: headline, variants, block or size. Each part measures its own
// references, so %copy and %cuBLAS compare rows of one part, dtype and shape.

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "error.hpp"
#include "references.hpp"
#include "registry.hpp"
#include "runner.hpp"

namespace {

/// What the command line asks the benchmark for.
struct BenchOptions {
  std::vector<tt::Shape> sizes;     ///< --sizes: matrices of the headline and variants parts.
  std::vector<tt::DType> dtypes;    ///< --dtypes: element types of those parts and of block.
  tt::RunConfig config;             ///< --warmup, --reps.
  std::string out = "results.csv";  ///< --out: the CSV file.
  std::string sweep = "none";       ///< --sweep none|variants|block|size|all.
  int device = 0;                   ///< --device.
  bool list = false;                ///< --list: print the measurements and exit.
  std::string predict;              ///< --predict: a device folder of the bandwidth model.
};

/// One measurement to make: a variant of a step on a problem, in a part of the run.
struct Job {
  std::string part;  ///< The CSV's sweep column: headline, variants, block or size.
  tt::Selected selected;
  tt::Problem problem;
};

/// Block shapes of the block sweep, and the matrix it runs on.
const std::vector<tt::BlockShape> kSweepBlocks = {{8, 8},  {16, 8},  {16, 16}, {32, 4},
                                                  {32, 8}, {32, 16}, {32, 32}};
const tt::Shape kBlockSweepShape{8192, 8192};
/// Square sizes of the size sweep (float): from L2-resident to well beyond it.
const std::vector<std::int64_t> kSweepSizes = {256,  512,  1024, 2048,  3072,
                                               4096, 6144, 8192, 12288, 16384};

std::string shape_text(const tt::Shape& s) {
  return std::to_string(s.rows) + "x" + std::to_string(s.cols);
}

/// The bandwidth model's prediction for one kernel and problem (scripts/bandwidth_model.py).
struct Prediction {
  double gbps = 0;       ///< Predicted GB/s, counted as the bench's are.
  double pct_copy = 0;   ///< Of the copy ceiling of the model's device.
  std::string bound;     ///< "latency" or "copy".
  bool inside = false;   ///< Every access ideal: a prediction, else an upper bound.
};

/// A device folder's predictions (DIR/predictions.csv) and the GPU they are for (the device
/// column of DIR/latency-load.csv), keyed by "step/variant dtype ROWSxCOLS".
struct Predictions {
  std::string device;
  std::map<std::string, Prediction> rows;
};

/// The fields of one CSV line; a field in double quotes may hold commas.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (const char c : line) {
    if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      out.emplace_back();
    else if (c != '\r')
      out.back() += c;
  }
  return out;
}

/// The rows of CSV file @p path as maps from its header's names. Throws UsageError.
std::vector<std::map<std::string, std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw tt::UsageError("--predict: cannot read '" + path + "'");
  std::string line;
  std::getline(in, line);
  const auto names = csv_fields(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto f = csv_fields(line);
    if (f.size() != names.size())
      throw tt::UsageError("--predict: '" + path + "' has a line of " +
                           std::to_string(f.size()) + " fields under a header of " +
                           std::to_string(names.size()));
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < f.size(); ++i) row[names[i]] = f[i];
    rows.push_back(row);
  }
  return rows;
}

/// Reads a device folder of the model: predictions.csv and the device latency-load.csv names.
Predictions read_predictions(const std::string& dir) {
  Predictions p;
  try {
    for (const auto& r : read_csv(dir + "/latency-load.csv")) p.device = r.at("device");
    for (const auto& r : read_csv(dir + "/predictions.csv"))
      p.rows[r.at("program") + "/" + r.at("variant") + " " + r.at("dtype") + " " +
             r.at("rows") + "x" + r.at("cols")] = {std::stod(r.at("predicted_gbps")),
                                                   std::stod(r.at("predicted_pct_copy")),
                                                   r.at("bound"), r.at("inside") == "yes"};
  } catch (const std::out_of_range&) {
    throw tt::UsageError("--predict: '" + dir + "' is not a device folder of the bandwidth "
                         "model (predictions.csv and latency-load.csv, as docs/results/h100)");
  } catch (const std::invalid_argument&) {
    throw tt::UsageError("--predict: '" + dir + "/predictions.csv' has a field that is not a "
                         "number");
  }
  if (p.device.empty() || p.rows.empty())
    throw tt::UsageError("--predict: '" + dir + "' holds no predictions");
  return p;
}

/// "predicted 2887 GB/s, 97.5% of the copy (latency-bound)", or why there is none.
std::string prediction_text(const Predictions& p, const std::string& key) {
  const auto it = p.rows.find(key);
  if (it == p.rows.end()) return "no prediction (not a shape or kernel of the model)";
  std::ostringstream os;
  os << std::fixed << std::setprecision(0) << (it->second.inside ? "predicted " : "at most ")
     << it->second.gbps << " GB/s, " << std::setprecision(1) << it->second.pct_copy
     << "% of the copy (" << it->second.bound << "-bound)";
  return os.str();
}

/// Parses one item of --sizes: "N" (square) or "ROWSxCOLS". Throws UsageError.
tt::Shape parse_size(const std::string& text) {
  const auto x = text.find_first_of("xX");
  std::string sides[2] = {text.substr(0, x), x == std::string::npos ? text : text.substr(x + 1)};
  const CLI::Validator side = tt::whole_number(1, tt::kMaxDim);
  for (auto& s : sides) {
    const std::string why = side(s);
    if (!why.empty())
      throw tt::UsageError("--sizes: " + why + (s == text ? "" : " (in '" + text + "')") +
                           "; give N or ROWSxCOLS separated by commas, e.g. --sizes "
                           "8192,4099x8191");
  }
  return {std::stoll(sides[0]), std::stoll(sides[1])};
}

/// Throws UsageError when one matrix of @p s elements of @p t is too large to address
/// (the same limit as a step's own --rows/--cols).
void check_addressable(const tt::Shape& s, tt::DType t) {
  const long double bytes = static_cast<long double>(s.rows) * static_cast<long double>(s.cols) *
                            static_cast<long double>(tt::dtype_size(t));
  if (bytes > static_cast<long double>(std::numeric_limits<std::int64_t>::max()) / 4)
    throw tt::UsageError("--sizes: " + shape_text(s) + " " + tt::dtype_name(t) +
                         " is too large to address");
}

/// Parses the command line. Returns nothing after printing help. Needs no GPU.
std::optional<BenchOptions> parse(int argc, char** argv) {
  BenchOptions o;
  CLI::App app{
      "bench: every step's headline variant beside memcpy, the copy kernel and cuBLAS, "
      "over sizes and element types, as one CSV"};
  app.option_defaults()->always_capture_default();
  app.footer(
      "Sweeps (--sweep; the CSV's first column, `sweep`, names the part of each row):\n"
      "  none      only the headline part: each step's headline variant and the references\n"
      "            at --sizes x --dtypes (rows marked `headline`)\n"
      "  variants  every variant of every step at --sizes x --dtypes\n"
      "  block     02-naive's variants with blocks 8x8 16x8 16x16 32x4 32x8 32x16 32x32 at\n"
      "            8192x8192, for each of --dtypes\n"
      "  size      every headline variant and the references, float, at 256 512 1024 2048\n"
      "            3072 4096 6144 8192 12288 16384 square: L2 residency and launch overhead\n"
      "  all       headline, variants, block and size, one after the other\n"
      "Every part measures the references beside its own rows; problems that do not fit in\n"
      "device memory are skipped with a note.\n\n"
      "Examples:\n"
      "  bench --sizes 8192,4099x8191 --dtypes float --reps 20\n"
      "  bench --sweep all --out all.csv && scripts/plot_results.py all.csv --out plots\n\n"
      "Exit status: 0 ok, 1 wrong result, 2 bad command line, 3 no CUDA device, 4 CUDA error, "
      "5 out of memory.");

  // Powers of two, odd shapes, and tall and wide odd ones (a side 8 and 13 times the other:
  // many rows of a few thousand columns, as activations and batches of records are).
  std::vector<std::string> sizes = {"1024",       "2048",       "4096",       "8192",
                                    "16384",      "8192x16384", "4099x8191",  "12345x6789",
                                    "8191x4099",  "24001x2999", "2999x24001", "40009x3001",
                                    "3001x40009"};
  std::vector<std::string> dtypes = {"float", "double"};
  app.add_option("-s,--sizes", sizes, "Matrices: N (square) or ROWSxCOLS, comma separated")
      ->delimiter(',');
  app.add_option("-t,--dtypes", dtypes, "Element types, comma separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"float", "double"}));
  app.add_option("--warmup", o.config.warmup, "Untimed launches before timing")
      ->check(tt::whole_number(0, 100000));
  app.add_option("--reps", o.config.reps, "Timed launches (median, min and max are reported)")
      ->check(tt::whole_number(1, 100000));
  app.add_option("-o,--out", o.out, "CSV file to write");
  app.add_option("--sweep", o.sweep, "Which part(s) to run (see Sweeps below)")
      ->check(CLI::IsMember({"none", "variants", "block", "size", "all"}));
  app.add_option("-d,--device", o.device, "CUDA device index")->check(tt::whole_number(0, 1023));
  app.add_flag("--list", o.list, "Print the measurements the options ask for and exit (no GPU)");
  app.add_option("--predict", o.predict,
                 "A device folder of the bandwidth model (docs/results/h100): print its "
                 "predictions beside the measurements (with --list: instead of them, no GPU)");

  if (!tt::parse_app(app, argc, argv, std::cout)) return std::nullopt;

  for (const auto& s : sizes) o.sizes.push_back(parse_size(s));
  for (const auto& d : dtypes) {
    const tt::DType t = d == "double" ? tt::DType::f64 : tt::DType::f32;
    if (std::find(o.dtypes.begin(), o.dtypes.end(), t) == o.dtypes.end()) o.dtypes.push_back(t);
  }
  for (const auto& s : o.sizes)
    for (const auto t : o.dtypes) check_addressable(s, t);
  if (o.out.empty()) throw tt::UsageError("--out: a file name is required");
  return o;
}

/// The problem @p step runs: its default block unless @p block is given.
tt::Problem problem_for(const tt::Step& step, tt::Shape shape, tt::DType dtype,
                        std::optional<tt::BlockShape> block = std::nullopt) {
  return {shape, dtype, step.block_for(block)};
}

/// Appends the references (memcpy, copy kernel, cuBLAS) on @p shape and @p dtype.
void add_references(std::vector<Job>& jobs, const std::string& part, tt::Shape shape,
                    tt::DType dtype) {
  const tt::Step& refs = tt::references();
  for (const char* name : {"memcpy", "copy-kernel", "cublas"}) {
    const tt::Variant* v = refs.find(name);
    if (v && v->supports(dtype))
      jobs.push_back({part, {&refs, v}, problem_for(refs, shape, dtype)});
  }
}

/// Appends the references and each step's headline variant (@p every_variant: all its
/// variants) on @p shape and @p dtype.
void add_steps(std::vector<Job>& jobs, const std::string& part, tt::Shape shape, tt::DType dtype,
               bool every_variant) {
  add_references(jobs, part, shape, dtype);
  for (const tt::Step* st : tt::tutorial_steps()) {
    std::vector<const tt::Variant*> vs;
    if (every_variant)
      for (const auto& v : st->variants) vs.push_back(&v);
    else
      vs.push_back(&st->headline_variant());
    for (const tt::Variant* v : vs)
      if (v->supports(dtype)) jobs.push_back({part, {st, v}, problem_for(*st, shape, dtype)});
  }
}

/// Every measurement the options ask for, in order, grouped by part and then by problem.
std::vector<Job> plan_jobs(const BenchOptions& o) {
  std::vector<Job> jobs;
  const bool all = o.sweep == "all";
  if (o.sweep == "none" || all)
    for (const auto& s : o.sizes)
      for (const auto t : o.dtypes) add_steps(jobs, "headline", s, t, false);
  if (o.sweep == "variants" || all)
    for (const auto& s : o.sizes)
      for (const auto t : o.dtypes) add_steps(jobs, "variants", s, t, true);
  if (o.sweep == "block" || all) {
    for (const auto t : o.dtypes) {
      add_references(jobs, "block", kBlockSweepShape, t);
      for (const tt::Step* st : tt::tutorial_steps()) {
        if (st->id != "02-naive") continue;
        for (const auto& b : kSweepBlocks)
          for (const auto& v : st->variants)
            if (v.supports(t))
              jobs.push_back({"block", {st, &v}, problem_for(*st, kBlockSweepShape, t, b)});
      }
    }
  }
  if (o.sweep == "size" || all)
    for (const auto n : kSweepSizes) add_steps(jobs, "size", {n, n}, tt::DType::f32, false);
  return jobs;
}

/// "05-multi-element/elements-4 float 8192x8192", with the block shape in the block sweep.
std::string label(const Job& j) {
  std::string text = j.selected.step->id + "/" + j.selected.variant->name;
  if (j.part == "block" && j.problem.block)
    text +=
        " block " + std::to_string(j.problem.block->x) + "x" + std::to_string(j.problem.block->y);
  return text + " " + tt::dtype_name(j.problem.dtype) + " " + shape_text(j.problem.shape);
}

/// Drops the jobs whose problem does not fit on @p dev, with one note per problem on stderr.
std::vector<Job> drop_unfit(const tt::DeviceInfo& dev, const std::vector<Job>& jobs) {
  std::map<std::string, bool> fits;  // "4099x8191 float" -> fits
  std::vector<Job> kept;
  for (const auto& j : jobs) {
    const std::string key = shape_text(j.problem.shape) + " " + tt::dtype_name(j.problem.dtype);
    if (!fits.count(key)) {
      try {
        tt::check_fits(dev, j.problem);
        fits[key] = true;
      } catch (const tt::UsageError& e) {
        std::cerr << "bench: skipping " << key << ": " << e.what() << "\n";
        fits[key] = false;
      }
    }
    if (fits[key]) kept.push_back(j);
  }
  return kept;
}

/// One table per (dtype, shape) of @p results, in the order they were measured.
/// Whether two jobs belong to one table of the output: the same part, type and matrix.
bool same_table(const Job& a, const Job& b) {
  return a.part == b.part && a.problem.dtype == b.problem.dtype &&
         a.problem.shape.rows == b.problem.shape.rows &&
         a.problem.shape.cols == b.problem.shape.cols;
}

/// Whether two jobs run on the same problem (their table's, with the same block), so that one
/// input serves both.
bool same_problem(const Job& a, const Job& b) {
  const auto& x = a.problem.block;
  const auto& y = b.problem.block;
  return same_table(a, b) && x.has_value() == y.has_value() &&
         (!x || (x->x == y->x && x->y == y->y));
}

/// The key of a result in Predictions::rows.
std::string prediction_key(const tt::Result& r) {
  return r.step + "/" + r.variant + " " + tt::dtype_name(r.dtype) + " " + shape_text(r.shape);
}

/// Beside a table's measured kernels: the model's prediction for @p p's device, and the
/// error as scripts/bandwidth_model.py compare counts it (measured share of the copy less the
/// predicted share, over the measured share).
void print_predictions(const Predictions& p, const std::vector<tt::Result>& table) {
  std::cout << "model (" << p.device << "):\n";
  for (const auto& r : table) {
    if (r.step == "references") continue;
    const std::string key = prediction_key(r);
    std::cout << "  " << r.step << "/" << r.variant << ": " << prediction_text(p, key);
    const auto it = p.rows.find(key);
    if (it != p.rows.end() && r.pct_copy && *r.pct_copy > 0)
      std::cout << std::fixed << std::setprecision(1) << "; measured " << *r.pct_copy
                << "% of the copy, error " << std::showpos
                << 100 * (*r.pct_copy - it->second.pct_copy) / *r.pct_copy << std::noshowpos
                << "%";
    std::cout << "\n";
  }
}

void print_summary(const std::string& part, const std::vector<tt::Result>& results) {
  std::vector<std::string> keys;
  std::map<std::string, std::vector<tt::Result>> groups;
  for (const auto& r : results) {
    const std::string key = std::string(tt::dtype_name(r.dtype)) + " " +
                            std::to_string(r.shape.rows) + " x " + std::to_string(r.shape.cols);
    if (!groups.count(key)) keys.push_back(key);
    groups[key].push_back(r);
  }
  for (const auto& k : keys)
    std::cout << "\n== " << part << ": " << k << " ==\n" << tt::format_table(groups[k]);
}

int run(int argc, char** argv) {
  const auto parsed = parse(argc, argv);  // before any device call: bad input exits 2
  if (!parsed) return tt::kExitOk;
  const BenchOptions& o = *parsed;
  const std::vector<Job> planned = plan_jobs(o);
  std::optional<Predictions> model;
  if (!o.predict.empty()) model = read_predictions(o.predict);
  if (o.list) {
    if (model) std::cout << "predictions of the bandwidth model for " << model->device << "\n";
    for (std::size_t i = 0; i < planned.size(); ++i) {
      std::cout << "[" << i + 1 << "/" << planned.size() << "] " << planned[i].part << ": "
                << label(planned[i]);
      const auto& j = planned[i];
      if (model && j.selected.step->id != "references")
        std::cout << ": "
                  << prediction_text(*model, j.selected.step->id + "/" + j.selected.variant->name +
                                                 " " + tt::dtype_name(j.problem.dtype) + " " +
                                                 shape_text(j.problem.shape));
      std::cout << "\n";
    }
    return tt::kExitOk;
  }

  const tt::DeviceInfo dev = tt::select_device(o.device);
  if (model && model->device != dev.name)
    std::cout << "bench: the predictions of " << o.predict << " are for " << model->device
              << ", not this " << dev.name << ": measure this GPU's facts as "
              << "scripts/gpu-check.sh's model part does to predict for it\n";
  std::cout << "bench: " << tt::describe(dev) << "\n"
            << o.config.warmup << " warm-up + " << o.config.reps
            << " timed launches each (median, min, max)\n";
  const std::vector<Job> jobs = drop_unfit(dev, planned);

  std::ofstream csv(o.out);
  if (!csv) throw tt::UsageError("--out: cannot write '" + o.out + "'");
  csv << "sweep," << tt::csv_header() << "\n";

  std::ostringstream failures;
  std::vector<tt::Result> table;  // the rows of one part, type and matrix, being measured
  std::size_t rows = 0;
  // Ratios, the CSV rows and the summary of a table once all of it is measured: a run cut
  // short keeps every table it finished.
  const auto finish_table = [&](const std::string& part) {
    if (table.empty()) return;
    tt::add_ratios(table);
    for (const auto& r : table) csv << part << "," << tt::csv_row(r) << "\n";
    csv.flush();
    rows += table.size();
    print_summary(part, table);
    if (model) print_predictions(*model, table);
    table.clear();
  };

  // Consecutive jobs on the same problem share one input, filled and copied to the device
  // once (tt::measure still poisons, runs and verifies each kernel on its own).
  for (std::size_t i = 0; i < jobs.size();) {
    std::size_t end = i + 1;
    while (end < jobs.size() && same_problem(jobs[i], jobs[end])) ++end;
    if (i > 0 && !same_table(jobs[i - 1], jobs[i])) finish_table(jobs[i - 1].part);
    std::vector<tt::Selected> batch;
    for (std::size_t k = i; k < end; ++k) batch.push_back(jobs[k].selected);
    std::vector<std::optional<tt::Result>> results(batch.size());
    try {
      const auto measured = tt::measure(dev, jobs[i].problem, batch, o.config, failures);
      for (std::size_t k = 0; k < batch.size(); ++k) results[k] = measured.at(k);
    } catch (const tt::UsageError&) {  // a launch this device cannot make: find which, one by one
      for (std::size_t k = 0; k < batch.size(); ++k) {
        try {
          results[k] = tt::measure(dev, jobs[i].problem, {batch[k]}, o.config, failures).at(0);
        } catch (const tt::UsageError& e) {
          std::cerr << "[" << i + k + 1 << "/" << jobs.size() << "] " << label(jobs[i + k])
                    << " skipped: " << e.what() << "\n";
        }
      }
    }
    for (std::size_t k = 0; k < batch.size(); ++k) {
      if (!results[k]) continue;
      const tt::Result& r = *results[k];
      std::cerr << "[" << i + k + 1 << "/" << jobs.size() << "] " << label(jobs[i + k]) << " ... "
                << std::fixed << std::setprecision(0) << r.gbps << " GB/s"
                << (r.verified ? "" : " WRONG") << (r.fits_l2 ? " (L2)" : "") << "\n";
      table.push_back(r);
    }
    i = end;
  }
  if (!jobs.empty()) finish_table(jobs.back().part);
  tt::release_references();

  std::cout << "\nWrote " << rows << " rows to " << o.out << "\n";
  if (!failures.str().empty()) {
    std::cerr << failures.str();
    return tt::kExitVerifyFailed;
  }
  return tt::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  const int status = tt::guarded("bench", [&] { return run(argc, argv); });
  tt::release_references();
  return status;
}
