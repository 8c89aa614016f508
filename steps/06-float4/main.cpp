// The program 06-float4: the course's shared runner (common/runner.hpp) applied to
// this step's description, step06::step() in float4.cu.
// Build it alone with: cmake --build build --target 06-float4
#include "06-float4/float4.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(step06::step(), argc, argv);
}
