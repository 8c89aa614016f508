/// @file launcher.hpp
/// @brief How step 18's processes start, one a GPU, and how they share NCCL's unique id: the
/// program forks them itself (--gpus P), or mpirun or srun starts them (across machines too).
#pragma once

#include <nccl.h>

#include <functional>
#include <optional>
#include <string>

namespace step18 {

/// Who this process is in the job.
struct Rank {
  int rank = 0;  ///< 0 .. size - 1.
  int size = 1;  ///< Processes in the job, one a GPU.
  /// The local rank on its host (its GPU, modulo the GPUs the host shows it), or -1 where the
  /// launcher gives none (then the rank is used).
  int local = -1;
  ncclUniqueId id{};    ///< The job's id, the same in every process.
  std::string id_file;  ///< Where rank 0 wrote the id (under mpirun or srun): removed once read.
};

/// The rank that mpirun or srun gave this process: OMPI_COMM_WORLD_RANK and _SIZE (Open MPI),
/// PMI_RANK and PMI_SIZE (MPICH, Intel MPI), or SLURM_PROCID and SLURM_NTASKS (srun), with the
/// matching local rank (OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID) where set.
/// Nothing where none is set, or where the job has one process. Throws tt::UsageError where a
/// variable is not a number.
std::optional<Rank> launched_rank();

/// The CUDA devices this process sees. Throws tt::NoDeviceError where there is none, with
/// CUDA's reason.
int cuda_devices();

/// cuda_devices(), counted in a child process so that this one makes no CUDA
/// call before it forks (a CUDA context does not survive fork()).
int count_devices();

/// Forks @p gpus processes and runs @p body in each, rank r on GPU r; this process makes NCCL's
/// id and hands it to them through a pipe. Returns 0 when every one returns 0, else the status
/// of the first that failed (the others are ended if they do not end on their own: they could
/// wait for it in NCCL for ever).
int fork_ranks(int gpus, const std::function<int(const Rank&)>& body);

/// Under mpirun or srun: rank 0 makes NCCL's id and writes it to @p id_file, the others wait
/// for that file (a file system every host sees), then @p body runs. Returns its status.
int join_ranks(Rank rank, const std::string& id_file, const std::function<int(const Rank&)>& body);

}  // namespace step18
