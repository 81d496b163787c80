"""torch-xla (Trainium through torch-neuronx) specifics, isolated from the rest of the trainer."""

import os

import torch
import torch.distributed as dist

from .. import env_names
from ..errors import EnvironmentSetupError, UsageError
from .base import Device
from .peak_flops import PEAK_BF16_FLOPS


def _neuron_arch():
    base = "/sys/devices/virtual/neuron_device/neuron0/info/architecture/instance_type"
    try:
        with open(base) as f:
            text = f.read().strip().lower()
    except OSError:
        return None
    if "trn2" in text:
        lnc = os.environ.get(env_names.NEURON_LOGICAL_NC_CONFIG, "2")
        return "trn2-lnc1" if lnc == "1" else "trn2-lnc2"
    if "trn1" in text:
        return "trn1"
    return None


# Tensor-parallel degrees neuronx-distributed lists as unsupported on a whole trn2 node, by either
# of its group orders (parallel_state.get_logic_chosen at v2.28.0), with the degrees it supports.
UNSUPPORTED_TRN2_TP = {"trn2-lnc1": (16, "8, 32, 64 or 128"), "trn2-lnc2": (8, "4, 16, 32 or 64")}


def neuronx_distributed_mesh(world_size, tp_size, local_world_size, arch):
    """The tensor-parallel groups neuronx-distributed's parallel_state makes where they are not
    consecutive ranks (trn1 at tp 4; half a trn2 node), None where they are; a UsageError for a
    degree it does not support on trn2 (docs/hardware.md#torch-xla-groups)."""
    unsupported = UNSUPPORTED_TRN2_TP.get(arch)
    if unsupported and tp_size == unsupported[0] and local_world_size == 8 * tp_size:
        raise UsageError(
            f"--tensor-parallel {tp_size} on {arch.replace('-lnc', ' at logical NeuronCore config ')}: "
            "neuronx-distributed has no replica-group order for it (a node's cores form a ring laid "
            f"out in rows, and groups of {tp_size} consecutive cores are not rings on it); choose "
            f"{unsupported[1]}")
    return (trn1_tp4_mesh(world_size, tp_size, local_world_size, arch)
            or trn2_ring_halves_mesh(world_size, tp_size, local_world_size, arch))


def trn1_tp4_mesh(world_size, tp_size, local_world_size, arch):
    """neuronx-distributed's tp 4 on trn1: each group is four ranks of one node a quarter of the
    node apart ([0, 8, 16, 24], [1, 9, 17, 25], ... on a 32-core trn1.32xlarge), locally connected
    cores, not four consecutive ones. None for every other shape."""
    if arch != "trn1" or tp_size != 4 or local_world_size % 4 or world_size % local_world_size:
        return None
    stride = local_world_size // 4
    if stride == 1:
        return None
    mesh = []
    for first in range(0, world_size, local_world_size):
        mesh += [[first + place + k * stride for k in range(4)] for place in range(stride)]
    return mesh


def trn2_ring_halves_mesh(world_size, tp_size, local_world_size, arch):
    """neuronx-distributed's tensor-parallel groups where a group is half a trn2 node: tp 32 at
    logical NeuronCore config 2 (64 cores), tp 64 at config 1 (128). Consecutive halves would
    pair core 0 with core 32 (64), which have no direct link; a node's cores form 4 rows, and a
    group is rows 0 and 3, the other rows 1 and 2, each in ascending order (docs/hardware.md#
    torch-xla-groups). None for every other shape: consecutive ranks."""
    if (arch, tp_size) not in (("trn2-lnc2", 32), ("trn2-lnc1", 64)):
        return None
    if local_world_size != 2 * tp_size or world_size % local_world_size:
        return None
    row = local_world_size // 4
    mesh = []
    for first in range(0, world_size, local_world_size):
        rows = [list(range(first + r * row, first + (r + 1) * row)) for r in range(4)]
        mesh += [rows[0] + rows[3], rows[1] + rows[2]]
    return mesh


