// The program 12-reads: the course's shared runner (common/runner.hpp) applied to this
// step's description, step12::step() in reads.cu.
// Build it alone with: cmake --build build --target 12-reads
#include "12-reads/reads.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(step12::step(), argc, argv);
}
