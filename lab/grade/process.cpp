// The grader's processes: every part that runs the student's code in a child, with a time
// limit (a crash, an endless loop or an exit costs that part its points and nothing else; what
// the code prints is not shown), and the commands it runs (sass_check, compute-sanitizer).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include "device.hpp"
#include "error.hpp"
#include "references.hpp"

#include "grader.hpp"

namespace lab {

Command run_command(const std::string& command) {
  Command c;
  std::cout.flush();
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    c.output = std::string("could not start it: ") + std::strerror(errno);
    return c;
  }
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) c.output += buffer;
  const int status = pclose(pipe);
  c.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return c;
}

std::string build_dir() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return ".";
  std::string exe(path, static_cast<std::size_t>(n));  // BUILD/lab/lab-grade
  for (int up = 0; up < 2; ++up) exe = exe.substr(0, exe.find_last_of('/'));
  return exe.empty() ? "/" : exe;
}

namespace {

/// Writes the verdicts and notes of @p parts (those at @p which) to @p fd, one line each:
/// "P <token> <index> <verdict>", "N <token> <index> <note>", then "E <token>". The token is
/// the parent's, drawn before the fork: a line without it is not the grader's.
void report(const std::vector<Part>& parts, const std::vector<std::size_t>& which,
            const std::string& token, int fd) {
  std::string out;
  for (std::size_t i : which) {
    out += "P " + token + " " + std::to_string(i) + " " +
           std::to_string(static_cast<int>(parts[i].verdict)) + "\n";
    for (std::string n : parts[i].notes) {
      std::replace(n.begin(), n.end(), '\n', ' ');
      out += "N " + token + " " + std::to_string(i) + " " + n + "\n";
    }
  }
  out += "E " + token + "\n";
  for (std::size_t done = 0; done < out.size();) {
    const ssize_t w = write(fd, out.data() + done, out.size() - done);
    if (w <= 0) break;
    done += static_cast<std::size_t>(w);
  }
}

/// A token no one can guess: 16 hex digits from /dev/urandom (the time and pid where it
/// cannot be read).
std::string draw_token() {
  unsigned long long v = 0;
  if (FILE* f = std::fopen("/dev/urandom", "rb")) {
    if (std::fread(&v, sizeof v, 1, f) != 1) v = 0;
    std::fclose(f);
  }
  if (v == 0)
    v = static_cast<unsigned long long>(time(nullptr)) * 6364136223846793005ull ^ getpid();
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", v);
  return buf;
}

}  // namespace

