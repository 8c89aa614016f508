// The program 10-invariants: the course's shared runner (common/runner.hpp) applied to
// this step's description, step10::step() in invariants.cu.
// Build it alone with: cmake --build build --target 10-invariants
#include "10-invariants/invariants.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(step10::step(), argc, argv);
}
