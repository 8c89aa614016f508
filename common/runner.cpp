#include "runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <new>
#include <sstream>

#include "analyser.hpp"
#include "compare.hpp"
#include "device_buffer.hpp"
#include "error.hpp"
#include "references.hpp"
#include "verify.hpp"

namespace tt {

/// Device memory a run leaves free beside its matrices, for the rest of the process's
/// allocations: 64 MiB.
constexpr std::size_t kDeviceHeadroom = std::size_t{64} << 20;

void check_limits(const LaunchPlan& p, const std::string& name) {
  // Limits of every device of compute capability 7.5 or newer (the oldest this course builds
  // for): a device may allow more, never less.
  constexpr long long kThreads = 1024, kBlockXY = 1024, kBlockZ = 64;
  constexpr long long kGridX = 2147483647, kGridYZ = 65535;
  constexpr std::size_t kStaticShared = 48 * 1024;
  const DeviceInfo any = [] {
    DeviceInfo d;
    d.name = "every CUDA device";
    d.max_threads_per_block = static_cast<int>(kThreads);
    d.max_block_dim[0] = d.max_block_dim[1] = static_cast<int>(kBlockXY);
    d.max_block_dim[2] = static_cast<int>(kBlockZ);
    d.max_grid_dim[0] = static_cast<int>(kGridX);
    d.max_grid_dim[1] = d.max_grid_dim[2] = static_cast<int>(kGridYZ);
    d.shared_per_block = kStaticShared;
    return d;
  }();
  check_plan(any, p, name);
}

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
      os << name << ": this matrix needs a grid of " << grid[i] << " blocks along " << axis[i]
         << " (each block " << block[i] << " thread(s) along " << axis[i] << "), more than "
         << (dev.name.empty() ? "the device" : dev.name) << " allows (" << dev.max_grid_dim[i]
         << "); use a smaller matrix"
         << (i > 0 ? ", or, where --block is taken, more threads along " + std::string(1, axis[i])
                   : std::string());
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
  if (2 * bytes + kDeviceHeadroom > static_cast<long double>(free_bytes)) {
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
    if (!runs_on(*s.variant, dev.cc_major, dev.cc_minor))
      throw UsageError(
          needs_newer_gpu(s.step->id, *s.variant, dev.name, dev.cc_major, dev.cc_minor));
    plans.push_back(s.variant->plan(s.step->problem_for(pb)));
    check_plan(dev, plans.back(), s.step->id + "/" + s.variant->name);
  }
  check_fits(dev, pb);

  std::vector<T> host_in(n), host_out(n);
  fill_input(host_in);
  DeviceBuffer<T> in(n), out(n);
  TT_CUDA_CHECK(cudaMemcpy(in.get(), host_in.data(), in.bytes(), cudaMemcpyHostToDevice));
  cudaStream_t stream = nullptr;  // the default stream: every launch is ordered

  // What a correct kernel writes, on the device: the input itself for a copy; for a transpose
  // the CPU reference's result, made once for every kernel of this problem. Each check then
  // compares there, bit for bit, and copies an output back only to say what is wrong in it.
  // Without room for the reference, each output is copied back and compared on the CPU.
  DeviceBuffer<T> reference;
  bool reference_tried = false;
  const auto expected_on_device = [&](Expect expect) -> const T* {
    if (expect == Expect::copy) return in.get();
    if (!reference_tried) {
      reference_tried = true;
      if (free_device_memory() > out.bytes() + kDeviceHeadroom) {
        reference_transpose(host_in.data(), host_out.data(), pb.shape);
        reference = DeviceBuffer<T>(n);
        TT_CUDA_CHECK(cudaMemcpy(reference.get(), host_out.data(), reference.bytes(),
                                 cudaMemcpyHostToDevice));
      }
    }
    return reference.get();
  };

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
      const T* want = expected_on_device(v.expect);
      if (want != nullptr && count_different_words(out.get(), want, out.bytes(), stream) == 0)
        return true;
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
    if (cfg.reps > 0) {  // with --once, the first run is the only one
      r.stats = time_launches(launch, cfg.warmup, cfg.reps, stream);
      ok = check("after the timed runs") && ok;
    }