namespace {

/// The process group of the part running now (0: none), for on_signal().
volatile sig_atomic_t running_group = 0;

/// The grader stopped by a signal (Ctrl-C, a time limit of its own): the part's whole group
/// goes too, then the grader ends as the signal says.
extern "C" void on_signal(int sig) {
  if (running_group > 0) kill(-running_group, SIGKILL);
  signal(sig, SIG_DFL);
  raise(sig);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

void in_child(std::vector<Part>& parts, const std::vector<std::size_t>& which,
              const std::function<void()>& body, double limit_s) {
  static const bool handled = [] {
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) signal(sig, on_signal);
    return true;
  }();
  (void)handled;
  const std::string token = draw_token(), last = "E " + token + "\n";
  int fds[2];
  std::cout.flush();
  std::cerr.flush();
  // Close-on-exec: what the part starts (a shell, a tool) does not hold the pipe open.
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe() failed");
  const pid_t grader = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error("fork() failed");
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // the grader gone, the part goes too
    if (getppid() != grader) _exit(1);
    setpgid(0, 0);  // its own process group: a time-out stops what it started, too
    close(fds[0]);
    // What the student's code prints goes nowhere, and it reads nothing: the report is the
    // grader's alone, and a read of the terminal would stop the part until its time limit.
    if (const int null = open("/dev/null", O_RDWR); null >= 0) {
      dup2(null, STDIN_FILENO);
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
      close(null);
    }
    try {
      body();
    } catch (const std::exception& e) {
      for (std::size_t i : which)
        if (parts[i].verdict == Verdict::skipped) {
          parts[i].verdict = Verdict::failed;
          note(parts[i], std::string("the part stopped: ") + e.what());
        }
    }
    report(parts, which, token, fds[1]);
    close(fds[1]);
    _exit(0);
  }
  setpgid(pid, pid);  // as the child does: whichever runs first
  running_group = pid;
  close(fds[1]);
  // The report, up to its last line; then the child's end, each within the time limit.
  std::string text;
  char buffer[4096];
  const auto start = std::chrono::steady_clock::now();
  bool timed_out = false, ended = false, open_pipe = true, reaped = false;
  int status = 0;
  const auto drain = [&](int wait_ms) {  // reads what is there; false at the pipe's end
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = poll(&pfd, 1, wait_ms);
    if (ready < 0) return errno == EINTR;
    if (ready == 0) return true;
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n <= 0) return false;
    text.append(buffer, static_cast<std::size_t>(n));
    return true;
  };
  while (!ended) {
    const double left = limit_s - seconds_since(start);
    if (left <= 0) {  // what the child wrote before the limit still counts
      for (std::size_t had = text.size() + 1; open_pipe && !ended && text.size() != had;) {
        had = text.size();
        open_pipe = drain(0);
        ended = text.find(last) != std::string::npos;
      }
      timed_out = !ended;
      break;
    }
    if (open_pipe) {
      open_pipe = drain(static_cast<int>(std::min(left, 1.0) * 1000) + 1);
      ended = text.find(last) != std::string::npos;
    } else {  // the pipe ended without the report: the child's end tells why
      const pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        reaped = true;
        break;
      }
      usleep(10000);
    }
  }
  close(fds[0]);
  // The child exits as soon as it has reported; give it until the limit, then stop its group.
  while (!reaped && !timed_out) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) {
      reaped = true;
    } else if (seconds_since(start) > limit_s) {
      timed_out = !ended;
      break;
    } else {
      usleep(10000);
    }
  }
  kill(-pid, SIGKILL);  // its group: whatever it left running
  while (!reaped && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  running_group = 0;
  if (ended) text.resize(text.find(last) + last.size());
  std::istringstream lines(text);
  std::string line;
  std::vector<Part> got = parts;
  for (std::size_t i : which) got[i].notes.clear();
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string kind, said;
    std::size_t index = 0;
    fields >> kind >> said;
    if (said != token) continue;  // not the grader's line
    if (kind == "E") continue;
    fields >> index;
    if (std::find(which.begin(), which.end(), index) == which.end()) continue;
    if (kind == "P") {
      int v = 0;
      fields >> v;
      got[index].verdict = static_cast<Verdict>(v);
    } else if (kind == "N") {
      std::string rest;
      std::getline(fields, rest);
      const auto from = rest.find_first_not_of(' ');
      got[index].notes.push_back(from == std::string::npos ? "" : rest.substr(from));
    }
  }
  if (ended && !timed_out) {
    for (std::size_t i : which) parts[i] = got[i];
    return;
  }
  std::ostringstream why;
  if (timed_out)
    why << "stopped after its time limit of " << static_cast<long>(limit_s)
        << " s (an endless loop?)";
  else if (WIFSIGNALED(status))
    why << "the part crashed (signal " << WTERMSIG(status) << ")";
  else
    why << "the part ended early (exit status " << WEXITSTATUS(status) << ")";
  for (std::size_t i : which) {
    parts[i].verdict = Verdict::failed;
    parts[i].notes.push_back(why.str());
  }
}

/// gpu-exact and gpu-speed, in a child: the parent never touches CUDA, so every child starts
/// with a fresh context, and a kernel that crashes or hangs costs its exercise the GPU points.
void grade_gpu(const Exercise& ex, std::vector<Part>& parts, std::size_t exact_at,
               std::size_t speed_at, double limit_s) {
  in_child(
      parts, {exact_at, speed_at},
      [&] {
        Part& exact = parts[exact_at];
        Part& speed = parts[speed_at];
        try {
          tt::require_devices();
          const tt::DeviceInfo dev = tt::select_device(0);
          const bool usable = grade_exact(ex, dev, exact);
          if (usable) {
            grade_speed(ex, dev, exact.verdict == Verdict::passed, speed);
          } else {
            speed.verdict = Verdict::failed;
            note(speed, "not timed: the kernel failed on the GPU");
          }
          tt::release_references();
        } catch (const tt::NoDeviceError& e) {
          // "no usable CUDA device: <call> failed with <error> (...). ..."
          std::string why = e.what();
          why = why.substr(0, why.find(" ("));
          exact.verdict = speed.verdict = Verdict::skipped;
          note(exact, why);
          note(speed, "no CUDA device");
        } catch (const std::exception& e) {
          for (Part* p : {&exact, &speed})
            if (p->verdict == Verdict::skipped) {
              p->verdict = Verdict::failed;
              note(*p, std::string("the GPU run stopped: ") + e.what());
            }
        }
      },
      limit_s);
}

}  // namespace lab
