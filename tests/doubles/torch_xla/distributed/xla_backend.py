"""torch_xla.distributed.xla_backend (TEST DOUBLE): importing it registers the "xla" process
group backend (gloo underneath) and the xla:// rendezvous, which takes rank and world from the
PJRT runtime, not from RANK/WORLD_SIZE."""

import datetime
import importlib
import os

import torch.distributed as dist

from .. import runtime


def _create_xla_process_group(store, rank, size, timeout):
    return dist.ProcessGroupGloo(store, rank, size, timeout)


def _xla_rendezvous(url, timeout=datetime.timedelta(minutes=30), **kwargs):
    rank, world = runtime.global_ordinal(), runtime.world_size()
    store = dist.TCPStore(os.environ.get("MASTER_ADDR", "localhost"),
                          int(os.environ["MASTER_PORT"]), world, rank == 0, timeout)
    yield store, rank, world


try:
    dist.Backend.register_backend("xla", _create_xla_process_group)
except (ValueError, RuntimeError):
    pass  # registered by an earlier import
importlib.import_module("torch.distributed.rendezvous").register_rendezvous_handler(
    "xla", _xla_rendezvous)
