/// @file all_to_all.hpp
/// @brief Step 18: one matrix spread by rows over several GPUs, transposed into one spread the
/// same way; one process a GPU, NCCL the engine.
#pragma once

#include <cstdint>
#include <string>

#include "18-all-to-all/launcher.hpp"
#include "types.hpp"

namespace step18 {

/// What the command line asks for.
struct Options {
  std::int64_t rows = 8192;          ///< M, the input's rows.
  std::int64_t cols = 8192;          ///< N, its columns.
  tt::DType dtype = tt::DType::f32;  ///< --dtype float|double
  bool nccl = true;                  ///< Run the nccl variant.
  bool peer = true;                  ///< Run the peer variant.
  int gpus = 1;                      ///< --gpus P: processes to fork, one a GPU.
  int warmup = 10;                   ///< Untimed repetitions first.
  int reps = 50;                     ///< Timed repetitions (the median); 0: --once, untimed.
  bool compare = true;               ///< Measure the ceilings (not with --no-compare).
  std::string id_file;               ///< --id-file: NCCL's id, under mpirun or srun.
  std::string csv;                   ///< --csv: the file the timed lines are appended to.
};

/// One rank's whole run: its GPU, its part of the matrix, the ceilings and the variants, each
/// verified; rank 0 prints the table. Returns the exit status (tt::ExitCode).
int run_rank(const Options& o, const Rank& rank);

}  // namespace step18