def _under_torchrun():
    """torch.distributed.is_torchelastic_launched()'s test, before torch.distributed is needed."""
    return bool(os.environ.get("TORCHELASTIC_RUN_ID"))


def _describe_world(env):
    """Per-core launch (each process a worker, no torchrun): the Neuron PJRT world from our own
    rank and world, unless the launcher (spank_trn) described it already. torch-neuronx derives it
    only under torchrun (docs/hardware.md#torch-neuronx-world). Must run before torch_xla is
    imported: the runtime reads it once."""
    if _under_torchrun() or not env.distributed:
        return
    os.environ.setdefault(env_names.NEURON_PJRT_PROCESS_INDEX, str(env.rank))
    os.environ.setdefault(env_names.PJRT_LOCAL_PROCESS_RANK, str(env.local_rank))
    os.environ.setdefault(env_names.PJRT_LOCAL_PROCESS_COUNT, str(env.local_world_size))
    if not (os.environ.get(env_names.NEURON_PJRT_WORLD_SIZE)
            or os.environ.get(env_names.NEURON_PJRT_PROCESSES_NUM_DEVICES)):
        os.environ[env_names.NEURON_PJRT_WORLD_SIZE] = str(env.world_size)


def _gradient_buckets(tensors, cap_bytes):
    """Consecutive groups of at most cap_bytes (a larger tensor alone), as Neuron's BERT script
    buckets its gradient all-reduce."""
    bucket, size = [], 0
    for t in tensors:
        nbytes = t.numel() * t.element_size()
        if bucket and size + nbytes > cap_bytes:
            yield bucket
            bucket, size = [], 0
        bucket.append(t)
        size += nbytes
    if bucket:
        yield bucket


