// Hostile command lines, run against the real programs as child processes: every program of
// the course (01-hello-world, the steps, references, tour, bench, latency, banks) must refuse each
// of them with exit status 2, one message on stderr that names the flag and what is wrong with its
// value, the usage hint, nothing on stdout, and at once (nothing runs on a GPU).
//
// Everything comes from one table: the programs (their paths are written by CMake into
// hostile_programs_<config>.inc), the numeric flags each one takes with their valid ranges,
// and the hostile values. The expected outcome of each (flag, value) pair follows from the
// range: 0 is a valid --warmup, --device or --warp, and is then expected to be accepted.
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "references.hpp"
#include "registry.hpp"

extern char** environ;

namespace {

// --- The table. --------------------------------------------------------------------------

/// A program of the course and where the build put it.
struct Program {
  std::string name;
  std::string path;
};

/// @p path as the build wrote it, or, where the build was moved (a packed copy on a GPU machine,
/// scripts/pack-build.sh), the same path under the folder that holds this test program's.
std::string relocated(const std::string& path) {
  const std::string built = TT_HOSTILE_BUILD_DIR;
  if (std::filesystem::exists(path) || path.rfind(built + "/", 0) != 0) return path;
  const auto root = std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path();
  return (root / path.substr(built.size() + 1)).string();
}

const std::vector<Program>& programs() {
  static const std::vector<Program> p = [] {
    std::vector<Program> table = {
#include TT_HOSTILE_PROGRAMS
    };
    for (Program& program : table) program.path = relocated(program.path);
    return table;
  }();
  return p;
}

/// What a program's command line is made of.
enum class Kind {
  hello,    ///< 01-hello-world: positional n m k and --device
  step,     ///< the shared command line of common/cli.cpp (steps, references, tour)
  bench,    ///< bench: lists of sizes and types, --warmup, --reps, --device
  latency,  ///< latency: working-set sizes, --stride, --steps, --device
  banks,    ///< banks: --pattern or --list, --format, --device
  sectors,  ///< sectors: --mode, --distance, --bytes, --reps, --device
  lines,    ///< lines: --mode, --bytes, --reps, --device
};

Kind kind_of(const Program& p) {
  if (p.name == "01-hello-world") return Kind::hello;
  if (p.name == "latency") return Kind::latency;
  if (p.name == "banks") return Kind::banks;
  if (p.name == "sectors") return Kind::sectors;
  if (p.name == "lines") return Kind::lines;
  return p.name == "bench" ? Kind::bench : Kind::step;
}

/// Whether the program takes --block (a step with takes_block).
bool takes_block(const Program& p) {
  for (const tt::Step* s : tt::tutorial_steps())
    if (s->id == p.name) return s->takes_block;
  return false;  // references, tour, bench and 01-hello-world take none
}

/// A numeric argument: an option ("--rows") or a position of 01-hello-world (0, 1, 2 for n, m, k),
/// with its valid range and the name its messages start with.
struct NumericFlag {
  std::string label;  ///< "--rows", or "n" for a positional argument
  int position;       ///< -1 for an option
  long long lo, hi;   ///< valid range
};

std::vector<NumericFlag> numeric_flags(const Program& p) {
  if (kind_of(p) == Kind::hello)
    return {
        {"n", 0, 1, 2147483647}, {"m", 1, 1, 1024}, {"k", 2, 1, 1024}, {"--device", -1, 0, 1023}};
  if (kind_of(p) == Kind::bench)
    return {{"--reps", -1, 1, 100000}, {"--warmup", -1, 0, 100000}, {"--device", -1, 0, 1023}};
  if (kind_of(p) == Kind::latency)
    return {
        {"--stride", -1, 4, 1 << 20}, {"--steps", -1, 1000, 100000000}, {"--device", -1, 0, 1023}};
  if (kind_of(p) == Kind::banks) return {{"--device", -1, 0, 1023}};
  if (kind_of(p) == Kind::sectors || kind_of(p) == Kind::lines)
    return {{"--reps", -1, 1, 10000}, {"--device", -1, 0, 1023}};
  return {{"--rows", -1, 1, 2147483647}, {"--cols", -1, 1, 2147483647},
          {"--size", -1, 1, 2147483647}, {"--reps", -1, 1, 100000},
          {"--warmup", -1, 0, 100000},   {"--device", -1, 0, 1023},
          {"--warp", -1, 0, 31}};
}

/// A hostile value, and the number it stands for when it is a whole decimal number.
struct HostileValue {
  std::string text;
  std::optional<long double> number;
};

const std::vector<HostileValue>& hostile_values() {
  static const std::vector<HostileValue> v = {
      {"abc", std::nullopt},
      {"12abc", std::nullopt},
      {"1e3", std::nullopt},
      {"0x10", std::nullopt},
      {"1.5", std::nullopt},
      {"", std::nullopt},
      {"0", 0.0L},
      {"-1", -1.0L},
      {"4294967296", 4294967296.0L},       // beyond 32 bits
      {"99999999999999999999999", 1e23L},  // beyond 64 bits
  };
  return v;
}

/// The phrase the message must hold for @p v given to @p f, or nothing when @p v is valid.
std::optional<std::string> expected_problem(const NumericFlag& f, const HostileValue& v) {
  if (v.text.empty()) return "a value is required";
  if (!v.number) return "'" + v.text + "' is not a whole number";
  if (*v.number < f.lo) return v.text + (*v.number < 0 ? " is negative" : " is too small");
  if (*v.number > f.hi) return v.text + " is too large";
  return std::nullopt;
}

/// Arguments that put @p value in the place of @p f, the rest of the command line valid.
std::vector<std::string> with_value(const Program& p, const NumericFlag& f,
                                    const std::string& value) {
  if (kind_of(p) == Kind::hello) {
    std::vector<std::string> args = {"2", "4", "2"};
    if (f.position >= 0)
      args[static_cast<std::size_t>(f.position)] = value;
    else
      args.insert(args.end(), {f.label, value});
    return args;
  }
  return {f.label, value};
}

/// A cheap run that needs no GPU (--explain on a small matrix, bench's --list) around a valid
/// @p value, so that accepting it can be checked on any machine.
std::vector<std::string> valid_run(const Program& p, const NumericFlag& f,
                                   const std::string& value) {
  std::vector<std::string> args = with_value(p, f, value);
  const bool lists = kind_of(p) == Kind::bench || kind_of(p) == Kind::latency ||
                     kind_of(p) == Kind::banks || kind_of(p) == Kind::sectors ||
                     kind_of(p) == Kind::lines;
  args.push_back(lists ? "--list" : "--explain");
  if (kind_of(p) == Kind::step) {
    if (f.label == "--rows") args.insert(args.end(), {"--cols", "64"});
    if (f.label == "--cols") args.insert(args.end(), {"--rows", "64"});
    if (f.label != "--rows" && f.label != "--cols" && f.label != "--size")
      args.insert(args.end(), {"--size", "64"});
  }
  return args;
}

/// A command line that must be refused, and the phrases its message must hold.
struct Refused {
  std::vector<std::string> args;
  std::vector<std::string> phrases;
};

/// Every hostile command line for @p p: the numeric table, then the other kinds of mistake.
std::vector<Refused> refused_lines(const Program& p) {
  std::vector<Refused> r;
  for (const NumericFlag& f : numeric_flags(p))
    for (const HostileValue& v : hostile_values())
      if (const auto problem = expected_problem(f, v))
        r.push_back({with_value(p, f, v.text), {f.label + ": ", *problem}});

  r.push_back({{"--bogus"}, {"--bogus", "not expected"}});
  r.push_back({{"--device", "0", "--device", "1"}, {"--device"}});
  r.push_back({{"--device"}, {"--device"}});  // the value is missing
  if (kind_of(p) == Kind::hello) {
    r.push_back({{"2", "4", "2", "5"}, {"not expected: 5"}});
    r.push_back({{"1", "64", "32"}, {"64 x 32 = 2048 threads", "1024"}});
    r.push_back({{"1", "64", "32", "--explain"}, {"64 x 32 = 2048 threads", "1024"}});  // alike
    r.push_back({{"2147483647", "1024", "1"}, {"lines"}});
    return r;
  }
  if (kind_of(p) == Kind::sectors) {
    for (const std::string b : {"abc", "1X", "0", "", "-1G"})
      r.push_back({{"--bytes", b}, {"--bytes: '" + b + "' is not a size"}});
    r.push_back({{"--bytes", "1000"}, {"--bytes", "multiple of 8192"}});
    r.push_back({{"--mode", "nope"}, {"--mode", "nope"}});
    r.push_back({{"--distance", "3"}, {"--distance applies to --mode halves"}});
    r.push_back({{"--mode", "halves", "--distance", "131072"}, {"--distance", "131072 blocks"}});
    return r;
  }
  if (kind_of(p) == Kind::lines) {
    for (const std::string b : {"abc", "1X", "0", "", "-1G"})
      r.push_back({{"--bytes", b}, {"--bytes: '" + b + "' is not a size"}});
    r.push_back({{"--bytes", "1000"}, {"--bytes", "128-byte lines"}});
    r.push_back({{"--mode", "nope"}, {"--mode", "nope"}});
    return r;
  }
  if (kind_of(p) == Kind::banks) {
    r.push_back({{"--pattern", "nope"}, {"--pattern", "nope"}});
    r.push_back({{"--format", "xml", "--list"}, {"--format", "xml"}});
    r.push_back({{"--device", "0"}, {"either --list or --pattern"}});
    r.push_back({{"--list", "--pattern", "w4-ideal"}, {"either --list or --pattern"}});
    r.push_back({{"--format", "json", "--pattern", "w4-ideal"}, {"--format applies to --list"}});
    return r;
  }
  if (kind_of(p) == Kind::latency) {
    for (const std::string size : {"abc", "3X", "0", "", "-4K"})
      r.push_back({{"--sizes", size}, {"--sizes: '" + size + "' is not a size"}});
    r.push_back({{"--sizes", "100"}, {"--sizes: 100 holds fewer than two slots"}});
    r.push_back({{"--stride", "6"}, {"--stride", "multiple of 4"}});
    r.push_back({{"--size", "64"}, {"--size"}});  // a step's flag, not latency's
    return r;
  }
  if (kind_of(p) == Kind::bench) {
    const std::vector<std::pair<std::string, std::string>> sizes = {
        {"abc", "'abc' is not a whole number"},
        {"", "a value is required"},
        {"0", "0 is too small"},
        {"-1", "-1 is negative"},
        {"1.5", "'1.5' is not a whole number"},
        {"4096,4x0", "(in '4x0')"},
        {"8192x", "(in '8192x')"},
        {"4294967296", "4294967296 is too large"},
        {"99999999999999999999999", "99999999999999999999999 is too large"}};
    for (const auto& [value, problem] : sizes)
      r.push_back({{"--sizes", value}, {"--sizes: ", problem}});
    r.push_back({{"--sizes", "2147483647x2147483647", "--dtypes", "double"},
                 {"--sizes", "double", "too large to address"}});
    r.push_back({{"--dtypes", "half"}, {"--dtypes", "half"}});
    r.push_back({{"--sweep", "nope"}, {"--sweep", "nope"}});
    r.push_back({{"--out", ""}, {"--out"}});
    r.push_back({{"--size", "64"}, {"--size"}});  // a step's flag, not bench's
    return r;
  }
  r.push_back({{"--rows", "3", "--rows", "4"}, {"--rows"}});
  r.push_back({{"--size", "8", "--rows", "4"}, {"--rows", "--size"}});
  r.push_back({{"--size", "8", "--cols", "4"}, {"--cols", "--size"}});
  r.push_back({{"--dtype", "half"}, {"--dtype", "half"}});
  r.push_back({{"--dtype", ""}, {"--dtype"}});
  r.push_back({{"--variant", "nope"}, {"--variant", "'nope'", "choose one of"}});
  r.push_back({{"--variant", ""}, {"--variant", "''", "choose one of"}});
  r.push_back({{"--format", "xml"}, {"--format", "xml"}});
  // Sizes whose bytes overflow 64 bits: refused before anything is allocated.
  r.push_back({{"--rows", "2147483647", "--cols", "2147483647", "--dtype", "double"},
               {"2147483647 x 2147483647 double", "too large to address"}});
  r.push_back({{"--size", "2147483647"}, {"2147483647 x 2147483647 float", "too large"}});
  if (takes_block(p)) {
    for (const std::string b : {"32", "x8", "32x", "axb", "32x8x2", "0x8", "32x0", "-1x8", "2048x1",
                                "64x32", "1025x1", "99999999x1", "", "32 x 8"})
      r.push_back({{"--block", b}, {"--block", "(got '" + b + "')"}});
  } else {
    r.push_back({{"--block", "32x8"}, {"--block"}});
  }
  return r;
}

// --- Running a program. --------------------------------------------------------------------

struct Outcome {
  int status = -1;         ///< exit status, or 128 + signal
  bool timed_out = false;  ///< killed after the time limit
  std::string out, err;
  double seconds = 0;
};

constexpr double kTimeLimit = 60;  ///< seconds before a child is killed
constexpr double kFast = 10;       ///< a refused command line must be done well within this

/// Runs @p path with @p args (stdin from /dev/null), collecting stdout and stderr.
Outcome run(const std::string& path, const std::vector<std::string>& args) {
  Outcome o;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    o.err = "pipe failed";
    return o;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  std::vector<std::string> argv_s = {path};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, path.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    o.err = "cannot start " + path + ": " + std::strerror(rc);
    return o;
  }
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&o.out, &o.err};
  int open_fds = 2;
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  while (open_fds > 0) {
    const double left = kTimeLimit - elapsed();
    if (left <= 0) {
      kill(pid, SIGKILL);
      o.timed_out = true;
      break;
    }
    if (poll(fds, 2, static_cast<int>(left * 1000) + 1) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int ws = 0;
  while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
  }
  o.seconds = elapsed();
  o.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
  return o;
}

