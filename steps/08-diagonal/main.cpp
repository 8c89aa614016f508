// The program 08-diagonal: the course's shared runner (common/runner.hpp) applied to
// this step's description, step08::step() in diagonal.cu.
// Build it alone with: cmake --build build --target 08-diagonal
#include "08-diagonal/diagonal.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(step08::step(), argc, argv);
}
