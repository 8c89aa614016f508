// Step 18, the first of Part III (across GPUs): an M x N matrix spread by rows over P GPUs,
// transposed into the N x M matrix spread the same way. One process a GPU, NCCL the engine.
//
// What is new: no GPU holds the matrix. GPU p holds its rows (its slab); the output rows it must
// end with are columns of every GPU's slab. So each GPU transposes what it holds, and the pieces
// cross to the GPUs that own them: an all-to-all. plan.hpp says who holds and sends what; this
// file runs it two ways, beside what the machine allows (the ceilings, measured in the same run):
//   nccl: the course's kernel transposes the slab into a send buffer, NCCL's grouped send and
//         receive exchange the blocks, a placing pass puts each received block in its columns;
//   peer: one kernel writes each tile straight into its owner's memory (CUDA IPC, one host).
//
// Run:   18-all-to-all --gpus 4 --rows 20011 --cols 12345
//        mpirun -np 16 18-all-to-all --rows 200003 --cols 100003 --id-file ~/nccl-id
#include "18-all-to-all/all_to_all.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "17-prefetch/prefetch.hpp"
#include "18-all-to-all/kernels.hpp"
#include "18-all-to-all/plan.hpp"
#include "device.hpp"
#include "device_buffer.hpp"
#include "error.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "timing.hpp"
#include "verify.hpp"