/// Runs every (path, args) pair, several at a time; results in the same order.
std::vector<Outcome> run_all(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& jobs) {
  std::vector<Outcome> results(jobs.size());
  std::atomic<std::size_t> next{0};
  const unsigned workers = std::max(2u, std::min(8u, 2 * std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      for (std::size_t i; (i = next++) < jobs.size();)
        results[i] = run(jobs[i].first, jobs[i].second);
    });
  for (auto& t : pool) t.join();
  return results;
}

std::string shown(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args)
    s += (s.empty() ? "" : " ") +
         (a.empty() || a.find(' ') != std::string::npos ? "'" + a + "'" : a);
  return s;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

bool has_device() {
  int n = 0;
  const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  cudaGetLastError();
  return ok;
}

}  // namespace

TEST_CASE("the table names every program of the course", "[hostile]") {
  std::set<std::string> names;
  for (const Program& p : programs()) {
    INFO(p.name << " at " << p.path);
    CHECK(access(p.path.c_str(), X_OK) == 0);
    CHECK(names.insert(p.name).second);
  }
  for (const tt::Step* s : tt::tutorial_steps()) CHECK(names.count(s->id) == 1);
  for (const char* other :
       {"01-hello-world", "references", "tour", "bench", "latency", "banks", "sectors", "lines"})
    CHECK(names.count(other) == 1);
  CHECK(names.count(tt::references().id) == 1);
}