    r.step = selected[i].step->id;
    r.variant = v.name;
    r.block = block_text(plan, v);
    r.dtype = pb.dtype;
    r.shape = pb.shape;
    r.gbps = effective_gbps(pb.shape.count(), sizeof(T), r.stats.median_ms);  // 0 if untimed
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

Analysis analyse(const Step& step, const Variant& v, const Problem& pb,
                 std::uint64_t sample_blocks) {
  const Problem own = step.problem_for(pb);
  Analysis a{&step, &v, own, v.plan(own), {}};
  check_limits(a.plan, step.id + "/" + v.name);
  for (const auto& access : a.plan.accesses)
    a.totals.push_back(analyse_access(access, a.plan, sample_blocks));
  return a;
}

void check_warp(const LaunchPlan& plan, int warp) {
  const long long threads = static_cast<long long>(plan.block.x) * plan.block.y * plan.block.z;
  const long long warps = (threads + 31) / 32;
  if (warp >= warps) {
    std::ostringstream os;
    os << "--warp " << warp << ": a block of " << threads << " thread(s) has "
       << (warps == 1 ? "only warp 0" : "warps 0 to " + std::to_string(warps - 1));
    throw UsageError(os.str());
  }
}

namespace {

std::string fixed2(double x) { return fixed(x, 2); }

/// "each thread issues 4 global loads of 16 bytes before its first store: 64 bytes in flight"
std::string in_flight(const LaunchPlan& p) {
  if (p.boxes_per_block > 0) {
    std::ostringstream os;
    os << "one thread of each block asks the copy engine for " << p.boxes_per_block
       << (p.boxes_per_block == 1 ? " box" : " boxes") << " of " << p.box_bytes
       << " bytes, and the block waits on one barrier:\n  "
       << p.boxes_per_block * p.box_bytes << " bytes in flight a block, in no register";
    if (p.store_boxes_per_block > 0)
      os << ";\n  the same thread has it copy the output tile out, " << p.store_boxes_per_block
         << (p.store_boxes_per_block == 1 ? " box" : " boxes");
    return os.str();
  }
  if (p.loads_per_thread == 0) return "";
  std::ostringstream os;
  const bool tiled = std::any_of(p.accesses.begin(), p.accesses.end(),
                                 [](const Access& x) { return x.space == Space::shared; });
  const bool async =
      std::any_of(p.accesses.begin(), p.accesses.end(), [](const Access& x) { return x.async; });
  const bool many = p.loads_per_thread > 1;
  const char* what = async ? (many ? "cp.async copies" : "cp.async copy")
                           : (many ? "global loads" : "global load");
  os << "each thread issues " << p.loads_per_thread << " " << what << " of " << p.load_bytes
     << " bytes "
     << (async ? "into its tile before it waits for them"
               : std::string("before its first ") + (tiled ? "shared store" : "store"))
     << ":\n  " << p.loads_per_thread * p.load_bytes << " bytes in flight a thread"
     << (async ? ", in no register" : "");
  if (p.edge_loads_per_thread > 0)
    os << "\n  (in the edge and seam blocks, " << p.edge_loads_per_thread << " loads of "
       << p.edge_load_bytes << " bytes before a shared store)";
  if (p.register_loads_per_thread > 0)
    os << "\n  (the seam blocks' threads load through registers, " << p.register_loads_per_thread
       << (p.register_loads_per_thread == 1 ? " load" : " loads") << " before a shared store)";
  if (p.l2_prefetch > 0)
    os << "\n  each of the " << p.load_bytes << "-byte loads asks the L2, where it misses, for the "
       << p.l2_prefetch << " bytes around it (LDG.E.LTC" << p.l2_prefetch << "B)";
  return os.str();
}

}  // namespace

void explain(const Analysis& a, int warp, std::ostream& out) {
  const LaunchPlan& plan = a.plan;
  const Problem& pb = a.problem;
  out << a.step->id << "/" << a.variant->name << ": " << a.variant->summary << "\n";
  out << "  " << pb.shape.rows << " x " << pb.shape.cols << " " << dtype_name(pb.dtype)
      << ", block " << plan.block.x << " x " << plan.block.y << " threads, grid " << plan.grid.x
      << " x " << plan.grid.y << " blocks";
  if (plan.shared_bytes) out << ", " << plan.shared_bytes << " bytes of shared memory a block";
  out << "\n";
  if (plan.accesses.empty()) {
    out << "  (a library call: its accesses are not ours to analyse)\n";
    return;
  }
  if (!plan.kernel.empty()) out << "  kernel " << plan.kernel << "\n";
  if (!in_flight(plan).empty()) out << "  " << in_flight(plan) << "\n";
  check_warp(plan, warp);

  out << "\n  Predicted cost of each memory instruction, averaged over every warp of the launch\n"
      << "  (ideal: the fewest sectors or wavefronts the bytes of the same active lanes need):\n";
  bool sampled = false;
  for (std::size_t i = 0; i < plan.accesses.size(); ++i) {
    const Access& x = plan.accesses[i];
    const AccessTotals& t = a.totals[i];
    sampled = sampled || t.sampled();
    std::ostringstream line;
    if (t.instructions == 0) {  // a path this shape does not take (step 11's seam loads)
      out << "  " << kind_name(x) << " (" << x.width << " B)  " << x.code << "\n      "
          << (t.sampled() ? "no warp of the blocks visited makes it (--sample 0: every block)"
                          : "no warp makes it at this shape")
          << "\n";
      continue;
    }
    line << "  " << kind_name(x) << " (" << x.width << " B)  " << x.code << "\n      "
         << fixed2(t.per_instruction()) << " " << unit_name(x) << ", ideal "
         << fixed2(t.ideal_per_instruction());
    if (t.per_instruction() > 1.05 * t.ideal_per_instruction())
      line << "  -> " << fixed2(t.per_instruction() / t.ideal_per_instruction()) << "x the ideal";
    if (x.tma)
      line << "   (" << t.instructions << " warps' worth of 16-byte chunks;\n      the copy engine "
           << "moves them as " << (x.op == Op::store ? plan.store_boxes : plan.boxes)
           << " box copies, one instruction of one thread each)\n";
    else
      line << "   (" << t.instructions << " warp instructions)\n";
    if (x.space == Space::global && t.partial > 0) {
      // --sample 0 (every block visited) searches every other block too, whatever the size.
      const PartialCompletion pc =
          partial_completion(x, plan, middle_block(plan), t.sampled() ? 1u << 22 : 0);
      line << "      partial sectors: " << fixed2(double(t.partial) / t.instructions) << " a "
           << "request (sectors a warp " << (x.op == Op::load ? "reads" : "writes")
           << " only in part)";
      if (pc.sectors > 0)
        line << ";\n      of the " << pc.sectors << " sectors block (" << pc.block.x << ", "
             << pc.block.y << ") touches in part, " << pc.same_block
             << " are completed by the block itself";
      if (pc.sectors > 0 && pc.searched)
        line << ",\n      " << pc.other_blocks << " only with other blocks' bytes, " << pc.never
             << " never (the matrix's edge)";
      if (pc.sectors > pc.same_block && !pc.searched)
        line << ";\n      the others need other blocks' bytes (--sample 0 searches the grid for "
                "them)";
      line << "\n";
    }
    // Loads: what the L2 is asked for, where it is not the matrix's own sectors (a block that
    // reads sectors other blocks read too): the sectors, and the requests (each instruction's
    // lines that are new to its block). Stores pass the L1 to the L2 request by request.
    const double matrix = double(pb.shape.count()) * double(dtype_size(pb.dtype)) / kSectorBytes;
    if (x.space == Space::global && x.op == Op::load && t.block_sectors > 0 &&
        std::abs(double(t.block_sectors) / matrix - 1.0) >= 0.005)
      line << "      L2: " << t.block_sectors << " sectors (each block's distinct sectors, "
           << "summed), " << fixed2(double(t.block_sectors) / matrix)
           << " for each sector of the matrix\n"
           << "      L2 requests: " << t.block_requests << " (each instruction's lines that hold "
           << "a sector its block had not read), of " << t.lines << " lines touched ("
           << fixed2(double(t.lines) / t.instructions) << " a request)\n";
    if (t.instructions && t.lanes_per_instruction() < 31.0)
      line << "      -> only " << fixed2(t.lanes_per_instruction())
           << " of 32 lanes active per instruction on average: a full warp would need "
           << fixed2(32.0 / t.lanes_per_instruction()) << "x fewer instructions\n";
    out << line.str();
  }
  if (sampled) {
    out << "  The counts are estimates: the analysis visited " << a.totals.front().visited
        << " of the launch's " << a.totals.front().blocks
        << " blocks, spread evenly\n  over the grid, and scaled the counts up (--sample 0 "
           "visits every block).\n";
  }
  out << "\n  Warp " << warp << " of block (0, 0), lane by lane:\n";
  for (const auto& x : plan.accesses) {
    const auto addr = warp_addresses(x, plan, uint3{0, 0, 0}, warp, 0);
    out << "\n  " << kind_name(x) << ": " << x.code << "\n";
    if (std::none_of(addr.begin(), addr.end(), [](const auto& v) { return v.has_value(); })) {
      out << "  (no lane of this warp executes it in the first pass: its elements are outside "
             "the matrix,\n   or this block takes another path)\n";
      continue;
    }
    if (x.space == Space::shared) {
      const SharedCost c = shared_cost(addr, x.width, x.op);
      out << "  " << c.wavefronts << " wavefront(s), ideal " << c.ideal << " (" << c.phases
          << " phase(s) of " << phase_lanes(addr, x.width, x.op) << " lanes)\n"
          << bank_picture(addr, x.width, x.op);
    } else {
      const GlobalCost c = global_cost(addr, x.width);
      out << "  " << c.sectors << " sector(s) of 32 B in " << c.lines << " line(s) of 128 B, ideal "
          << c.ideal_sectors << "\n"
          << sector_picture(addr, x.width);
    }
  }
}

void explain_csv(const Analysis& a, bool header, std::ostream& out) {
  if (header)
    out << "step,variant,dtype,rows,cols,block,kind,width,code,instructions,predicted,ideal,unit,"
           "lanes,kernel,loads_per_thread,load_bytes\n";
  const LaunchPlan& plan = a.plan;
  const auto no_commas = [](std::string text) {
    for (auto& c : text)
      if (c == ',') c = ';';  // keep the CSV simple
    return text;
  };
  for (std::size_t i = 0; i < plan.accesses.size(); ++i) {
    const Access& x = plan.accesses[i];
    const AccessTotals& t = a.totals[i];
    out << a.step->id << "," << a.variant->name << "," << dtype_name(a.problem.dtype) << ","
        << a.problem.shape.rows << "," << a.problem.shape.cols << "," << plan.block.x << "x"
        << plan.block.y << "," << kind_name(x) << "," << x.width << "," << no_commas(x.code) << ","
        << t.instructions << "," << t.per_instruction() << "," << t.ideal_per_instruction() << ","
        << unit_name(x) << "," << t.lanes_per_instruction() << "," << no_commas(plan.kernel) << ","
        << plan.loads_per_thread << "," << plan.load_bytes << "\n";
  }
}

void explain_json(const Analysis& a, std::ostream& out) {
  const LaunchPlan& p = a.plan;
  std::ostringstream os;
  os.precision(17);
  os << "{\"step\":\"" << json_escape(a.step->id) << "\",\"variant\":\""
     << json_escape(a.variant->name) << "\",\"dtype\":\"" << dtype_name(a.problem.dtype)
     << "\",\"rows\":" << a.problem.shape.rows << ",\"cols\":" << a.problem.shape.cols
     << ",\"grid\":[" << p.grid.x << "," << p.grid.y << "," << p.grid.z << "],\"block\":["
     << p.block.x << "," << p.block.y << "," << p.block.z << "],\"shared_bytes\":" << p.shared_bytes
     << ",\"kernel\":\"" << json_escape(p.kernel)
     << "\",\"loads_per_thread\":" << p.loads_per_thread << ",\"load_bytes\":" << p.load_bytes
     << ",\"register_loads_per_thread\":" << p.register_loads_per_thread
     << ",\"edge_loads_per_thread\":" << p.edge_loads_per_thread
     << ",\"edge_load_bytes\":" << p.edge_load_bytes << ",\"l2_prefetch\":" << p.l2_prefetch
     << ",\"boxes_per_block\":" << p.boxes_per_block << ",\"box_bytes\":" << p.box_bytes
     << ",\"boxes\":" << p.boxes << ",\"store_boxes_per_block\":" << p.store_boxes_per_block
     << ",\"store_boxes\":" << p.store_boxes
     << ",\"blocks\":" << (a.totals.empty() ? 0 : a.totals.front().blocks)
     << ",\"blocks_visited\":" << (a.totals.empty() ? 0 : a.totals.front().visited)
     << ",\"accesses\":[";
  for (std::size_t i = 0; i < p.accesses.size(); ++i) {
    const Access& x = p.accesses[i];
    const AccessTotals& t = a.totals[i];
    os << (i ? "," : "") << "{\"kind\":\"" << kind_name(x)
       << "\",\"async\":" << (x.async ? "true" : "false")
       << ",\"tma\":" << (x.tma ? "true" : "false") << ",\"width\":" << x.width
       << ",\"iterations\":" << x.iterations << ",\"code\":\"" << json_escape(x.code)
       << "\",\"instructions\":" << t.instructions << ",\"cost\":" << t.cost
       << ",\"block_sectors\":" << t.block_sectors << ",\"ideal\":" << t.ideal
       << ",\"lanes\":" << t.lanes << ",\"partial\":" << t.partial << ",\"lines\":" << t.lines
       << ",\"block_requests\":" << t.block_requests << ",\"predicted\":" << t.per_instruction()
       << ",\"ideal_per_instruction\":" << t.ideal_per_instruction() << ",\"unit\":\""
       << unit_name(x) << "\",\"per_iteration\":[";
    for (std::size_t k = 0; k < t.per_iteration.size(); ++k)
      os << (k ? "," : "") << "[" << t.per_iteration[k][0] << "," << t.per_iteration[k][1] << ","
         << t.per_iteration[k][2] << "]";
    os << "]}";
  }
  os << "]}";
  out << os.str() << "\n";
}

void explain_svg(const std::vector<Analysis>& analyses, int warp, std::ostream& out) {
  std::vector<BankFigure> figures;
  std::string id;
  for (const Analysis& a : analyses) {
    id = a.step->id;
    check_warp(a.plan, warp);
    for (const auto& x : a.plan.accesses) {
      if (x.space != Space::shared) continue;
      figures.push_back({a.step->id + "/" + a.variant->name + ", warp " + std::to_string(warp) +
                             ": " + kind_name(x) + " " + x.code,
                         warp_addresses(x, a.plan, uint3{0, 0, 0}, warp, 0), x.width, x.op});
    }
  }
  if (figures.empty())
    throw UsageError("--format svg draws shared-memory banks, and " + id +
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

    std::vector<const Variant*> chosen;  // in the step's order
    const std::vector<std::string> named = variant_names(o.variant);
    for (const auto& v : step.variants)
      if ((o.variant == "all" && v.supports(o.dtype)) ||
          std::find(named.begin(), named.end(), v.name) != named.end())
        chosen.push_back(&v);

    // Every plan is checked against the limits of every CUDA device first, so that a shape
    // no device can launch is refused alike with or without a GPU, in every mode.
    for (const Variant* v : chosen) check_limits(v->plan(pb), step.id + "/" + v->name);

    if (o.list) {
      for (const auto& v : step.variants) {
        std::cout << v.name << (v.name == step.default_variant ? " (default)" : "") << ": "
                  << v.summary;
        if (v.needs_sm > 0)
          std::cout << " [needs compute capability " << v.needs_sm / 10 << "." << v.needs_sm % 10
                    << ": " << v.needs_what << "]";
        std::cout << "\n";
      }
      return kExitOk;
    }
    if (o.explain) {
      std::vector<Analysis> analyses;
      for (const Variant* v : chosen) {
        analyses.push_back(analyse(step, *v, pb, o.sample));
        check_warp(analyses.back().plan, o.warp);
      }
      for (std::size_t i = 0; i < analyses.size(); ++i) {
        if (o.format == Format::csv) {
          explain_csv(analyses[i], i == 0, std::cout);
        } else if (o.format == Format::json) {
          explain_json(analyses[i], std::cout);
        } else if (o.format == Format::text) {
          if (i) std::cout << "\n";
          explain(analyses[i], o.warp, std::cout);
        }
      }
      if (o.format == Format::svg) explain_svg(analyses, o.warp, std::cout);
      return kExitOk;
    }

    const DeviceInfo dev = select_device(o.device);
    std::vector<Selected> selected;
    if (o.compare && &step != &references()) {
      for (const char* name : {"memcpy", "copy-kernel", "cublas"})
        selected.push_back({&references(), references().find(name)});
    }
    // A variant whose instructions this GPU lacks is named, not launched; the others run.
    std::vector<std::string> not_run;
    for (const Variant* v : chosen) {
      if (runs_on(*v, dev.cc_major, dev.cc_minor))
        selected.push_back({&step, v});
      else
        not_run.push_back(needs_newer_gpu(step.id, *v, dev.name, dev.cc_major, dev.cc_minor));
    }

    if (o.format == Format::text) {
      std::cout << step.id << ": " << step.title << "\n" << describe(dev) << "\n";
      std::cout << "Matrix " << o.shape.rows << " x " << o.shape.cols << " " << dtype_name(o.dtype)
                << ", ";
      if (o.reps > 0)
        std::cout << o.warmup << " warm-up + " << o.reps
                  << " timed launches each (median, min, max)\n\n";
      else
        std::cout << "one untimed launch each (--once)\n\n";
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
    for (const auto& line : not_run) std::cerr << line << "\n";
    if (!failures.str().empty()) {
      std::cerr << failures.str();
      return kExitVerifyFailed;
    }
    return not_run.empty() ? kExitOk : kExitNeedsNewerGpu;
  });
  release_references();
  return status;
}

}  // namespace tt
