// The tour: every transpose step of the course, in order, with the references, on one
// matrix and in one process, as one table. On a machine without a GPU it says so and prints
// what needs none: each step's access analysis.
//
// Run:   tour                         # 8192 x 8192 float
//        tour --size 16384 --dtype double
//        tour --explain               # the access analysis of every step

#include <iostream>

#include "error.hpp"
#include "references.hpp"
#include "registry.hpp"
#include "runner.hpp"

namespace {

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

void explain_all(const tt::Options& o) {
  for (const tt::Step* st : tt::tutorial_steps()) {
    const tt::Problem pb{o.shape, o.dtype,
                         st->takes_block ? std::optional(st->default_block) : std::nullopt};
    tt::explain(*st, st->headline_variant(), pb, o.warp, std::cout);
    std::cout << "\n";
  }
}

int run(int argc, char** argv) {
  static const tt::Step description = tour_description();
  const auto parsed = tt::parse_options(description, argc, argv, std::cout);
  if (!parsed) return tt::kExitOk;
  const tt::Options& o = *parsed;
  if (o.format == tt::Format::svg)
    throw tt::UsageError("--format svg draws one step's banks: run it on a step's program");
  if (o.explain) {
    explain_all(o);
    return tt::kExitOk;
  }
  tt::DeviceInfo dev;
  try {
    dev = tt::select_device(o.device);
  } catch (const tt::NoDeviceError& e) {
    std::cout << "tour: " << e.what() << "\n\nWithout a GPU nothing can be timed; here is what "
              << "each step's kernel does to memory instead.\n\n";
    explain_all(o);
    return tt::kExitOk;
  }

  std::vector<tt::Selected> selected;
  for (const char* name : {"memcpy", "copy-kernel", "cublas"})
    selected.push_back({&tt::references(), tt::references().find(name)});
  for (const tt::Step* st : tt::tutorial_steps())
    if (o.variant == "all" || o.variant == st->id) {
      const tt::Variant* v = &st->headline_variant();
      if (v->supports(o.dtype)) selected.push_back({st, v});
    }

  std::cout << "Tour: " << description.title << "\n"
            << tt::describe(dev) << "\n"
            << "Matrix " << o.shape.rows << " x " << o.shape.cols << " " << tt::dtype_name(o.dtype)
            << ", " << o.warmup << " warm-up + " << o.reps
            << " timed launches each (median, min, max)\n\n";
  std::ostringstream failures;
  // Each step runs with its default block shape, as its own program does.
  std::vector<tt::Result> results;
  for (const auto& s : selected) {
    const tt::Problem pb{o.shape, o.dtype,
                         s.step->takes_block ? std::optional(s.step->default_block) : std::nullopt};
    auto r = tt::measure(dev, pb, {s}, {o.warmup, o.reps}, failures);
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
    return tt::kExitVerifyFailed;
  }
  return tt::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  const int status = tt::guarded("tour", [&] { return run(argc, argv); });
  tt::release_references();
  return status;
}
