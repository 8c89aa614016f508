// The program 11-async-copy: the course's shared runner (common/runner.hpp) applied to
// this step's description, step11::step() in async_copy.cu.
// Build it alone with: cmake --build build --target 11-async-copy
#include "11-async-copy/async_copy.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(step11::step(), argc, argv);
}
