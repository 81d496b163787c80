"""Runs `trn_trainer` with every torch.distributed collective (NAME, or NAME@group on a group
other than the default one), every model forward and every optimizer step recorded in order,
then writes the event list to $TRN_EVENTS_DIR/rank<R>.json.

Usage (under torchrun): -m count_collectives pretrain ARGS...
"""

import functools
import json
import os
import sys

import torch
import torch.distributed as dist

EVENTS = []
COLLECTIVES = ("all_reduce", "all_gather", "all_gather_object", "broadcast", "broadcast_object_list",
               "reduce", "reduce_scatter", "all_to_all", "gather", "scatter", "barrier",
               "all_gather_single", "reduce_scatter_single")  # the last two: FSDP2's (torch 2.13)


def _record(name, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        # A collective on a group of its own (the checkpoints' coordination) is told apart.
        EVENTS.append(name if kwargs.get("group") in (None, dist.group.WORLD) else name + "@group")
        return fn(*args, **kwargs)

    return wrapper


for _name in COLLECTIVES:
    if hasattr(dist, _name):
        setattr(dist, _name, _record(_name, getattr(dist, _name)))

from trn_trainer.models import bert  # noqa: E402
from trn_trainer.cli import main  # noqa: E402
from trn_trainer.process_exit import exit_without_teardown  # noqa: E402

bert.BertForPreTraining.forward = _record("forward", bert.BertForPreTraining.forward)
torch.optim.AdamW.step = _record("optimizer_step", torch.optim.AdamW.step)

rc = main(sys.argv[1:])
with open(os.path.join(os.environ["TRN_EVENTS_DIR"], f"rank{os.environ['RANK']}.json"), "w") as f:
    json.dump(EVENTS, f)
exit_without_teardown(rc)  # as python -m trn_trainer ends
