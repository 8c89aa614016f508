// The program 18-all-to-all: its command line, then its processes, one a GPU, each running
// step18::run_rank (all_to_all.cpp). It is its own launcher: --gpus P forks P processes on this
// host. Under mpirun or srun (across hosts too) every process it starts is one rank, and rank 0
// hands NCCL's id to the others through the file --id-file names.
//
// Build it alone with: cmake --build build --target 18-all-to-all
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <string>

#include "18-all-to-all/all_to_all.hpp"
#include "18-all-to-all/launcher.hpp"
#include "cli.hpp"
#include "error.hpp"
#include "runner.hpp"

namespace {

const std::string kProgram = "18-all-to-all";

/// The command line, or nothing after --help. Throws tt::UsageError.
std::optional<step18::Options> parse(int argc, char** argv) {
  step18::Options o;
  CLI::App app{kProgram + ": one matrix over several GPUs, transposed by an all-to-all (NCCL)"};
  app.option_defaults()->always_capture_default();
  app.add_option("-m,--rows", o.rows, "Rows of the input matrix (M)")
      ->check(tt::whole_number(1, tt::kMaxDim));
  app.add_option("-n,--cols", o.cols, "Columns of the input matrix (N)")
      ->check(tt::whole_number(1, tt::kMaxDim));
  std::string dtype = "float";
  app.add_option("-t,--dtype", dtype, "Element type")->check(CLI::IsMember({"float", "double"}));
  std::string variant = "all";
  app.add_option("-v,--variant", variant, "nccl, peer or all");
  auto* gpus = app.add_option("-g,--gpus", o.gpus,
                              "Processes to fork, one a GPU of this host (default 1; "
                              "leave it out under mpirun or srun)")
                   ->check(tt::whole_number(1, 1024));
  auto* warmup = app.add_option("--warmup", o.warmup, "Untimed repetitions before timing")
                     ->check(tt::whole_number(0, 100000));
  auto* reps = app.add_option("--reps", o.reps, "Timed repetitions (the median is reported)")
                   ->check(tt::whole_number(1, 100000));
  bool once = false, no_compare = false;
  app.add_flag("--once", once, "Run each variant once and verify it, untimed (for a profiler)")
      ->excludes(warmup)
      ->excludes(reps);
  app.add_flag("--no-compare", no_compare,
               "Leave out the ceilings (memcpy, NCCL's all-to-all, the peer copies) and with "
               "them the predictions");
  app.add_option("--csv", o.csv,
                 "Append the timed lines to this CSV file (written by rank 0; header first "
                 "where the file is new)");
  app.add_option("--id-file", o.id_file,
                 "Under mpirun or srun: the file through which rank 0 hands NCCL's id to the "
                 "others, on a file system every host sees");
  app.footer(
      "Variants: nccl (transpose, NCCL send/recv, place), peer (one kernel writes into the "
      "owners' memory, one host).\n\nExamples:\n  " +
      kProgram + " --gpus 4 --rows 20011 --cols 12345\n  mpirun -np 16 " + kProgram +
      " --rows 200003 --cols 100003 --id-file ~/nccl-id\n\nExit status: 0 exact, 1 wrong "
      "result, 2 bad command line (or a GPU too small for its part), 3 no CUDA device, 4 CUDA or "
      "NCCL error, 5 out of memory.");
  if (!tt::parse_app(app, argc, argv, std::cout)) return std::nullopt;

  o.dtype = dtype == "double" ? tt::DType::f64 : tt::DType::f32;
  if (variant != "all" && variant != "nccl" && variant != "peer")
    throw tt::UsageError("--variant: '" + variant + "' is not a variant; choose one of nccl, " +
                         "peer, all");
  if (once) o.warmup = o.reps = 0;
  if (!o.csv.empty() && !std::ofstream(o.csv, std::ios::app))
    throw tt::UsageError("--csv: cannot write " + o.csv);
  o.compare = !no_compare;
  o.nccl = variant != "peer";
  o.peer = variant != "nccl";
  const auto bytes = static_cast<double>(o.rows) * static_cast<double>(o.cols) *
                     (o.dtype == tt::DType::f32 ? 4 : 8);
  if (bytes > 9.2e18)
    throw tt::UsageError(std::to_string(o.rows) + " x " + std::to_string(o.cols) + " " + dtype +
                         " is too large to address in 64 bits");
  if (gpus->count() == 0) o.gpus = 0;  // not given: mpirun or srun decides, or one GPU
  return o;
}

/// tt::guarded(@p who, @p body), which reports the harness's errors, and any other error (the
/// launcher's system calls, NCCL's id) as one line, exit status 4.
int reported(const std::string& who, const std::function<int()>& body) {
  try {
    return tt::guarded(who, body);
  } catch (const std::exception& e) {
    std::cerr << who << ": " << e.what() << "\n";
    return tt::kExitCudaError;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // NVLink multicast (NVLS) stays off, whatever the environment says: NCCL reads this variable
  // when first called, which is after this line, in this process and in those it forks. Its
  // multicast objects can leave a host's GPUs, which others share, out of service. This program
  // never calls CUDA's multicast API (cuMulticastCreate) itself.
  setenv("NCCL_NVLS_ENABLE", "0", 1);

  std::optional<step18::Rank> launched;  // where mpirun or srun started this process
  if (const int status = reported(kProgram, [&] {
        launched = step18::launched_rank();
        return tt::kExitOk;
      }))
    return status;
  // Under mpirun every rank reads the same command line: only rank 0 says what is wrong.
  std::optional<step18::Options> o;
  std::streambuf* err = std::cerr.rdbuf();
  if (launched && launched->rank != 0) std::cerr.rdbuf(nullptr);
  const int parsed = reported(kProgram, [&] {
    o = parse(argc, argv);
    if (o && launched && o->gpus == 0 && o->id_file.empty())
      throw tt::UsageError("started as rank " + std::to_string(launched->rank) + " of " +
                           std::to_string(launched->size) +
                           " (mpirun or srun): give --id-file PATH, a file every host sees, " +
                           "through which rank 0 hands NCCL's id to the others");
    return tt::kExitOk;
  });
  std::cerr.rdbuf(err);
  std::cerr.clear();
  if (parsed != tt::kExitOk || !o) return parsed;

  const auto rank_body = [&](const step18::Rank& r) {
    const std::string who = kProgram + " (rank " + std::to_string(r.rank) + ")";
    return reported(who, [&] {
      try {
        return step18::run_rank(*o, r);
      } catch (const tt::UsageError& e) {  // a part its GPU cannot hold: no --help to suggest
        std::cerr << who << ": " << e.what() << "\n";
        return static_cast<int>(tt::kExitUsage);
      }
    });
  };
  if (launched && o->gpus == 0)
    return reported(kProgram, [&] { return step18::join_ranks(*launched, o->id_file, rank_body); });
  // Alone, or --gpus P: this process forks the ranks, having made no CUDA call itself.
  return reported(kProgram, [&] {
    const int gpus = std::max(o->gpus, 1), devices = step18::count_devices();
    if (gpus > devices)
      throw tt::UsageError("--gpus " + std::to_string(gpus) + ": this host has " +
                           std::to_string(devices) + " GPU" + (devices == 1 ? "" : "s"));
    return step18::fork_ranks(gpus, rank_body);
  });
}
