// The tour: every transpose step of the course, in order, with the references, on one
// matrix and in one process, as one table. On a machine without a GPU it prints what needs
// none, each step's access analysis, and exits with status 3 (no CUDA device).
//
// Run:   tour                         # 8192 x 8192 float
//        tour --size 16384 --dtype double
//        tour --variant 05-multi-element
//        tour --explain               # the access analysis of every step

#include <iostream>
#include <sstream>

#include "error.hpp"
#include "references.hpp"
#include "registry.hpp"
#include "runner.hpp"

namespace {

/// The tour as a step whose variants are the steps' headline variants, named by step.
tt::Step tour_description() {
  tt::Step s;
  s.id = "tour";
  s.title = "every step of the course in order, beside memcpy and cuBLAS";
  for (const tt::Step* st : tt::tutorial_steps()) {
    tt::Variant v = st->headline_variant();
    v.name = st->id;
    v.summary = st->title;
    s.variants.push_back(v);
  }
  s.default_variant = "all";
  return s;
}

/// The steps --variant selects ("all", or one step's id).
std::vector<const tt::Step*> chosen_steps(const tt::Options& o) {
  std::vector<const tt::Step*> out;
  for (const tt::Step* st : tt::tutorial_steps())
    if (o.variant == "all" || o.variant == st->id) out.push_back(st);
  return out;
}

/// The problem a step's own program runs by default: its default block where it takes one.
tt::Problem problem_of(const tt::Step& st, const tt::Options& o) {
  return {o.shape, o.dtype, st.block_for()};
}

/// Every chosen step's access analysis, in the chosen format.
void explain_steps(const std::vector<const tt::Step*>& steps, const tt::Options& o) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const tt::Step& st = *steps[i];
    const tt::Analysis a = tt::analyse(st, st.headline_variant(), problem_of(st, o), o.sample);
    if (o.format == tt::Format::csv) {
      tt::explain_csv(a, i == 0, std::cout);
    } else if (o.format == tt::Format::json) {
      tt::explain_json(a, std::cout);
    } else {
      tt::explain(a, o.warp, std::cout);
      std::cout << "\n";
    }
  }
}

/// The last line: to stdout after a table, to stderr after CSV or JSON (which stay clean).
void summary(const tt::Options& o, const std::string& line) {
  (o.format == tt::Format::text ? std::cout : std::cerr) << "tour: " << line << "\n";
}

int run(int argc, char** argv) {
  static const tt::Step description = tour_description();
  const auto parsed = tt::parse_options(description, argc, argv, std::cout);
  if (!parsed) return tt::kExitOk;
  const tt::Options& o = *parsed;
  if (o.format == tt::Format::svg)
    throw tt::UsageError("--format svg draws one step's banks: run it on a step's program");
  const std::vector<const tt::Step*> steps = chosen_steps(o);
  for (const tt::Step* st : steps)
    tt::check_limits(st->headline_variant().plan(problem_of(*st, o)), st->id);
  if (o.list) {
    for (const tt::Step* st : steps)
      std::cout << st->id << " (" << st->headline_variant().name << "): " << st->title << "\n";
    return tt::kExitOk;
  }
  if (o.explain) {
    explain_steps(steps, o);
    return tt::kExitOk;
  }

  tt::DeviceInfo dev;
  try {
    dev = tt::select_device(o.device);
  } catch (const tt::NoDeviceError& e) {
    if (o.format == tt::Format::text)
      std::cout << "tour: " << e.what() << "\n\nWithout a GPU nothing can be timed; here is what "
                << "each step's kernel does to memory instead.\n\n";
    else
      std::cerr << "tour: " << e.what() << "\n";
    explain_steps(steps, o);
    summary(o, "no usable CUDA device, so nothing was timed; the access analysis of " +
                   std::to_string(steps.size()) + " step(s) is printed instead. Exit status 3.");
    return tt::kExitNoDevice;
  }

  std::vector<tt::Selected> selected;
  for (const char* name : {"memcpy", "copy-kernel", "cublas"})
    selected.push_back({&tt::references(), tt::references().find(name)});
  for (const tt::Step* st : steps) {
    const tt::Variant* v = &st->headline_variant();
    if (!v->supports(o.dtype)) continue;
    if (tt::runs_on(*v, dev.cc_major, dev.cc_minor))
      selected.push_back({st, v});
    else  // its instructions are not on this GPU: said, and left out of the table
      std::cerr << "tour: " << tt::needs_newer_gpu(st->id, *v, dev.name, dev.cc_major, dev.cc_minor)
                << "\n";
  }

  if (o.format == tt::Format::text)
    std::cout << "Tour: " << description.title << "\n"
              << tt::describe(dev) << "\n"
              << "Matrix " << o.shape.rows << " x " << o.shape.cols << " "
              << tt::dtype_name(o.dtype) << ", " << o.warmup << " warm-up + " << o.reps
              << " timed launches each (median, min, max)\n\n";
  std::ostringstream failures;
  // Each step runs with its default block shape, as its own program does.
  std::vector<tt::Result> results;
  for (const auto& s : selected) {
    auto r = tt::measure(dev, problem_of(*s.step, o), {s}, {o.warmup, o.reps}, failures);
    results.insert(results.end(), r.begin(), r.end());
  }
  tt::add_ratios(results);
  tt::release_references();
  if (o.format == tt::Format::csv) {
    std::cout << tt::csv_header() << "\n";
    for (const auto& r : results) std::cout << tt::csv_row(r) << "\n";
  } else if (o.format == tt::Format::json) {
    for (const auto& r : results) std::cout << tt::json_line(r) << "\n";
  } else {
    std::cout << tt::format_table(results);
  }
  if (!failures.str().empty()) {
    std::cerr << failures.str();
    summary(o, "a kernel produced a wrong result (above). Exit status 1.");
    return tt::kExitVerifyFailed;
  }
  summary(o, std::to_string(results.size()) + " kernels measured on " + dev.name +
                 ", every result verified bit for bit.");
  return tt::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  const int status = tt::guarded("tour", [&] { return run(argc, argv); });
  tt::release_references();
  return status;
}
