#include "runner.hpp"

#include <unistd.h>

#include <cstring>
#include <iostream>
#include <new>
#include <sstream>

#include "analyser.hpp"
#include "device_buffer.hpp"
#include "error.hpp"
#include "references.hpp"
#include "verify.hpp"

namespace tt {

void check_plan(const DeviceInfo& dev, const LaunchPlan& p, const std::string& name) {
  std::ostringstream os;
  const long long threads = static_cast<long long>(p.block.x) * p.block.y * p.block.z;
  const unsigned block[3] = {p.block.x, p.block.y, p.block.z};
  const unsigned grid[3] = {p.grid.x, p.grid.y, p.grid.z};
  const char* axis = "xyz";
  if (threads > dev.max_threads_per_block) {
    os << name << ": a block of " << p.block.x << " x " << p.block.y << " = " << threads
       << " threads exceeds this device's limit of " << dev.max_threads_per_block;
  }
  for (int i = 0; i < 3 && os.str().empty(); ++i) {
    if (block[i] > static_cast<unsigned>(dev.max_block_dim[i]))
      os << name << ": block." << axis[i] << " = " << block[i] << " exceeds the device limit "
         << dev.max_block_dim[i];
    else if (grid[i] > static_cast<unsigned>(dev.max_grid_dim[i]))
      os << name << ": the matrix needs " << grid[i] << " blocks along grid." << axis[i]
         << ", more than the device allows (" << dev.max_grid_dim[i]
         << "); use a smaller matrix (grid.y counts tiles of rows)";
  }
  if (os.str().empty() && p.shared_bytes > dev.shared_per_block)
    os << name << ": " << p.shared_bytes << " bytes of shared memory exceed the device's "
       << dev.shared_per_block << " per block";
  if (!os.str().empty()) throw UsageError(os.str());
}

void check_fits(const DeviceInfo& dev, const Problem& pb) {
  const long double bytes =
      static_cast<long double>(pb.shape.count()) * static_cast<long double>(dtype_size(pb.dtype));
  const std::size_t free_bytes = free_device_memory();
  std::ostringstream os;
  os.precision(3);
  if (2 * bytes + (64 << 20) > static_cast<long double>(free_bytes)) {
    os << pb.shape.rows << " x " << pb.shape.cols << " " << dtype_name(pb.dtype) << " needs "
       << static_cast<double>(2 * bytes / 1e9L) << " GB of device memory (input and output); "
       << dev.name << " has " << free_bytes / 1e9 << " GB free. Use a smaller --rows/--cols.";
    throw UsageError(os.str());
  }
  const long double host = static_cast<long double>(sysconf(_SC_PHYS_PAGES)) *
                           static_cast<long double>(sysconf(_SC_PAGE_SIZE));
  if (host > 0 && 2 * bytes > 0.8L * host) {
    os << pb.shape.rows << " x " << pb.shape.cols << " " << dtype_name(pb.dtype) << " needs "
       << static_cast<double>(2 * bytes / 1e9L)
       << " GB of host memory to verify the result; this machine has "
       << static_cast<double>(host / 1e9L) << " GB. Use a smaller --rows/--cols.";
    throw UsageError(os.str());
  }
}

namespace {

std::string block_text(const LaunchPlan& p, const Variant& v) {
  if (p.accesses.empty()) return "";  // a library call
  (void)v;
  std::ostringstream os;
  os << p.block.x << "x" << p.block.y;
  return os.str();
}

template <typename T>
LaunchFn<T> launcher(const Variant& v) {
  if constexpr (std::is_same_v<T, float>) {
    return v.run_f32;
  } else {
    return v.run_f64;
  }
}

template <typename T>
std::vector<Result> measure_typed(const DeviceInfo& dev, const Problem& pb,
                                  const std::vector<Selected>& selected, const RunConfig& cfg,
                                  std::ostream& log) {
  const std::size_t n = static_cast<std::size_t>(pb.shape.count());
  // Plans first: every launch is checked against the device before anything runs.
  std::vector<LaunchPlan> plans;
  for (const auto& s : selected) {
    plans.push_back(s.variant->plan(pb));
    check_plan(dev, plans.back(), s.step->id + "/" + s.variant->name);
  }
  check_fits(dev, pb);

  std::vector<T> host_in(n), host_out(n);
  fill_input(host_in);
  DeviceBuffer<T> in(n), out(n);
  TT_CUDA_CHECK(cudaMemcpy(in.get(), host_in.data(), in.bytes(), cudaMemcpyHostToDevice));
  cudaStream_t stream = nullptr;  // the default stream: every launch is ordered

  const double peak = peak_bandwidth_gbps(dev.memory_clock_khz, dev.bus_width_bits);
  std::vector<Result> results;
  for (std::size_t i = 0; i < selected.size(); ++i) {
    const Variant& v = *selected[i].variant;
    const LaunchPlan& plan = plans[i];
    const LaunchFn<T> run = launcher<T>(v);
    const auto launch = [&] {
      run(plan, in.get(), out.get(), pb.shape, stream);
      TT_CHECK_LAUNCH();
    };
    const auto check = [&](const char* when) {
      TT_CUDA_CHECK(cudaMemcpy(host_out.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
      const VerifyResult vr = verify(host_in.data(), host_out.data(), pb.shape, v.expect);
      if (!vr.ok())
        log << selected[i].step->id << "/" << v.name << " (" << when << "): " << describe(vr)
            << "\n";
      return vr.ok();
    };

    // Poison, run once, verify: an element the kernel forgets to write is caught.
    TT_CUDA_CHECK(cudaMemset(out.get(), kPoisonByte, out.bytes()));
    launch();
    TT_CUDA_CHECK(cudaDeviceSynchronize());
    bool ok = check("first run");

    Result r;
    r.stats = time_launches(launch, cfg.warmup, cfg.reps, stream);
    ok = check("after the timed runs") && ok;

    r.step = selected[i].step->id;
    r.variant = v.name;
    r.block = block_text(plan, v);
    r.dtype = pb.dtype;
    r.shape = pb.shape;
    r.gbps = effective_gbps(pb.shape.count(), sizeof(T), r.stats.median_ms);
    r.pct_peak = 100.0 * r.gbps / peak;
    r.verified = ok;
    r.fits_l2 = 2.0 * static_cast<double>(n) * sizeof(T) <= static_cast<double>(dev.l2_bytes);
    r.device = dev.name;
    r.cuda = cuda_version_string(dev.runtime_version);
    r.date = utc_now();
    results.push_back(r);
  }
  return results;
}

}  // namespace

std::vector<Result> measure(const DeviceInfo& dev, const Problem& pb,
                            const std::vector<Selected>& selected, const RunConfig& cfg,
                            std::ostream& log) {
  return pb.dtype == DType::f32 ? measure_typed<float>(dev, pb, selected, cfg, log)
                                : measure_typed<double>(dev, pb, selected, cfg, log);
}

void explain(const Step& step, const Variant& v, const Problem& pb, int warp, std::ostream& out) {
  const LaunchPlan plan = v.plan(pb);
  out << step.id << "/" << v.name << ": " << v.summary << "\n";
  out << "  " << pb.shape.rows << " x " << pb.shape.cols << " " << dtype_name(pb.dtype)
      << ", block " << plan.block.x << " x " << plan.block.y << " threads, grid " << plan.grid.x
      << " x " << plan.grid.y << " blocks";
  if (plan.shared_bytes) out << ", " << plan.shared_bytes << " bytes of shared memory a block";
  out << "\n";
  if (plan.accesses.empty()) {
    out << "  (a library call: its accesses are not ours to analyse)\n";
    return;
  }
  out << "\n  Predicted cost of each memory instruction, averaged over every warp of the launch:\n";
  for (const auto& a : plan.accesses) {
    const AccessTotals t = analyse_access(a, plan);
    std::ostringstream line;
    line.setf(std::ios::fixed);
    line.precision(2);
    line << "  " << kind_name(a) << " (" << a.width << " B)  " << a.code << "\n      "
         << t.per_instruction() << " " << unit_name(a) << ", ideal " << t.ideal_per_instruction();
    if (t.per_instruction() > 1.05 * t.ideal_per_instruction())
      line << "  -> " << t.per_instruction() / t.ideal_per_instruction() << "x the ideal";
    line << "   (" << t.instructions << " warp instructions" << (t.sampled ? ", sampled" : "")
         << ")\n";
    out << line.str();
  }
  out << "\n  Warp " << warp << " of block (0, 0), lane by lane:\n";
  for (const auto& a : plan.accesses) {
    const auto addr = warp_addresses(a, plan, uint3{0, 0, 0}, warp, 0);
    out << "\n  " << kind_name(a) << ": " << a.code << "\n";
    if (a.space == Space::shared) {
      const SharedCost c = shared_cost(addr, a.width);
      out << "  " << c.wavefronts << " wavefront(s), ideal " << c.ideal << " (" << c.phases
          << " phase(s) of " << lanes_per_phase(a.width) << " lanes)\n"
          << bank_picture(addr, a.width);
    } else {
      const GlobalCost c = global_cost(addr, a.width);
      out << "  " << c.sectors << " sector(s) of 32 B in " << c.lines << " line(s) of 128 B, ideal "
          << c.ideal_sectors << "\n"
          << sector_picture(addr, a.width);
    }
  }
}

void explain_csv(const Step& step, const Variant& v, const Problem& pb, bool header,
                 std::ostream& out) {
  if (header)
    out << "step,variant,dtype,rows,cols,block,kind,width,code,instructions,predicted,ideal,unit\n";
  const LaunchPlan plan = v.plan(pb);
  for (const auto& a : plan.accesses) {
    const AccessTotals t = analyse_access(a, plan);
    std::string code = a.code;
    for (auto& c : code)
      if (c == ',') c = ';';  // keep the CSV simple
    out << step.id << "," << v.name << "," << dtype_name(pb.dtype) << "," << pb.shape.rows << ","
        << pb.shape.cols << "," << plan.block.x << "x" << plan.block.y << "," << kind_name(a) << ","
        << a.width << "," << code << "," << t.instructions << "," << t.per_instruction() << ","
        << t.ideal_per_instruction() << "," << unit_name(a) << "\n";
  }
}

void explain_svg(const Step& step, const std::vector<const Variant*>& variants, const Problem& pb,
                 int warp, std::ostream& out) {
  std::vector<BankFigure> figures;
  for (const Variant* v : variants) {
    const LaunchPlan plan = v->plan(pb);
    for (const auto& a : plan.accesses) {
      if (a.space != Space::shared) continue;
      figures.push_back({step.id + "/" + v->name + ", warp " + std::to_string(warp) + ": " +
                             kind_name(a) + " " + a.code,
                         warp_addresses(a, plan, uint3{0, 0, 0}, warp, 0), a.width});
    }
  }
  if (figures.empty())
    throw UsageError("--format svg draws shared-memory banks, and " + step.id +
                     " touches no shared memory; use --explain alone for its sectors");
  out << bank_svg(figures);
}

int guarded(const std::string& program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << program << ": error: " << e.what() << "\n"
              << "Run '" << program << " --help' for usage.\n";
    return kExitUsage;
  } catch (const NoDeviceError& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return kExitNoDevice;
  } catch (const CudaError& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return e.code() == cudaErrorMemoryAllocation ? kExitOutOfMemory : kExitCudaError;
  } catch (const std::bad_alloc&) {
    std::cerr << program << ": out of host memory\n";
    return kExitOutOfMemory;
  }
}

int run_step(const Step& step, int argc, char** argv) {
  const int status = guarded(step.id, [&]() -> int {
    const auto parsed = parse_options(step, argc, argv, std::cout);
    if (!parsed) return kExitOk;
    const Options& o = *parsed;
    const Problem pb{o.shape, o.dtype, o.block};

    std::vector<const Variant*> chosen;
    for (const auto& v : step.variants)
      if ((o.variant == "all" && v.supports(o.dtype)) || v.name == o.variant) chosen.push_back(&v);

    if (o.list) {
      for (const auto& v : step.variants)
        std::cout << v.name << (v.name == step.default_variant ? " (default)" : "") << ": "
                  << v.summary << "\n";
      return kExitOk;
    }
    if (o.explain && o.format == Format::svg) {
      explain_svg(step, chosen, pb, o.warp, std::cout);
      return kExitOk;
    }
    if (o.explain && o.format == Format::csv) {
      for (std::size_t i = 0; i < chosen.size(); ++i)
        explain_csv(step, *chosen[i], pb, i == 0, std::cout);
      return kExitOk;
    }
    if (o.explain) {
      for (std::size_t i = 0; i < chosen.size(); ++i) {
        if (i) std::cout << "\n";
        explain(step, *chosen[i], pb, o.warp, std::cout);
      }
      return kExitOk;
    }

    const DeviceInfo dev = select_device(o.device);
    std::vector<Selected> selected;
    if (o.compare && &step != &references()) {
      for (const char* name : {"memcpy", "copy-kernel", "cublas"})
        selected.push_back({&references(), references().find(name)});
    }
    for (const Variant* v : chosen) selected.push_back({&step, v});

    if (o.format == Format::text) {
      std::cout << step.id << ": " << step.title << "\n" << describe(dev) << "\n";
      std::cout << "Matrix " << o.shape.rows << " x " << o.shape.cols << " " << dtype_name(o.dtype)
                << ", " << o.warmup << " warm-up + " << o.reps
                << " timed launches each (median, min, max)\n\n";
    }
    std::ostringstream failures;
    std::vector<Result> results = measure(dev, pb, selected, {o.warmup, o.reps}, failures);
    add_ratios(results);
    release_references();

    if (o.format == Format::text) {
      std::cout << format_table(results);
    } else if (o.format == Format::csv) {
      std::cout << csv_header() << "\n";
      for (const auto& r : results) std::cout << csv_row(r) << "\n";
    } else {
      for (const auto& r : results) std::cout << json_line(r) << "\n";
    }
    if (!failures.str().empty()) {
      std::cerr << failures.str();
      return kExitVerifyFailed;
    }
    return kExitOk;
  });
  release_references();
  return status;
}

}  // namespace tt
