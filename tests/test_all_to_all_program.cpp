// The program 18-all-to-all run as a child process. Built twice: without TT_GPU_TESTS, its
// refusals of bad command lines, which need no GPU (one message, exit status 2, nothing on
// stdout); with it, its transpose on 1 and 2 GPUs, which must be exact.
#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "catch.hpp"

namespace {

/// The program as the build wrote it, or, where the build was moved (scripts/pack-build.sh keeps
/// its layout), the same path under the folder that holds this test program's folder.
std::string program() {
  const std::string built = TT_ALL_TO_ALL, dir = TT_ALL_TO_ALL_BUILD_DIR;
  if (std::filesystem::exists(built) || built.rfind(dir + "/", 0) != 0) return built;
  const auto root = std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path();
  return (root / built.substr(dir.size() + 1)).string();
}

struct Outcome {
  int status = -1;
  std::string text;
};

/// Runs the program with @p args through the shell, with @p env before it (VAR=value ...);
/// keeps its stderr, or with @p stdout_only its stdout.
Outcome run(const std::string& args, const std::string& env = "", bool stdout_only = false) {
  const std::string cmd =
      env + " '" + program() + "' " + args + (stdout_only ? " 2>/dev/null" : " 2>&1 >/dev/null");
  Outcome o;
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) o.text.append(buf, n);
  const int ws = pclose(pipe);
  o.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128;
  return o;
}

int devices() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
  cudaGetLastError();
  return n;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

#ifndef TT_GPU_TESTS

TEST_CASE("18-all-to-all: a bad command line gets one message and exit status 2", "[all-to-all]") {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"--rows 0", "--rows: 0 is too small"},
      {"--rows abc", "--rows: 'abc' is not a whole number"},
      {"--cols -1", "--cols: -1 is negative"},
      {"--cols 1.5", "--cols: '1.5' is not a whole number"},
      {"--gpus 0", "--gpus: 0 is too small"},
      {"--gpus x", "--gpus: 'x' is not a whole number"},
      {"--gpus 4294967296", "--gpus: 4294967296 is too large"},
      {"--variant nope", "--variant: 'nope' is not a variant"},
      {"--dtype half", "--dtype"},
      {"--rows 2147483647 --cols 2147483647 --dtype double", "too large to address"},
      {"--once --reps 3", "--once"},
      {"--csv /nonexistent-folder/a2a.csv", "--csv: cannot write"},
      {"--explain", "--explain"}};
  for (const auto& [args, phrase] : refused) {
    INFO("18-all-to-all " << args);
    const Outcome err = run(args);
    CHECK(err.status == 2);
    CHECK(err.text.find(phrase) != std::string::npos);
    CHECK(count(err.text, "error:") == 1);
    CHECK(run(args, "", true).text.empty());
  }
}

TEST_CASE("18-all-to-all: under mpirun, only rank 0 reports a bad command line", "[all-to-all]") {
  const Outcome first = run("", "OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2");
  CHECK(first.status == 2);
  CHECK(first.text.find("--id-file") != std::string::npos);
  const Outcome second = run("--rows 0", "OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2");
  CHECK(second.status == 2);
  CHECK(second.text.empty());
  const Outcome bad = run("", "SLURM_PROCID=x SLURM_NTASKS=2");
  CHECK(bad.status == 2);
  CHECK(bad.text.find("SLURM_PROCID='x'") != std::string::npos);
}

TEST_CASE("18-all-to-all: more GPUs than the host has, or none, is said so", "[all-to-all]") {
  const int n = devices();
  const Outcome o = run("--rows 37 --cols 53 --gpus " + std::to_string(n + 1));
  INFO(o.text);
  if (n == 0) {
    CHECK(o.status == 3);
    CHECK(o.text.find("CUDA device") != std::string::npos);
  } else {
    CHECK(o.status == 2);
    CHECK(o.text.find("this host has " + std::to_string(n) + " GPU") != std::string::npos);
  }
  CHECK(count(o.text, "\n") == (n == 0 ? 1 : 2));  // one message (and the usage hint)
}

#else

namespace {

/// Runs the program on @p gpus GPUs at an odd shape whose rows @p gpus does not divide, in
/// both types: every variant must say "exact", and the program exit 0. Its CSV (--csv) holds
/// a header and the four timed lines of each run, each verified, the device named with P.
void require_exact(int gpus) {
  if (devices() < gpus) {  // Catch2 v2 cannot skip one test: this one process says skipped
    std::cout << "Fewer than " << gpus << " GPUs: skipped.\n";
    std::exit(TT_SKIP_CODE);
  }
  const std::string csv = "/tmp/tt-all-to-all-" + std::to_string(getpid()) + ".csv";
  std::remove(csv.c_str());
  for (const char* dtype : {"float", "double"}) {
    const Outcome o = run("--gpus " + std::to_string(gpus) +
                              " --rows 37 --cols 53 --warmup 1 --reps 3 --csv " + csv +
                              " --dtype " + dtype,
                          "", true);
    INFO(o.text);
    CHECK(o.status == 0);
    CHECK(count(o.text, " exact\n") == 2);  // nccl and peer
    CHECK(o.text.find("WRONG") == std::string::npos);
  }
  std::ifstream in(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::remove(csv.c_str());
  REQUIRE(lines.size() == 1 + 2 * 4);
  CHECK(lines[0].rfind("step,variant,dtype,rows,cols,gpus,", 0) == 0);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    INFO(lines[i]);
    CHECK(lines[i].rfind("18-all-to-all,", 0) == 0);
    CHECK(lines[i].find(",37,53," + std::to_string(gpus) + ",") != std::string::npos);
    CHECK(lines[i].find(",true,") != std::string::npos);
    CHECK(lines[i].find(" x" + std::to_string(gpus) + "\"") != std::string::npos);
  }
}

}  // namespace

TEST_CASE("18-all-to-all: exact on 1 GPU, 37 x 53", "[all-to-all]") {
  require_exact(1);
}

TEST_CASE("18-all-to-all: exact on 2 GPUs, 37 x 53 (rows split 19 + 18)", "[all-to-all]") {
  require_exact(2);
}

#endif
