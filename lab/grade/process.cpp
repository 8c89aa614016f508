// The grader's processes: the GPU parts in a child (a crashed kernel costs its exercise
// the GPU points and nothing else), and the commands it runs (sass_check, compute-sanitizer).
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <iostream>
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

/// Runs the GPU parts in this process and writes their outcome to @p fd, one line each:
/// "P <index> <verdict>" and "N <index> <note>".
void gpu_child(const Exercise& ex, std::vector<Part>& parts, std::size_t exact_at,
               std::size_t speed_at, int fd) {
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
    std::string why = e.what();  // "no usable CUDA device: <call> failed with <error> (...). ..."
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
  std::string out;
  for (std::size_t i : {exact_at, speed_at}) {
    out +=
        "P " + std::to_string(i) + " " + std::to_string(static_cast<int>(parts[i].verdict)) + "\n";
    for (std::string n : parts[i].notes) {
      std::replace(n.begin(), n.end(), '\n', ' ');
      out += "N " + std::to_string(i) + " " + n + "\n";
    }
  }
  out += "E\n";
  for (std::size_t done = 0; done < out.size();) {
    const ssize_t w = write(fd, out.data() + done, out.size() - done);
    if (w <= 0) break;
    done += static_cast<std::size_t>(w);
  }
}

/// Forks a child for the GPU parts and reads their outcome back. The parent never touches
/// CUDA, so every child starts with a fresh context.
void grade_gpu(const Exercise& ex, std::vector<Part>& parts, std::size_t exact_at,
               std::size_t speed_at) {
  int fds[2];
  std::cout.flush();
  std::cerr.flush();
  if (pipe(fds) != 0) throw std::runtime_error("pipe() failed");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork() failed");
  if (pid == 0) {
    close(fds[0]);
    gpu_child(ex, parts, exact_at, speed_at, fds[1]);
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  std::istringstream lines(text);
  std::string line;
  bool ended = false;
  while (std::getline(lines, line)) {
    if (line == "E") ended = true;
    std::istringstream fields(line);
    char kind = 0;
    std::size_t index = 0;
    fields >> kind >> index;
    if (index != exact_at && index != speed_at) continue;
    if (kind == 'P') {
      int v = 0;
      fields >> v;
      parts[index].verdict = static_cast<Verdict>(v);
    } else if (kind == 'N') {
      std::string rest;
      std::getline(fields, rest);
      parts[index].notes.push_back(rest.substr(rest.find_first_not_of(' ')));
    }
  }
  if (!ended) {
    const std::string why =
        WIFSIGNALED(status)
            ? "the GPU run crashed (signal " + std::to_string(WTERMSIG(status)) + ")"
            : "the GPU run ended early (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
    for (std::size_t i : {exact_at, speed_at}) {
      parts[i].verdict = Verdict::failed;
      parts[i].notes.push_back(why);
    }
  }
}

}  // namespace lab
