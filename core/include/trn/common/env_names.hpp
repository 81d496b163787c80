#pragma once

#include <string_view>

// The environment variables spank_trn, trn-run and the trainer hand to one another: each name is
// spelt here once (and in trainer/trn_trainer/env_names.py). docs/architecture.md#environment
// says who sets and who reads each; tests/env_names/check_env_names.py keeps the three alike.
// Each view points at a string literal, so data() is a NUL-terminated name for getenv().
namespace trn::env {

// Rank, world and rendezvous of torch.distributed workers (set by spank_trn for every task).
inline constexpr std::string_view kRank = "RANK";
inline constexpr std::string_view kWorldSize = "WORLD_SIZE";
inline constexpr std::string_view kLocalRank = "LOCAL_RANK";
inline constexpr std::string_view kLocalWorldSize = "LOCAL_WORLD_SIZE";
inline constexpr std::string_view kNodeRank = "NODE_RANK";
inline constexpr std::string_view kMasterAddr = "MASTER_ADDR";
inline constexpr std::string_view kMasterPort = "MASTER_PORT";

// torchrun's own options, read when missing from its command line (one task per node).
inline constexpr std::string_view kPetNnodes = "PET_NNODES";
inline constexpr std::string_view kPetNodeRank = "PET_NODE_RANK";
inline constexpr std::string_view kPetNprocPerNode = "PET_NPROC_PER_NODE";
inline constexpr std::string_view kPetMasterAddr = "PET_MASTER_ADDR";
inline constexpr std::string_view kPetMasterPort = "PET_MASTER_PORT";

// Neuron runtime and compiler (docs/hardware.md#neuron-runtime-env).
inline constexpr std::string_view kNeuronRtVisibleCores = "NEURON_RT_VISIBLE_CORES";
inline constexpr std::string_view kNeuronRtRootCommId = "NEURON_RT_ROOT_COMM_ID";
inline constexpr std::string_view kNeuronLogicalNcConfig = "NEURON_LOGICAL_NC_CONFIG";
inline constexpr std::string_view kNeuronCompileCacheUrl = "NEURON_COMPILE_CACHE_URL";
inline constexpr std::string_view kNeuronCcFlags = "NEURON_CC_FLAGS";
inline constexpr std::string_view kNeuronRtStochasticRoundingEn =
    "NEURON_RT_STOCHASTIC_ROUNDING_EN";
// torch-neuronx's process world, set by spank_trn in per-core launch
// (docs/hardware.md#torch-neuronx-world).
inline constexpr std::string_view kNeuronPjrtProcessIndex = "NEURON_PJRT_PROCESS_INDEX";
inline constexpr std::string_view kNeuronPjrtWorldSize = "NEURON_PJRT_WORLD_SIZE";
inline constexpr std::string_view kNeuronPjrtProcessesNumDevices =
    "NEURON_PJRT_PROCESSES_NUM_DEVICES";
inline constexpr std::string_view kPjrtLocalProcessCount = "PJRT_LOCAL_PROCESS_COUNT";
inline constexpr std::string_view kPjrtLocalProcessRank = "PJRT_LOCAL_PROCESS_RANK";

// libfabric's EFA provider (docs/hardware.md#efa).
inline constexpr std::string_view kFiProvider = "FI_PROVIDER";
inline constexpr std::string_view kFiEfaUseDeviceRdma = "FI_EFA_USE_DEVICE_RDMA";
inline constexpr std::string_view kFiEfaForkSafe = "FI_EFA_FORK_SAFE";

// spank_trn's decisions, for trn-run, job scripts and users.
inline constexpr std::string_view kTrnInstanceType = "TRN_INSTANCE_TYPE";
inline constexpr std::string_view kTrnCacheShared = "TRN_CACHE_SHARED";
inline constexpr std::string_view kTrnCpus = "TRN_CPUS";
inline constexpr std::string_view kTrnEfaDevices = "TRN_EFA_DEVICES";
inline constexpr std::string_view kTrnFsroot = "TRN_FSROOT";

// Set by trn-run for every step it starts, so that the workers import the installed trainer.
inline constexpr std::string_view kPythonPath = "PYTHONPATH";
inline constexpr std::string_view kPath = "PATH";
// The Python training environment the cluster install made (pcluster-configs/install).
inline constexpr std::string_view kTrnTrainingVenv = "TRN_TRAINING_VENV";

// Set by trn-run for the training step from the profile (checkpoint_uri, checkpoint_local_dir),
// so that the trainer finds its checkpoint tiers without them on its command line.
inline constexpr std::string_view kTrnCheckpointUri = "TRN_CHECKPOINT_URI";
inline constexpr std::string_view kTrnCheckpointLocalDir = "TRN_CHECKPOINT_LOCAL_DIR";
// The profile's snapshot_every, for the training step (the trainer's --snapshot-every default).
inline constexpr std::string_view kTrnSnapshotEvery = "TRN_SNAPSHOT_EVERY";
// "1" for the workers of the native path's warm-up step (trn-run's compile phase): take the steps
// and compile what they compile, but resume nothing and write no checkpoint, metrics or results
// (as under NEURON_EXTRACT_GRAPHS_ONLY on the trn1 path), so training starts from step 0.
inline constexpr std::string_view kTrnCompileWarmup = "TRN_COMPILE_WARMUP";

// Set by trn-run for the training step: the folder of the ranks' heartbeats and stack dumps its
// watchdog reads (docs/recovery.md), and the steps per straggler window.
inline constexpr std::string_view kTrnWatchDir = "TRN_WATCH_DIR";
inline constexpr std::string_view kTrnStragglerWindow = "TRN_STRAGGLER_WINDOW";
// Set by slurmd for every task: the Slurm name of the task's node.
inline constexpr std::string_view kSlurmdNodeName = "SLURMD_NODENAME";

}  // namespace trn::env