TEST_CASE(
    "every hostile command line of every program is refused with status 2 and one clear message",
    "[hostile]") {
  struct Case {
    const Program* program;
    Refused line;
  };
  std::vector<Case> cases;
  std::vector<std::pair<std::string, std::vector<std::string>>> jobs;
  for (const Program& p : programs())
    for (Refused& r : refused_lines(p)) {
      jobs.emplace_back(p.path, r.args);
      cases.push_back({&p, std::move(r)});
    }
  REQUIRE(cases.size() > 500);  // 10 programs, about 70 lines each
  const std::vector<Outcome> outcomes = run_all(jobs);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Program& p = *cases[i].program;
    const Outcome& o = outcomes[i];
    INFO(p.name << " " << shown(cases[i].line.args) << "\n  exit " << o.status << " after "
                << o.seconds << " s\n  stdout: " << o.out << "\n  stderr: " << o.err);
    CHECK_FALSE(o.timed_out);
    CHECK(o.status == 2);
    CHECK(o.out.empty());  // no result table, not even the device line
    CHECK(o.seconds < kFast);
    const auto lines = lines_of(o.err);
    // One message, then the hint, once.
    CHECK(lines.size() == 2);
    if (lines.size() != 2) continue;
    CHECK(lines[0].rfind(p.name + ": error: ", 0) == 0);
    CHECK(lines[1] == "Run '" + p.name + " --help' for usage.");
    CHECK(occurrences(o.err, "--help") == 1);
    for (const std::string& phrase : cases[i].line.phrases)
      CHECK(lines[0].find(phrase) != std::string::npos);
  }
}

