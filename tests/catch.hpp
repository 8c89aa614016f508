// Catch2 v2 and v3 under one include.
#pragma once
#if TT_CATCH_MAJOR == 3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif

#if TT_CATCH_MAJOR == 3
using Catch::Approx;  // v2 has Approx in the global namespace already
#endif
