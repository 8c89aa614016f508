// The program 07-swizzle: the course's shared runner (common/runner.hpp) applied to
// this step's description, step07::step() in swizzle.cu.
// Build it alone with: cmake --build build --target 07-swizzle
#include "07-swizzle/swizzle.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(step07::step(), argc, argv);
}
