// The program 16-wide: the course's shared runner (common/runner.hpp) applied to this step's
// description, step16::step() in wide.cu.
// Build it alone with: cmake --build build --target 16-wide
#include "16-wide/wide.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(step16::step(), argc, argv);
}
