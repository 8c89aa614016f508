// The program 17-prefetch: the course's shared runner (common/runner.hpp) applied to this
// step's description, step17::step() in prefetch.cu.
// Build it alone with: cmake --build build --target 17-prefetch
#include "17-prefetch/prefetch.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(step17::step(), argc, argv);
}