TEST_CASE("the values of the table that are valid are accepted", "[hostile]") {
  std::vector<std::pair<std::string, std::vector<std::string>>> jobs;
  std::vector<std::string> what;
  for (const Program& p : programs())
    for (const NumericFlag& f : numeric_flags(p))
      for (const HostileValue& v : hostile_values())
        if (!expected_problem(f, v)) {
          jobs.emplace_back(p.path, valid_run(p, f, v.text));
          what.push_back(p.name + " " + shown(jobs.back().second));
        }
  // 0 for --warmup, --device and --warp of each step-like program, --warmup and --device of
  // bench, --device of 01-hello-world and of latency.
  std::size_t expected = 0;
  for (const Program& p : programs())
    expected += kind_of(p) == Kind::bench ? 2 : kind_of(p) == Kind::step ? 3 : 1;  // --device alone
  CHECK(jobs.size() == expected);
  const std::vector<Outcome> outcomes = run_all(jobs);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Outcome& o = outcomes[i];
    INFO(what[i] << "\n  exit " << o.status << "\n  stderr: " << o.err);
    CHECK(o.status == 0);
    CHECK(o.err.empty());
    CHECK_FALSE(o.out.empty());
  }
}

TEST_CASE("a valid run exits 3 with one line when there is no CUDA device, and 0 when there is one",
          "[hostile]") {
  const bool device = has_device();
  // bench writes its CSV; keep it out of the working directory.
  const std::string csv = (std::filesystem::temp_directory_path() /
                           ("hostile-bench-" + std::to_string(getpid()) + ".csv"))
                              .string();
  std::vector<std::pair<std::string, std::vector<std::string>>> jobs;
  for (const Program& p : programs()) {
    std::vector<std::string> args = {"--size", "64"};
    if (kind_of(p) == Kind::hello) args = {"1", "2", "2"};
    if (kind_of(p) == Kind::bench)
      args = {"--sizes", "64", "--dtypes", "float", "--warmup", "0", "--reps", "1", "--out", csv};
    if (kind_of(p) == Kind::latency) args = {"--sizes", "16K", "--steps", "1000"};
    if (kind_of(p) == Kind::banks) args = {"--pattern", "w4-ideal"};
    if (kind_of(p) == Kind::sectors || kind_of(p) == Kind::lines)
      args = {"--bytes", "64K", "--reps", "1"};
    jobs.emplace_back(p.path, args);
  }
  const std::vector<Outcome> outcomes = run_all(jobs);
  std::filesystem::remove(csv);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Program& p = programs()[i];
    const Outcome& o = outcomes[i];
    INFO(p.name << " " << shown(jobs[i].second) << (device ? " (device present)" : " (no device)")
                << "\n  exit " << o.status << "\n  stdout: " << o.out.substr(0, 2000)
                << "\n  stderr: " << o.err);
    CHECK_FALSE(o.timed_out);
    if (device) {
      CHECK(o.status == 0);
      if (kind_of(p) != Kind::bench) CHECK(o.err.empty());  // bench reports progress there
      CHECK_FALSE(o.out.empty());
    } else if (p.name == "tour") {
      // The tour says so first and last, shows what needs no GPU in between, and exits 3 as
      // its help and the README say.
      CHECK(o.status == 3);
      CHECK(o.out.rfind("tour: no ", 0) == 0);
      CHECK(o.out.find("CUDA device") != std::string::npos);
      CHECK(o.out.find("02-naive/") != std::string::npos);
      const auto lines = lines_of(o.out);
      REQUIRE_FALSE(lines.empty());
      CHECK(lines.back().rfind("tour: no usable CUDA device, so nothing was timed", 0) == 0);
      CHECK(lines.back().find("Exit status 3") != std::string::npos);
    } else {
      CHECK(o.status == 3);
      CHECK(o.out.empty());
      const auto lines = lines_of(o.err);
      CHECK(lines.size() == 1);
      if (lines.size() != 1) continue;
      CHECK(lines[0].rfind(p.name + ": no ", 0) == 0);
      CHECK(lines[0].find("CUDA device") != std::string::npos);
      // What works without one (bench has no access analysis to offer).
      if (kind_of(p) != Kind::bench) CHECK(lines[0].find("--explain") != std::string::npos);
    }
  }
}

