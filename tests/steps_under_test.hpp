// The steps a per-step test case runs: the one named by the environment variable TT_STEP
// (tests/CMakeLists.txt registers one ctest test per step of TT_STEPS, the list in
// steps/CMakeLists.txt), or every step when it is not set. A name that is not a step fails
// the test: a test that would run nothing cannot pass.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

#include "catch.hpp"
#include "registry.hpp"

inline std::vector<const tt::Step*> steps_under_test() {
  const char* env = std::getenv("TT_STEP");
  if (env == nullptr || *env == '\0') return tt::tutorial_steps();
  for (const tt::Step* s : tt::tutorial_steps())
    if (s->id == env) return {s};
  FAIL("TT_STEP=" << env << " is not a step of the course (see steps/CMakeLists.txt)");
  return {};
}

/// Shapes that break sloppy kernels: 1 x 1, single rows and columns, primes, non-square,
/// multiples and non-multiples of 32 and 64, rows that are and are not whole 16-byte vectors,
/// and whole tiles at even row counts (the shorter trims of steps 12 and 13).
inline const std::vector<tt::Shape>& awkward_shapes() {
  static const std::vector<tt::Shape> s = {
      {1, 1},     {1, 1000},   {1000, 1},  {2, 3},     {4, 4},      {17, 83},
      {83, 17},   {31, 33},    {32, 32},   {33, 31},   {64, 96},    {96, 64},
      {63, 65},   {65, 63},    {127, 129}, {128, 132}, {257, 1031}, {1031, 257},
      {512, 512}, {4099, 129}, {136, 65},  {130, 193}};
  return s;
}