class XlaDevice(Device):
    kind = "xla"
    backend = "xla"
    # A host read waits for the step's graph to finish: read step values every --log-every steps.
    defers_reads = True
    snapshot_overlaps = False  # a device read from another thread would cut the traced graph

    def __init__(self, dist_env, dtype):
        super().__init__(dist_env, dtype)
        if dtype == "bf16":
            # Neuron's bf16 recipe: a bf16 model (prepare_model), fp32 master weights and
            # optimizer state (TrainingRun), and stochastic rounding in the runtime, which reads
            # it when it starts - the deprecated XLA_DOWNCAST_BF16 is not used.
            os.environ.setdefault(env_names.NEURON_RT_STOCHASTIC_ROUNDING_EN, "1")
        _describe_world(dist_env)
        import torch_xla.core.xla_model as xm

        self.xm = xm
        self.torch_device = None  # no device is touched before the process group exists

    def describe(self):
        return f"xla ({self.xm.xla_device_hw(self.torch_device)}), {self.dtype}, xla"

    def peak_flops(self):
        arch = _neuron_arch()
        if arch is None:
            return None, "unknown XLA device; pass --peak-tflops"
        flops = PEAK_BF16_FLOPS[arch]
        return flops, f"{arch} dense bf16 {flops / 1e12:.1f} TFLOP/s per NeuronCore"

    def init_process_group(self):
        import torch_xla
        import torch_xla.runtime as xr

        if self.env.distributed:
            import torch_xla.distributed.xla_backend  # noqa: F401  registers "xla" and xla://

            self._replicate(torch_xla.device())
            # No fallback to env://: a failure here is a real rendezvous or network problem.
            dist.init_process_group("xla", init_method="xla://")
            world, rank = xr.world_size(), xr.global_ordinal()
            if (world, rank) != (self.env.world_size, self.env.rank):
                raise EnvironmentSetupError(
                    f"torch-xla sees rank {rank} of {world} but RANK={self.env.rank} "
                    f"WORLD_SIZE={self.env.world_size}: the NEURON_PJRT_* variables describe "
                    "another world; unset them or launch with trn-run/spank_trn")
            # The run's last barrier waits on the host, over gloo: an xm.rendezvous there cuts
            # the graph, gathers payload sizes on the device and cuts again, graphs that would
            # compile at the end of every run (docs/hardware.md#torch-xla-groups).
            self._host_group = dist.new_group(backend="gloo")
        self.torch_device = torch_xla.device()

    def _replicate(self, device):
        """Make this process a replica of the world's devices, which torch-xla does only for
        torchrun's workers (in its xla:// handler) and xmp.spawn: until then its world_size() is
        1, and it keeps the first answer. Per-core tasks call the replication step directly -
        not upstream's multiprocess initialiser, whose Neuron hook would set the process index
        to the local rank (docs/hardware.md#torch-xla)."""
        if not _under_torchrun():
            self.xm.set_replication(device, self.xm.get_xla_supported_devices())
        elif self.env.local_world_size == 1:
            # The handler replicates a node's only worker over no device: a world of 1.
            raise EnvironmentSetupError(
                f"torchrun started one worker on this node (LOCAL_WORLD_SIZE=1) of a world of "
                f"{self.env.world_size}: torch-xla 2.9 makes such a worker a world of its own; start "
                "one worker per NeuronCore (launch: per-core, or torchrun --nproc_per_node = the "
                "node's NeuronCores)")

    def prepare_model(self, model):
        model = model.to(self.torch_device)
        return model.to(torch.bfloat16) if self.dtype == "bf16" else model

    def all_reduce_gradients_(self, grads, scalars):
        """The gradient list in place, bucketed by BUCKET_CAP_MB (no flat copy of the model);
        the loss sums ride in the last bucket."""
        cap = int(os.environ.get("BUCKET_CAP_MB", "512")) * 1024 * 1024
        tensors = list(grads) + [scalars]
        for bucket in _gradient_buckets(tensors, cap):
            self.xm.all_reduce(self.xm.REDUCE_SUM, bucket)
        return scalars

    def checkpoint(self, function, *args):
        # torch-xla's own: an optimization barrier before the recompute, without which the
        # compiler merges the recomputed forward with the original and keeps the activations
        # after all; it has only the reentrant form (docs/hardware.md#torch-xla).
        from torch_xla.utils.checkpoint import checkpoint

        return checkpoint(function, *args)

    def tensor_parallel_mesh(self, world_size, tp_size):
        return neuronx_distributed_mesh(world_size, tp_size, self.env.local_world_size, _neuron_arch())

    def group_options(self, mesh):
        # torch-xla gives new_group(ranks) alone a mesh of that one group, which XLA refuses in a
        # larger world; with the whole mesh every rank compiles the same collectives
        # (docs/hardware.md#torch-xla-groups), as neuronx-distributed's parallel_state passes it.
        return {"xla_pg_options": {"mesh": mesh}}

    def barrier(self):
        if self.env.distributed:
            self.xm.wait_device_ops()
            dist.barrier(group=self._host_group)

    def micro_batches(self, batches):
        # Background upload, and a graph cut each time a micro-batch is taken (and after the
        # last): one graph per micro-step, the same at every accumulation and node count.
        from torch_xla.distributed.parallel_loader import MpDeviceLoader

        return MpDeviceLoader(batches, self.torch_device)

    def step_end(self):
        # Gradients reduced and the optimizer stepped: cut and run the step's last graph.
        self.xm.mark_step()

    def after_step(self, fn, *args):
        # Runs once the step's graph has run: reading its values then costs no extra graph.
        self.xm.add_step_closure(fn, args)

    def synchronize(self):
        self.xm.wait_device_ops()

    def manual_seed(self, seed):
        torch.manual_seed(seed)
        self.xm.set_rng_state(seed)

    def rng_state(self):
        return {"torch": torch.get_rng_state(), "xla": self.xm.get_rng_state()}

    def set_rng_state(self, state):
        super().set_rng_state(state)
        if "xla" in state:
            self.xm.set_rng_state(state["xla"])
