// The program 05-multi-element: the course's shared runner (common/runner.hpp) applied to
// this step's description, step05::step() in multi_element.cu.
// Build it alone with: cmake --build build --target 05-multi-element
#include "05-multi-element/multi_element.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(step05::step(), argc, argv);
}
