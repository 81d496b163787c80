"""The environment variables spank_trn, trn-run and the trainer hand to one another.

Each name is spelt here once, as in core/include/trn/common/env_names.hpp;
docs/architecture.md#environment says who sets and who reads each, and
tests/env_names/check_env_names.py keeps the three alike.
"""

# Rank, world and rendezvous of torch.distributed workers (set by spank_trn for every task).
RANK = "RANK"
WORLD_SIZE = "WORLD_SIZE"
LOCAL_RANK = "LOCAL_RANK"
LOCAL_WORLD_SIZE = "LOCAL_WORLD_SIZE"
NODE_RANK = "NODE_RANK"
MASTER_ADDR = "MASTER_ADDR"
MASTER_PORT = "MASTER_PORT"

# torchrun's own options, read when missing from its command line (one task per node).
PET_NNODES = "PET_NNODES"
PET_NODE_RANK = "PET_NODE_RANK"
PET_NPROC_PER_NODE = "PET_NPROC_PER_NODE"
PET_MASTER_ADDR = "PET_MASTER_ADDR"
PET_MASTER_PORT = "PET_MASTER_PORT"

# Neuron runtime and compiler (docs/hardware.md#neuron-runtime-env).
NEURON_RT_VISIBLE_CORES = "NEURON_RT_VISIBLE_CORES"
NEURON_RT_ROOT_COMM_ID = "NEURON_RT_ROOT_COMM_ID"
NEURON_LOGICAL_NC_CONFIG = "NEURON_LOGICAL_NC_CONFIG"
NEURON_COMPILE_CACHE_URL = "NEURON_COMPILE_CACHE_URL"
NEURON_CC_FLAGS = "NEURON_CC_FLAGS"
NEURON_RT_STOCHASTIC_ROUNDING_EN = "NEURON_RT_STOCHASTIC_ROUNDING_EN"
NEURON_PJRT_PROCESS_INDEX = "NEURON_PJRT_PROCESS_INDEX"
NEURON_PJRT_WORLD_SIZE = "NEURON_PJRT_WORLD_SIZE"
NEURON_PJRT_PROCESSES_NUM_DEVICES = "NEURON_PJRT_PROCESSES_NUM_DEVICES"
PJRT_LOCAL_PROCESS_COUNT = "PJRT_LOCAL_PROCESS_COUNT"
PJRT_LOCAL_PROCESS_RANK = "PJRT_LOCAL_PROCESS_RANK"

# libfabric's EFA provider (docs/hardware.md#efa).
FI_PROVIDER = "FI_PROVIDER"
FI_EFA_USE_DEVICE_RDMA = "FI_EFA_USE_DEVICE_RDMA"
FI_EFA_FORK_SAFE = "FI_EFA_FORK_SAFE"

# spank_trn's decisions, for trn-run, job scripts and users.
TRN_INSTANCE_TYPE = "TRN_INSTANCE_TYPE"
TRN_CACHE_SHARED = "TRN_CACHE_SHARED"
TRN_CPUS = "TRN_CPUS"
TRN_EFA_DEVICES = "TRN_EFA_DEVICES"
TRN_FSROOT = "TRN_FSROOT"

# Set by trn-run for every step it starts, so that the workers import the installed trainer.
PYTHONPATH = "PYTHONPATH"
PATH = "PATH"
TRN_TRAINING_VENV = "TRN_TRAINING_VENV"

# Set by trn-run for the training step from the profile (checkpoint_uri, checkpoint_local_dir):
# the defaults of --checkpoint-uri and --checkpoint-local-dir.
TRN_CHECKPOINT_URI = "TRN_CHECKPOINT_URI"
TRN_CHECKPOINT_LOCAL_DIR = "TRN_CHECKPOINT_LOCAL_DIR"
TRN_SNAPSHOT_EVERY = "TRN_SNAPSHOT_EVERY"
# Set by trn-run for the native path's warm-up step, which fills TorchNeuron's compile cache.
TRN_COMPILE_WARMUP = "TRN_COMPILE_WARMUP"

# Set by trn-run for the training step: the folder of the ranks' heartbeats and stack dumps its
# watchdog reads (docs/recovery.md), and the steps per straggler window.
TRN_WATCH_DIR = "TRN_WATCH_DIR"
TRN_STRAGGLER_WINDOW = "TRN_STRAGGLER_WINDOW"
# Set by slurmd for every task: the Slurm name of the task's node.
SLURMD_NODENAME = "SLURMD_NODENAME"