TEST_CASE("the tour: --variant picks one step and --format is kept, with or without a GPU",
          "[hostile]") {
  const Program* tour = nullptr;
  for (const Program& p : programs())
    if (p.name == "tour") tour = &p;
  REQUIRE(tour != nullptr);
  const Outcome one = run(tour->path, {"--variant", "04-padding", "--explain", "--size", "64"});
  INFO(one.out.substr(0, 500) << one.err);
  CHECK(one.status == 0);
  CHECK(one.out.find("04-padding/") != std::string::npos);
  CHECK(one.out.find("03-shared/") == std::string::npos);
  CHECK(one.out.find("05-multi-element/") == std::string::npos);
  const Outcome csv = run(tour->path, {"--format", "csv", "--explain", "--size", "64"});
  CHECK(csv.status == 0);
  CHECK(csv.out.rfind("step,variant,dtype", 0) == 0);
  if (!has_device()) {  // without a GPU: the analysis in the asked format, exit 3, why on stderr
    const Outcome none = run(tour->path, {"--format", "csv", "--size", "64"});
    CHECK(none.status == 3);
    CHECK(none.out.rfind("step,variant,dtype", 0) == 0);
    CHECK(none.err.find("nothing was timed") != std::string::npos);
  }
  const Outcome bad = run(tour->path, {"--variant", "nope"});
  CHECK(bad.status == 2);
}