/// A failed NCCL call, reported as a CUDA error is (exit status 4).
#define NCCL_CHECK(expr)                                                                         \
  do {                                                                                           \
    const ncclResult_t nccl_ = (expr);                                                           \
    if (nccl_ != ncclSuccess)                                                                    \
      throw tt::CudaError(cudaErrorUnknown,                                                      \
                          std::string("NCCL error in " #expr ": ") + ncclGetErrorString(nccl_)); \
  } while (0)

namespace step18 {
namespace {

using tt::fixed;  // a number with so many digits after the point (report.hpp)

template <typename T>
constexpr ncclDataType_t kNccl = std::is_same_v<T, float> ? ncclFloat : ncclDouble;

/// One rank's GPU, stream and communicator, and the collectives the measurements need.
class Job {
 public:
  const int rank, size;

  /// Joins the job on the current GPU; @p samples: the most values reduce() takes.
  Job(const Rank& r, int samples) : rank(r.rank), size(r.size), scratch_(samples) {
    TT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    TT_CUDA_CHECK(cudaEventCreate(&start_));
    TT_CUDA_CHECK(cudaEventCreate(&stop_));
    NCCL_CHECK(ncclCommInitRank(&comm, size, r.id, rank));
  }
  ~Job() {
    // Leaving on an error, the other ranks may never reach the matching calls: abort.
    if (comm != nullptr) std::uncaught_exceptions() ? ncclCommAbort(comm) : ncclCommDestroy(comm);
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaStreamDestroy(stream);
  }
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  cudaStream_t stream = nullptr;
  ncclComm_t comm = nullptr;

  /// @p v reduced element by element over every rank (ncclSum, ncclMax, ncclMin); waits.
  std::vector<double> reduce(std::vector<double> v, ncclRedOp_t op) {
    const std::size_t bytes = v.size() * sizeof(double);
    TT_CUDA_CHECK(cudaMemcpyAsync(scratch_.get(), v.data(), bytes, cudaMemcpyHostToDevice, stream));
    NCCL_CHECK(
        ncclAllReduce(scratch_.get(), scratch_.get(), v.size(), ncclDouble, op, comm, stream));
    TT_CUDA_CHECK(cudaMemcpyAsync(v.data(), scratch_.get(), bytes, cudaMemcpyDeviceToHost, stream));
    TT_CUDA_CHECK(cudaStreamSynchronize(stream));
    return v;
  }
  /// Returns when every rank has called it, and its GPU has finished what came before.
  void barrier() { reduce({0.0}, ncclSum); }
  /// @p bytes of every rank, rank 0's first.
  std::vector<char> gather(const void* mine, std::size_t bytes) {
    tt::DeviceBuffer<char> all(bytes * size);
    std::vector<char> host(bytes * size);
    TT_CUDA_CHECK(
        cudaMemcpyAsync(all.get() + bytes * rank, mine, bytes, cudaMemcpyHostToDevice, stream));
    NCCL_CHECK(ncclAllGather(all.get() + bytes * rank, all.get(), bytes, ncclChar, comm, stream));
    TT_CUDA_CHECK(
        cudaMemcpyAsync(host.data(), all.get(), host.size(), cudaMemcpyDeviceToHost, stream));
    TT_CUDA_CHECK(cudaStreamSynchronize(stream));
    return host;
  }

  /// Times @p work (which enqueues on the stream) with CUDA events: @p warmup runs, then @p reps,
  /// each after a barrier so that every GPU starts it together. A repetition lasts as long as
  /// its slowest GPU: each one's time is the maximum over the ranks. Median, min and max (no
  /// samples where @p reps is 0).
  tt::Stats time(const std::function<void()>& work, int warmup, int reps) {
    if (reps == 0) return {};  // --once: untimed
    for (int i = 0; i < warmup; ++i) work();
    std::vector<double> ms(reps);
    for (double& t : ms) {
      barrier();
      TT_CUDA_CHECK(cudaEventRecord(start_, stream));
      work();
      TT_CUDA_CHECK(cudaEventRecord(stop_, stream));
      TT_CUDA_CHECK(cudaEventSynchronize(stop_));
      float f = 0;
      TT_CUDA_CHECK(cudaEventElapsedTime(&f, start_, stop_));
      t = f;
    }
    return tt::summarize(reduce(ms, ncclMax));
  }

 private:
  tt::DeviceBuffer<double> scratch_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

/// The course's best single-GPU transpose, called on a GPU's slab as on any rows x cols matrix:
/// step 17's headline variant, or step 15's kernels (its `order`) on a GPU without the L2
/// prefetch hint that step 17 needs.
template <typename T>
class SlabTranspose {
 public:
  SlabTranspose(const tt::DeviceInfo& dev, tt::Shape shape) : shape_(shape) {
    const tt::Step& s = step17::step();
    variant_ = &s.headline_variant();
    if (!tt::runs_on(*variant_, dev.cc_major, dev.cc_minor)) variant_ = s.find("order");
    name = s.id + "/" + variant_->name;
    if (shape.count() == 0) return;  // a GPU without rows: nothing to launch
    plan_ = variant_->plan(s.problem_for({shape, tt::dtype_of<T>::value, std::nullopt}));
    tt::check_limits(plan_, name);
  }
  /// @p out (cols x rows) = the transpose of @p in (rows x cols).
  void operator()(const T* in, T* out, cudaStream_t stream) const {
    if (shape_.count() == 0) return;
    if constexpr (std::is_same_v<T, float>)
      variant_->run_f32(plan_, in, out, shape_, stream);
    else
      variant_->run_f64(plan_, in, out, shape_, stream);
    TT_CHECK_LAUNCH();
  }
  std::string name;  ///< The step and variant.

 private:
  tt::Shape shape_;
  const tt::Variant* variant_ = nullptr;
  tt::LaunchPlan plan_;
};

/// The exchange: GPU p sends every GPU q (itself too: NCCL copies that one locally) the block q
/// owns, from its send buffer, and receives its own block from each into its receive buffer.
/// Grouped (ncclGroupStart/End), so that NCCL runs every send and receive at once and none waits
/// for its partner's turn. An empty block (M or N below P) is left out on both sides alike.
template <typename T>
void exchange(const T* send, T* recv, const Plan& plan, Job& job) {
  const int p = job.rank;
  NCCL_CHECK(ncclGroupStart());
  for (int q = 0; q < plan.gpus(); ++q) {
    if (plan.block(p, q) > 0)
      NCCL_CHECK(ncclSend(send + plan.send_offset(p, q), plan.block(p, q), kNccl<T>, q, job.comm,
                          job.stream));
    if (plan.block(q, p) > 0)
      NCCL_CHECK(ncclRecv(recv + plan.recv_offset(p, q), plan.block(q, p), kNccl<T>, q, job.comm,
                          job.stream));
  }
  NCCL_CHECK(ncclGroupEnd());
}

/// The peer variant's view of every GPU's output: its own, and the others' opened in this
/// process through CUDA IPC. Every rank publishes its output's handle and its host's name (an
/// all-gather of their bytes); where the GPUs are on several hosts, or a handle does not open,
/// no rank runs the peer variant.
template <typename T>
class Peers {
 public:
  Peers(Job& job, T* out) : outs_(job.size, nullptr) {
    struct Card {
      char host[256];
      cudaIpcMemHandle_t handle;
    } mine{};
    gethostname(mine.host, sizeof mine.host - 1);
    TT_CUDA_CHECK(cudaIpcGetMemHandle(&mine.handle, out));
    const std::vector<char> all = job.gather(&mine, sizeof mine);
    bool here = true;
    for (int q = 0; q < job.size && here; ++q) {
      Card card;
      std::memcpy(&card, all.data() + q * sizeof card, sizeof card);
      if (std::strcmp(card.host, mine.host) != 0) {
        why = "the GPUs are on more than one host";
        here = false;
      } else if (q == job.rank) {
        outs_[q] = out;
      } else {
        void* theirs = nullptr;
        const cudaError_t e =
            cudaIpcOpenMemHandle(&theirs, card.handle, cudaIpcMemLazyEnablePeerAccess);
        if (e == cudaSuccess) {
          opened_.push_back(theirs);
          outs_[q] = static_cast<T*>(theirs);
        } else {
          cudaGetLastError();
          why = "a GPU cannot open another's memory through CUDA IPC";
          std::cerr << "18-all-to-all: rank " << job.rank << " cannot open rank " << q
                    << "'s output through CUDA IPC: " << cudaGetErrorString(e) << "\n";
          here = false;
        }
      }
    }
    ok = job.reduce({here ? 1.0 : 0.0}, ncclMin)[0] == 1.0;  // every rank, or none
    if (!ok && why.empty()) why = "another GPU cannot reach one (its rank says which)";
    if (!ok) return;
    table_ = tt::DeviceBuffer<T*>(outs_.size());
    TT_CUDA_CHECK(cudaMemcpy(table_.get(), outs_.data(), table_.bytes(), cudaMemcpyHostToDevice));
  }
  ~Peers() {
    for (void* p : opened_) cudaIpcCloseMemHandle(p);
  }
  Peers(const Peers&) = delete;
  Peers& operator=(const Peers&) = delete;

  bool ok = false;  ///< Every rank reaches every output.
  std::string why;  ///< Why not, where this rank knows.
  /// Every GPU's output as this process reaches it, in device memory (for the kernel).
  T* const* table() const { return table_.get(); }
  /// GPU @p q's output as this process reaches it.
  T* at(int q) const { return outs_[static_cast<std::size_t>(q)]; }

 private:
  std::vector<T*> outs_;
  std::vector<void*> opened_;
  tt::DeviceBuffer<T*> table_;
};

/// Checks GPU p's output against the formula, a chunk at a time, so that no host holds the
/// matrix: output (i, j), i a row of the whole output, is input (j, i) = element(j N + i),
/// compared bit for bit. Returns the wrong elements and prints the first.
template <typename T>
std::int64_t check(const T* out, const Plan& plan, int p) {
  const std::int64_t total = plan.output(p), M = plan.rows(), N = plan.cols();
  std::vector<T> host(static_cast<std::size_t>(std::min<std::int64_t>(total, 1 << 24)));
  std::int64_t wrong = 0, i = plan.out.first(p), j = 0;  // the next element's row and column
  // The values are integers below 2^53: all their digits.
  std::cerr << std::setprecision(17);
  for (std::int64_t k0 = 0; k0 < total; k0 += static_cast<std::int64_t>(host.size())) {
    const std::int64_t n =
        std::min<std::int64_t>(static_cast<std::int64_t>(host.size()), total - k0);
    TT_CUDA_CHECK(cudaMemcpy(host.data(), out + k0, n * sizeof(T), cudaMemcpyDeviceToHost));
    for (std::int64_t k = 0; k < n; ++k) {
      const T want = element<T>(j * N + i);
      if (std::memcmp(&host[k], &want, sizeof(T)) != 0 && wrong++ == 0) {
        std::cerr << "18-all-to-all: rank " << p << ": output (" << i << ", " << j << ") holds ";
        if (std::isnan(host[k]))
          std::cerr << "NaN (never written: still the poison)";
        else
          std::cerr << host[k];
        std::cerr << ", expected input (" << j << ", " << i << ") = " << want << "\n";
      }
      if (++j == M) j = 0, ++i;
    }
  }
  return wrong;
}

/// "5003 rows on GPUs 0-2, 5002 on GPU 3": how @p s splits its rows.
std::string shares(const Split& s) {
  const auto gpus = [](std::int64_t a, std::int64_t b) {
    return a == b ? "GPU " + std::to_string(a)
                  : "GPUs " + std::to_string(a) + "-" + std::to_string(b);
  };
  if (s.extra == 0) return std::to_string(s.base) + (s.parts > 1 ? " on each GPU" : "");
  return std::to_string(s.base + 1) + " on " + gpus(0, s.extra - 1) + ", " +
         std::to_string(s.base) + " on " + gpus(s.extra, s.parts - 1);
}

/// A GPU's part of the job: its slab of the input, its rows of the output, and, where the nccl
/// variant runs (@p staged), its send and receive buffers: twice the memory. Each is allocated
/// with one element at least: CUDA IPC needs an allocation, also of a GPU that holds no output
/// rows.
template <typename T>
struct Part {
  Part(const Plan& plan, int p, bool staged)
      : in(at_least_one(plan.slab(p))),
        send(staged ? at_least_one(plan.slab(p)) : 0),
        out(at_least_one(plan.output(p))),
        recv(staged ? at_least_one(plan.output(p)) : 0) {}
  static std::size_t at_least_one(std::int64_t n) {
    return static_cast<std::size_t>(std::max<std::int64_t>(n, 1));
  }
  tt::DeviceBuffer<T> in, send, out, recv;
};

/// What the ceilings measured, and what they predict.
struct Ceilings {
  tt::Stats copy;         ///< memcpy: each GPU copies its slab.
  tt::Stats a2a;          ///< NCCL's exchange of the plan's blocks, nothing transposed.
  double copy_gbps = 0;   ///< Bytes the busiest GPU reads and writes, over copy's time.
  double algbw = 0;       ///< nccl-tests' algorithm bandwidth of the exchange.
  double busbw = 0;       ///< And its bus bandwidth: algbw (P - 1) / P.
  bool measured = false;  ///< Not with --no-compare or --once.

  /// A variant's time from the ceilings: its passes over a GPU's own memory at memcpy's
  /// bandwidth, plus what it sends over the links at the all-to-all's bus bandwidth, for the
  /// busiest GPU:
  ///   predicted ms = max over GPUs g of  local(g) / copy_gbps + link(g) / busbw,
  /// local(g) the bytes g reads and writes in its own memory (@p local), link(g) the bytes it
  /// sends to other GPUs (its slab less the block it keeps). 0 where not measured.
  template <typename Local>
  double predict(const Plan& plan, std::size_t s, Local local) const {
    if (!measured) return 0;
    double ms = 0;
    for (int g = 0; g < plan.gpus(); ++g) {
      const double link = double((plan.slab(g) - plan.block(g, g)) * s);
      ms = std::max(ms, local(g) / copy_gbps / 1e6 + (link > 0 ? link / busbw / 1e6 : 0));
    }
    return ms;
  }
};

/// The ceilings: each GPU's memcpy from its slab into its output, and NCCL's all-to-all of the
/// very blocks the nccl variant sends (grouped send/recv, nothing transposed), from the slab
/// into the output: no staging buffer needed, as their contents do not matter here. The copy
/// moves as many elements as the smaller of the two holds; its bandwidth counts what the GPU
/// with the largest copy reads and writes. The all-to-all's are nccl-tests': algbw = the bytes
/// a GPU sends, its own block too (its slab), over the time, busbw = algbw (P - 1) / P, the
/// part that crosses the links.
template <typename T>
Ceilings measure_ceilings(Job& job, const Plan& plan, Part<T>& part, const Options& o) {
  const auto copied = [&](int g) { return std::min(plan.slab(g), plan.output(g)) * sizeof(T); };
  Ceilings c;
  c.copy = job.time(
      [&] {
        TT_CUDA_CHECK(cudaMemcpyAsync(part.out.get(), part.in.get(), copied(job.rank),
                                      cudaMemcpyDeviceToDevice, job.stream));
      },
      o.warmup, o.reps);
  c.a2a = job.time([&] { exchange(part.in.get(), part.out.get(), plan, job); }, o.warmup, o.reps);
  double most = 0;
  for (int g = 0; g < plan.gpus(); ++g) most = std::max(most, double(copied(g)));
  c.copy_gbps = 2 * most / c.copy.median_ms / 1e6;
  const double slab = double(plan.slab(0) * sizeof(T));
  c.algbw = slab / c.a2a.median_ms / 1e6;
  c.busbw = c.algbw * (plan.gpus() - 1) / plan.gpus();
  c.measured = true;
  return c;
}

/// The peer copy between each pair of GPUs, in GB/s ([from][to], 0 for none): GPU `from`
/// copies the block of the plan it owes GPU `to` into that GPU's memory (cudaMemcpyAsync
/// through the IPC pointer) while the others idle. Bytes cross the link once: bytes / time.
template <typename T>
std::vector<std::vector<double>> peer_copies(Job& job, const Plan& plan, const Part<T>& part,
                                             const Peers<T>& peers, const Options& o) {
  const int P = plan.gpus();
  std::vector<std::vector<double>> gbps(P, std::vector<double>(P, 0));
  for (int from = 0; from < P; ++from)
    for (int to = 0; to < P; ++to) {
      const std::size_t bytes = plan.block(from, to) * sizeof(T);
      if (from == to || bytes == 0) continue;
      const tt::Stats t = job.time(
          [&] {
            if (job.rank == from)
              TT_CUDA_CHECK(cudaMemcpyAsync(peers.at(to), part.in.get(), bytes,
                                            cudaMemcpyDeviceToDevice, job.stream));
          },
          o.warmup, o.reps);
      gbps[from][to] = bytes / t.median_ms / 1e6;
    }
  return gbps;
}

/// A variant measured: its time (untimed with --once) and whether every GPU's output was exact.
struct Verified {
  tt::Stats time;
  bool exact;
};

/// Poisons every output, runs @p work once and checks every GPU's output, times it, and checks
/// the last repetition's output. The barriers keep a GPU from writing into an output that its
/// owner is still poisoning or checking (the peer variant writes into the others' memory).
template <typename T>
Verified verified(Job& job, const Plan& plan, Part<T>& part, const Options& o,
                  const std::function<void()>& work) {
  TT_CUDA_CHECK(cudaMemsetAsync(part.out.get(), tt::kPoisonByte, part.out.bytes(), job.stream));
  job.barrier();
  work();
  job.barrier();
  std::int64_t wrong = check(part.out.get(), plan, job.rank);
  const tt::Stats t = job.time(work, o.warmup, o.reps);
  if (t.samples > 0) {
    job.barrier();
    wrong += check(part.out.get(), plan, job.rank);
  }
  return {t, job.reduce({double(wrong)}, ncclSum)[0] == 0};
}

/// One line of the table, and of the CSV (--csv).
struct Line {
  std::string variant;  ///< memcpy, all-to-all (the ceilings), nccl or peer.
  std::string what;     ///< What the table calls it.
  tt::Stats time;       ///< No samples: untimed (--once).
  double gbps = 0;      ///< As the table's legend says (a ceiling's first number).
  std::string gbps_text;
  double predicted_ms = 0;  ///< A variant's, from the ceilings; 0 where none.
  std::string check;        ///< "exact" or "WRONG" for a variant, "" for a ceiling.
};

/// A variant's line: its effective bandwidth (the matrix read and written once).
Line variant_line(std::string variant, std::string what, const Verified& v, const Plan& plan,
                  std::size_t s, double predicted_ms) {
  const bool timed = v.time.samples > 0;
  const double gbps =
      timed ? tt::effective_gbps(plan.rows() * plan.cols(), s, v.time.median_ms) : 0;
  return {std::move(variant),
          std::move(what),
          v.time,
          gbps,
          timed ? fixed(gbps, 1) : "-",
          timed ? predicted_ms : 0,
          v.exact ? "exact" : "WRONG"};
}

void print_header(const tt::DeviceInfo& dev, const Plan& plan, tt::DType dtype, const Options& o) {
  int version = 0;
  ncclGetVersion(&version);
  const int P = plan.gpus();
  std::cout << "18-all-to-all: one matrix over " << P << " GPU" << (P > 1 ? "s" : "")
            << ", transposed by an all-to-all\n"
            << tt::describe(dev) << "\nMatrix " << plan.rows() << " x " << plan.cols() << " "
            << tt::dtype_name(dtype) << "; input rows: " << shares(plan.in)
            << "; output rows: " << shares(plan.out) << "\nOne process a GPU, NCCL "
            << version / 10000 << "." << version / 100 % 100 << "." << version % 100
            << " (NVLink multicast off); ";
  if (o.reps > 0)
    std::cout << o.warmup << " warm-up + " << o.reps
              << " timed repetitions each, every GPU starting together (median; a repetition "
                 "lasts as long as its slowest GPU)\n\n";
  else
    std::cout << "one untimed run each (--once)\n\n";
}

void print_table(const std::vector<Line>& lines, std::size_t s) {
  std::cout << std::left << std::setw(46) << "" << std::right << std::setw(10) << "median ms"
            << std::setw(16) << "GB/s" << std::setw(14) << "predicted ms"
            << "  check\n";
  for (const Line& l : lines) {
    std::string predicted = l.predicted_ms > 0 ? fixed(l.predicted_ms, 3) : "-";
    if (l.check.empty()) predicted = "(ceiling)";
    std::cout << std::left << std::setw(46) << l.what << std::right << std::setw(10)
              << (l.time.samples > 0 ? fixed(l.time.median_ms, 3) : "-") << std::setw(16)
              << l.gbps_text << std::setw(14) << predicted << "  " << l.check << "\n";
  }
  std::cout << "\nGB/s: memcpy, bytes read + written by a GPU; all-to-all, algbw / busbw as "
               "nccl-tests define them; a variant, 2 x M x N x "
            << s << " bytes (the matrix read and written once) over its time.\n";
}

void print_pairs(const std::vector<std::vector<double>>& gbps) {
  const int P = static_cast<int>(gbps.size());
  std::cout << "\nPeer copies, GB/s (the block of the plan, from the row's GPU into the "
               "column's memory):\n"
            << std::setw(8) << "";
  for (int to = 0; to < P; ++to) std::cout << std::setw(9) << "to " + std::to_string(to);
  for (int from = 0; from < P; ++from) {
    std::cout << "\n" << std::left << std::setw(8) << "from " + std::to_string(from) << std::right;
    for (int to = 0; to < P; ++to)
      std::cout << std::setw(9) << (gbps[from][to] > 0 ? fixed(gbps[from][to], 1) : "-");
  }
  std::cout << "\n";
}

/// Appends @p lines to the CSV file @p path (its header first where the file is new): one row
/// a line, the columns of the course's CSV where they mean the same (step, variant, dtype,
/// rows, cols, the times, gbps, verified, device, date), and this step's own: gpus,
/// predicted_ms (a variant's, from the ceilings) and pct_a2a (a variant's: the all-to-all's
/// time over the variant's, in percent; at 100 it moves the matrix as fast as NCCL exchanges
/// its blocks). The device is "NAME xP". Written by rank 0, with the table.
void append_csv(const std::string& path, const std::vector<Line>& lines, const Plan& plan,
                tt::DType dtype, const tt::DeviceInfo& dev) {
  const bool fresh = std::ifstream(path, std::ios::ate).tellg() <= 0;  // absent or empty
  std::ofstream out(path, std::ios::app);
  if (!out) throw tt::UsageError("--csv: cannot write " + path);
  if (fresh)
    out << "step,variant,dtype,rows,cols,gpus,median_ms,min_ms,max_ms,samples,gbps,"
           "predicted_ms,pct_a2a,verified,device,date\n";
  double a2a_ms = 0;
  for (const Line& l : lines)
    if (l.variant == "all-to-all") a2a_ms = l.time.median_ms;
  const std::string date = tt::utc_now();
  for (const Line& l : lines) {
    if (l.time.samples == 0) continue;  // --once: nothing timed
    out << "18-all-to-all," << l.variant << "," << tt::dtype_name(dtype) << "," << plan.rows()
        << "," << plan.cols() << "," << plan.gpus() << "," << fixed(l.time.median_ms, 5) << ","
        << fixed(l.time.min_ms, 5) << "," << fixed(l.time.max_ms, 5) << "," << l.time.samples << ","
        << fixed(l.gbps, 1) << "," << (l.predicted_ms > 0 ? fixed(l.predicted_ms, 5) : "") << ","
        << (a2a_ms > 0 && !l.check.empty() ? fixed(100 * a2a_ms / l.time.median_ms, 1) : "") << ","
        << (l.check == "WRONG" ? "false" : "true") << ",\"" << dev.name << " x" << plan.gpus()
        << "\"," << date << "\n";
  }
}

template <typename T>
int run(const Options& o, const Rank& rank) {
  // The GPU: the local rank's, modulo the GPUs this host shows this process.
  const tt::DeviceInfo dev =
      tt::select_device((rank.local >= 0 ? rank.local : rank.rank) % cuda_devices());
  Job job(rank, std::max(o.reps, 1));
  if (job.rank == 0 && !rank.id_file.empty()) std::remove(rank.id_file.c_str());  // all joined
  const int p = job.rank;
  const Plan plan(o.rows, o.cols, job.size);
  const std::size_t s = sizeof(T);

  // Every GPU holds its part, or none allocates: the ranks agree first, so that none waits in
  // NCCL for one that left.
  const std::size_t need =
      (o.nccl ? 2 : 1) * s * static_cast<std::size_t>(plan.slab(p) + plan.output(p));
  const std::size_t free = tt::free_device_memory(), spare = std::size_t{1} << 30;  // NCCL's
  const bool fits = need + spare <= free;
  if (job.reduce({fits ? 1.0 : 0.0}, ncclMin)[0] == 0) {
    if (fits) return tt::kExitUsage;  // another rank says why
    throw tt::UsageError("rank " + std::to_string(p) + " needs " + fixed(need / 1e9, 2) +
                         " GB on its GPU (its slab and its output" +
                         (o.nccl ? ", a send and a receive buffer for the nccl variant" : "") +
                         "), and 1 GB to spare; " + dev.name + " has " + fixed(free / 1e9, 2) +
                         " GB free");
  }
  Part<T> part(plan, p, o.nccl);
  fill(part.in.get(), plan, p, job.stream);
  const SlabTranspose<T> transpose(dev, {plan.in.count(p), plan.cols()});
  if (p == 0) print_header(dev, plan, tt::dtype_of<T>::value, o);

  std::vector<Line> lines;
  Ceilings ceilings;
  if (o.compare && o.reps > 0) {
    ceilings = measure_ceilings(job, plan, part, o);
    lines.push_back({"memcpy", "memcpy: each GPU copies its slab", ceilings.copy,
                     ceilings.copy_gbps, fixed(ceilings.copy_gbps, 1), 0, ""});
    lines.push_back({"all-to-all", "all-to-all: NCCL send/recv of the blocks", ceilings.a2a,
                     ceilings.algbw, fixed(ceilings.algbw, 1) + " / " + fixed(ceilings.busbw, 1), 0,
                     ""});
  }
  bool exact = true;

  // The nccl variant: transpose the slab into the send buffer (N x m_p: each GPU's block is a
  // run of its rows, so it goes out as it is), exchange, place. The received blocks cannot
  // land in place: the block from GPU f fills columns in.first(f) on of every output row, a
  // strided piece, and NCCL receives into one contiguous range. So they land one after the
  // other in the receive buffer, and a pass over this GPU's output puts each in its columns.
  if (o.nccl) {
    const Verified v = verified(job, plan, part, o, [&] {
      transpose(part.in.get(), part.send.get(), job.stream);
      exchange(part.send.get(), part.recv.get(), plan, job);
      place(part.recv.get(), part.out.get(), plan, p, job.stream);
    });
    exact = exact && v.exact;
    // Its local passes, each read and written: the transpose's over the slab, NCCL's copy of
    // the block a GPU sends itself, the placing's over the output.
    const auto local = [&](int g) {
      return 2.0 * s * (plan.slab(g) + plan.block(g, g) + plan.output(g));
    };
    lines.push_back(variant_line("nccl", "nccl: " + transpose.name + ", send/recv, place", v, plan,
                                 s, ceilings.predict(plan, s, local)));
  }

  // The peer variant and the peer copies, where every GPU reaches every other's memory.
  const Peers<T> peers(job, part.out.get());
  if (o.peer && peers.ok) {
    const Verified v = verified(job, plan, part, o, [&] {
      transpose_to_owners(part.in.get(), peers.table(), plan, p, job.stream);
    });
    exact = exact && v.exact;
    // Its one local pass: the kernel reads the slab and writes the block this GPU keeps.
    const auto local = [&](int g) { return double(s) * (plan.slab(g) + plan.block(g, g)); };
    lines.push_back(variant_line("peer", "peer: one kernel writes into the owners", v, plan, s,
                                 ceilings.predict(plan, s, local)));
  }
  std::vector<std::vector<double>> pairs;
  if (peers.ok && ceilings.measured && job.size > 1) pairs = peer_copies(job, plan, part, peers, o);

  if (p == 0) {
    print_table(lines, s);
    if (o.peer && !peers.ok) std::cout << "peer: not run: " << peers.why << "\n";
    if (!pairs.empty()) print_pairs(pairs);
    if (!o.csv.empty()) append_csv(o.csv, lines, plan, tt::dtype_of<T>::value, dev);
  }
  return exact ? tt::kExitOk : tt::kExitVerifyFailed;
}

}  // namespace

int run_rank(const Options& o, const Rank& rank) {
  return o.dtype == tt::DType::f32 ? run<float>(o, rank) : run<double>(o, rank);
}

}  // namespace step18
