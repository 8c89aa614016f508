// The program 02-naive: the course's shared runner (common/runner.hpp) applied to
// this step's description, step02::step() in naive.cu.
// Build it alone with: cmake --build build --target 02-naive
#include "02-naive/naive.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(step02::step(), argc, argv);
}
