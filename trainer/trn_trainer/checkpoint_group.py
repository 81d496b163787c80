"""What the ranks agree on about checkpoints, over process groups of their own.

Every rank writes its part of a checkpoint, so they must agree on which saves happen (a save
is skipped on every rank when any rank still writes the previous one), learn whether every part
was written before one of them commits the manifest, and resume from the same step. These talk
over gloo groups made for the purpose (CPU tensors, whatever the training backend): one for the
training thread, one for the background writer, so the two never share a group - the pattern of
PyTorch's asynchronous distributed checkpoint save. A single process needs none of it.
"""

import datetime

import torch
import torch.distributed as dist

from .errors import CheckpointError

# A writer waits here for the slowest rank's write (gigabytes to a shared file system).
WRITER_TIMEOUT = datetime.timedelta(minutes=30)


class SingleProcess:
    world_size, rank = 1, 0

    def any_busy(self, busy):
        return busy

    def gather(self, record):
        return [record]

    def resume_steps(self, step):
        return [step]


class ProcessGroups:
    def __init__(self, rank, world_size):
        self.rank, self.world_size = rank, world_size
        # Every rank makes the groups in the same order, right after the process group exists.
        self._training = dist.new_group(backend="gloo")
        self._writer = dist.new_group(backend="gloo", timeout=WRITER_TIMEOUT)

    def any_busy(self, busy):
        """Whether any rank's writer is still busy (the training thread, at a save)."""
        flag = torch.tensor([1 if busy else 0], dtype=torch.int32)
        dist.all_reduce(flag, op=dist.ReduceOp.MAX, group=self._training)
        return bool(flag.item())

    def gather(self, record):
        """Every rank's `record`, by rank (the writer thread, after its write)."""
        records = [None] * self.world_size
        dist.all_gather_object(records, record, group=self._writer)
        return records

    def resume_steps(self, step):
        """The step every rank found to resume from (-1: none), by rank."""
        steps = [None] * self.world_size
        dist.all_gather_object(steps, step, group=self._training)
        return steps


def coordination(env):
    """The ranks' coordination for `env` (a DistEnv), once the process group exists."""
    return ProcessGroups(env.rank, env.world_size) if env.distributed else SingleProcess()


def agreed_resume_step(steps, output):
    """The step all ranks resume from, given each rank's newest loadable one (-1: none): the
    oldest of them, which every rank can read. A rank that found none while others did sees
    another file system than they do: an error, never a silent start from scratch (that would
    prune the others' checkpoints)."""
    found = [s for s in steps if s >= 0]
    if not found:
        return -1
    blind = [rank for rank, s in enumerate(steps) if s < 0]
    if blind:
        raise CheckpointError(
            f"rank(s) {', '.join(map(str, blind[:8]))} found no checkpoint in {output} while "
            f"rank {steps.index(max(found))} resumes from step {max(found)}: every node must see "
            "the same run directory; check that the shared file system is mounted on every node")
    return min(found)
