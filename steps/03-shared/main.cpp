// The program 03-shared: the course's shared runner (common/runner.hpp) applied to
// this step's description, step03::step() in shared.cu.
// Build it alone with: cmake --build build --target 03-shared
#include "03-shared/shared.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(step03::step(), argc, argv);
}
