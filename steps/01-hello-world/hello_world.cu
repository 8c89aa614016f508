// Step 01: hello world from the GPU.
//
// What this step shows: a kernel launch is a grid of n blocks, each of m x k threads, and
// every thread runs the same function with its own blockIdx and threadIdx. Each thread prints
// its indices; the host prints its own line.
//
// What to look for: run it several times. Lines of different blocks come in a different
// order from run to run (blocks are scheduled independently), but the lines of one warp (32
// threads with consecutive linear thread index, x fastest) stay together and in order. Take
// out the cudaDeviceSynchronize() and the device's lines are lost: device printf is
// buffered, and the buffer is only flushed at synchronisation points.
//
// Run:   01-hello-world 10 4 2          # 10 blocks of 4 x 2 threads
//        01-hello-world 1 8 8 --explain # which warp each thread of a block belongs to
//        01-hello-world --help

#include <cuda_runtime.h>

#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli.hpp"
#include "device.hpp"
#include "error.hpp"
#include "runner.hpp"

namespace {

/// Every thread prints its 2D thread index and its block index.
__global__ void hello() {
  printf("Hello World from Thread (%u, %u) in Block %u!\n", threadIdx.x, threadIdx.y, blockIdx.x);
}

/// Most lines a run may print (device printf buffers each one until the host synchronises).
constexpr long long kMaxLines = 1 << 20;

/// The warp that thread (x, y) of an m x k block belongs to: warps take 32 consecutive
/// linear indices, x fastest.
int warp_of(int x, int y, int m) {
  return (y * m + x) / 32;
}

void explain_warps(int m, int k) {
  std::cout << "A block of " << m << " x " << k << " threads = " << m * k << " threads in "
            << (m * k + 31) / 32 << " warp(s). Linear index = y * " << m
            << " + x; warp = linear index / 32.\n"
            << "Warp of each thread (rows: threadIdx.y, columns: threadIdx.x):\n";
  const int show_x = std::min(m, 32), show_y = std::min(k, 32);
  std::cout << "      ";
  for (int x = 0; x < show_x; ++x) std::cout << std::setw(3) << x;
  std::cout << (m > show_x ? " ..." : "") << "\n";
  for (int y = 0; y < show_y; ++y) {
    std::cout << std::setw(5) << y << " ";
    for (int x = 0; x < show_x; ++x) std::cout << std::setw(3) << warp_of(x, y, m);
    std::cout << "\n";
  }
  if (k > show_y) std::cout << "  ...\n";
  if (m * k % 32 != 0)
    std::cout << "The last warp has only " << m * k % 32
              << " threads: the hardware still schedules a whole warp for it.\n";
}

int run(int argc, char** argv) {
  int n = 2, m = 4, k = 2, device = 0;
  bool explain = false, list = false;
  CLI::App app{"01-hello-world: a grid of n blocks of m x k threads, each thread says hello"};
  app.add_option("n", n, "Blocks in the grid")->check(tt::whole_number(1, 2147483647));
  app.add_option("m", m, "Threads per block along x")->check(tt::whole_number(1, 1024));
  app.add_option("k", k, "Threads per block along y")->check(tt::whole_number(1, 1024));
  app.add_option("-d,--device", device, "CUDA device index")->check(tt::whole_number(0, 1023));
  app.add_flag("--explain", explain, "Show which warp each thread belongs to (no GPU needed)");
  app.add_flag("--list", list, "List the variants (this step has one: the hello kernel)");
  app.footer(
      "Example: 01-hello-world 10 4 2\nExit status: 0 ok, 2 bad command line, 3 no CUDA "
      "device, 4 CUDA error.");
  if (!tt::parse_app(app, argc, argv, std::cout)) return tt::kExitOk;

  // Limits that hold on every CUDA device, checked before anything else: --explain and
  // --list refuse what a run would refuse.
  if (static_cast<long long>(m) * k > 1024)
    throw tt::UsageError("a block of " + std::to_string(m) + " x " + std::to_string(k) + " = " +
                         std::to_string(m * k) + " threads exceeds 1024 threads per block");
  if (static_cast<long long>(n) * m * k > kMaxLines)
    throw tt::UsageError(std::to_string(static_cast<long long>(n) * m * k) +
                         " threads would print more than " + std::to_string(kMaxLines) +
                         " lines; use fewer blocks or threads");
  if (list) {
    std::cout << "hello (default): every thread prints its threadIdx and blockIdx; the step has "
                 "no other variant (choose the grid with n m k)\n";
    return tt::kExitOk;
  }
  if (explain) {
    explain_warps(m, k);
    return tt::kExitOk;
  }

  const tt::DeviceInfo dev = tt::select_device(device);
  if (m * k > dev.max_threads_per_block || m > dev.max_block_dim[0] || k > dev.max_block_dim[1] ||
      n > dev.max_grid_dim[0]) {
    std::ostringstream os;
    os << "n = " << n << ", m = " << m << ", k = " << k << " exceeds a limit of " << dev.name
       << ": at most " << dev.max_threads_per_block
       << " threads per block, block x <= " << dev.max_block_dim[0]
       << ", block y <= " << dev.max_block_dim[1] << ", grid x <= " << dev.max_grid_dim[0];
    throw tt::UsageError(os.str());
  }
  // Device printf writes into a FIFO that is drained at synchronisation; make it large
  // enough for every line: it is circular, and output that does not fit overwrites older lines.
  const std::size_t fifo = static_cast<std::size_t>(n) * m * k * 64 + (1 << 20);
  TT_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, fifo));

  std::cout << "Hello World from the host!" << std::endl;
  hello<<<dim3(n), dim3(m, k)>>>();
  TT_CHECK_LAUNCH();
  // Without this the program could exit before the kernel runs, and the device's lines,
  // still in the printf buffer, would never be shown.
  TT_CUDA_CHECK(cudaDeviceSynchronize());
  return tt::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return tt::guarded("01-hello-world", [&] { return run(argc, argv); });
}
