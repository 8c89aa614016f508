// Step 18's launcher: the processes of the job, one a GPU, and NCCL's unique id, which every
// process needs before it can join the others (ncclCommInitRank).
#include "18-all-to-all/launcher.hpp"

#include <cuda_runtime_api.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <system_error>
#include <thread>
#include <vector>

#include "error.hpp"

namespace step18 {
namespace {

using Clock = std::chrono::steady_clock;

/// The value of environment variable @p name as a whole number from 0 up.
int env_number(const char* name, const char* text) {
  int v = -1;
  const char* end = text + std::strlen(text);
  const auto [at, ec] = std::from_chars(text, end, v);
  if (ec != std::errc() || at != end || v < 0)
    throw tt::UsageError(std::string(name) + "='" + text + "' is not a rank (a whole number)");
  return v;
}

/// Writes or reads all @p n bytes through file descriptor @p fd; false where it ends first.
bool write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}
bool read_all(int fd, void* data, std::size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t k = read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

/// A pipe: [0] to read, [1] to write.
std::vector<int> make_pipe() {
  int fds[2];
  if (pipe(fds) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  return {fds[0], fds[1]};
}

/// Forks; the child runs @p child and ends with its status, flushing what it printed.
pid_t fork_to(const std::function<int()>& child) {
  std::cout.flush();  // what is buffered now would be printed by both processes
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid > 0) return pid;
  const int status = child();
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  _exit(status);  // not exit(): the parent's atexit handlers and destructors are not ours
}

/// Waits for the ranks' processes @p pids. The first that fails sets the status; the others
/// may wait for it in NCCL for ever, so they get 10 seconds to end on their own, then SIGTERM.
int wait_all(const std::vector<pid_t>& pids) {
  std::vector<pid_t> running = pids;
  int status = 0;
  bool ended = false;
  Clock::time_point deadline{};
  while (!running.empty()) {
    for (auto it = running.begin(); it != running.end();) {
      int ws = 0;
      const pid_t done = waitpid(*it, &ws, WNOHANG);
      if (done == 0 || (done < 0 && errno == EINTR)) {
        ++it;
        continue;
      }
      const bool exited = done > 0 && WIFEXITED(ws);
      const int code = exited ? WEXITSTATUS(ws) : static_cast<int>(tt::kExitCudaError);
      if (done > 0 && WIFSIGNALED(ws) && !ended) {
        const auto rank = std::find(pids.begin(), pids.end(), *it) - pids.begin();
        std::cerr << "18-all-to-all: rank " << rank << " was ended by signal " << WTERMSIG(ws)
                  << " (" << strsignal(WTERMSIG(ws)) << ")\n";
      }
      if (code != 0 && status == 0) {
        status = code;
        deadline = Clock::now() + std::chrono::seconds(10);
      }
      it = running.erase(it);
    }
    if (status != 0 && !ended && !running.empty() && Clock::now() > deadline) {
      std::cerr << "18-all-to-all: a rank failed; ending the " << running.size()
                << " that still wait for it\n";
      for (const pid_t pid : running) kill(pid, SIGTERM);
      ended = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return status;
}

}  // namespace

std::optional<Rank> launched_rank() {
  struct Names {
    const char *rank, *size, *local;
  };
  for (const Names& n :
       {Names{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
        Names{"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
        Names{"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"}}) {
    const char* rank = std::getenv(n.rank);
    const char* size = std::getenv(n.size);
    if (rank == nullptr || size == nullptr) continue;
    Rank r;
    r.rank = env_number(n.rank, rank);
    r.size = env_number(n.size, size);
    if (const char* local = std::getenv(n.local)) r.local = env_number(n.local, local);
    if (r.rank >= r.size)
      throw tt::UsageError(std::string(n.rank) + "=" + rank + " is not below " + n.size + "=" +
                           size);
    if (r.size == 1) return std::nullopt;
    return r;
  }
  return std::nullopt;
}

int cuda_devices() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess && e != cudaErrorNoDevice) {
    cudaGetLastError();
    throw tt::NoDeviceError(std::string("no usable CUDA device (") + cudaGetErrorName(e) + ": " +
                            cudaGetErrorString(e) +
                            "): this step runs one process a GPU, and needs a GPU and its driver");
  }
  if (count == 0) throw tt::NoDeviceError("no CUDA device found: this step runs one process a GPU");
  return count;
}

int count_devices() {
  struct Answer {
    int count = 0;
    char why[512] = "";  // the child's error, where it found no device
  } answer;
  const std::vector<int> fds = make_pipe();
  const pid_t pid = fork_to([&] {
    close(fds[0]);
    try {
      answer.count = cuda_devices();
    } catch (const tt::NoDeviceError& e) {
      std::snprintf(answer.why, sizeof answer.why, "%s", e.what());
    }
    return write_all(fds[1], &answer, sizeof answer) ? 0 : 1;
  });
  close(fds[1]);
  const bool got = read_all(fds[0], &answer, sizeof answer);
  close(fds[0]);
  waitpid(pid, nullptr, 0);
  if (!got) throw tt::NoDeviceError("no CUDA device: the process that counts them failed");
  if (answer.why[0] != '\0') throw tt::NoDeviceError(answer.why);
  return answer.count;
}

int fork_ranks(int gpus, const std::function<int(const Rank&)>& body) {
  std::vector<pid_t> pids;
  std::vector<int> to_child;  // the write end of each child's pipe
  for (int r = 0; r < gpus; ++r) {
    const std::vector<int> fds = make_pipe();
    pids.push_back(fork_to([&] {
      close(fds[1]);
      for (const int fd : to_child) close(fd);
      Rank me;
      me.rank = me.local = r;
      me.size = gpus;
      const bool got = read_all(fds[0], &me.id, sizeof me.id);
      close(fds[0]);
      return got ? body(me) : tt::kExitCudaError;  // no id: the launcher says why
    }));
    close(fds[0]);
    to_child.push_back(fds[1]);
  }
  // The id is made once every child runs, here, in the process that waits for them all: it
  // keeps NCCL's bootstrap root (a socket the id names) alive while the ranks join.
  signal(SIGPIPE, SIG_IGN);  // a child that died before reading must not end this process
  ncclUniqueId id;
  const ncclResult_t made = ncclGetUniqueId(&id);
  for (const int fd : to_child) {
    if (made == ncclSuccess) write_all(fd, &id, sizeof id);
    close(fd);  // without an id, the child reads the end of the pipe and stops
  }
  if (made != ncclSuccess)
    std::cerr << "18-all-to-all: ncclGetUniqueId failed: " << ncclGetErrorString(made) << "\n";
  const int status = wait_all(pids);
  return made == ncclSuccess ? status : tt::kExitCudaError;
}

int join_ranks(Rank rank, const std::string& id_file, const std::function<int(const Rank&)>& body) {
  if (rank.rank == 0) {
    const ncclResult_t made = ncclGetUniqueId(&rank.id);
    if (made != ncclSuccess)
      throw std::runtime_error(std::string("ncclGetUniqueId failed: ") + ncclGetErrorString(made));
    // Written aside, then renamed: a rank that finds the file finds all of it.
    const std::string part = id_file + ".part";
    std::ofstream(part, std::ios::binary)
        .write(reinterpret_cast<const char*>(&rank.id), sizeof rank.id);
    if (std::rename(part.c_str(), id_file.c_str()) != 0)
      throw std::system_error(errno, std::generic_category(), "--id-file " + id_file);
  } else {
    const auto deadline = Clock::now() + std::chrono::minutes(5);
    for (;;) {
      std::ifstream in(id_file, std::ios::binary);
      if (in.read(reinterpret_cast<char*>(&rank.id), sizeof rank.id)) break;
      if (Clock::now() > deadline)
        throw std::runtime_error("rank " + std::to_string(rank.rank) + ": no NCCL id in " +
                                 id_file + " after 5 minutes (rank 0 writes it; every host " +
                                 "must see the same file)");
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  rank.id_file = id_file;
  return body(rank);
}

}  // namespace step18
