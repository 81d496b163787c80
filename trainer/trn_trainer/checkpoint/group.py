"""What the ranks agree on about checkpoints, over process groups of their own.

Every rank writes its part of a checkpoint, so they must agree on which saves happen (a save
is skipped on every rank when any rank still writes the previous one), learn whether every part
was written before one of them commits the manifest, and resume from the same step. These talk
over gloo groups made for the purpose (CPU tensors, whatever the training backend): one for the
training thread, one for the background writer and one for the peer snapshots' writer, so no
two threads share a group - the pattern of
PyTorch's asynchronous distributed checkpoint save. A single process needs none of it.
"""

import copy
import datetime

import torch
import torch.distributed as dist

from ..errors import CheckpointError

# A writer waits here for the slowest rank's write (gigabytes to a shared file system).
WRITER_TIMEOUT = datetime.timedelta(minutes=30)


class SingleProcess:
    world_size, rank = 1, 0

    def any_rank(self, flag):
        return flag

    def gather(self, record):
        return [record]

    def resume_steps(self, step):
        return [step]

    def all_gather(self, obj):
        return [obj]

    def for_snapshots(self):
        return self

    def broadcast(self, obj, source):
        return obj

    def writer_process_group(self):
        return None


class ProcessGroups:
    def __init__(self, rank, world_size, snapshots=True):
        self.rank, self.world_size = rank, world_size
        # Every rank makes the groups in the same order, right after the process group exists;
        # the snapshots' only when the run takes snapshots (the same on every rank).
        self._training = dist.new_group(backend="gloo")
        self._writer = dist.new_group(backend="gloo", timeout=WRITER_TIMEOUT)
        self._snapshot_writer = dist.new_group(backend="gloo", timeout=WRITER_TIMEOUT) if snapshots else None

    def for_snapshots(self):
        """The same coordination with a writer group of its own, for the peer snapshots' writer
        thread, which runs beside the checkpoints' (one group per thread)."""
        twin = copy.copy(self)
        twin._writer = self._snapshot_writer
        return twin

    def any_rank(self, flag):
        """Whether `flag` is set on any rank (the training thread: a writer still busy at a
        save, a snapshot over its budget)."""
        value = torch.tensor([1 if flag else 0], dtype=torch.int32)
        dist.all_reduce(value, op=dist.ReduceOp.MAX, group=self._training)
        return bool(value.item())

    def writer_process_group(self):
        """The writer thread's gloo group, for collectives of its own (DCP's save plan)."""
        return self._writer

    def gather(self, record):
        """Every rank's `record`, by rank (the writer thread, after its write)."""
        records = [None] * self.world_size
        dist.all_gather_object(records, record, group=self._writer)
        return records

    def resume_steps(self, step):
        """The step every rank found to resume from (-1: none), by rank."""
        return self.all_gather(step)

    def all_gather(self, obj):
        """Every rank's `obj`, by rank (the training thread)."""
        objects = [None] * self.world_size
        dist.all_gather_object(objects, obj, group=self._training)
        return objects

    def broadcast(self, obj, source):
        """Rank `source`'s `obj` on every rank (the training thread)."""
        objects = [obj if self.rank == source else None]
        dist.broadcast_object_list(objects, src=source, group=self._training)
        return objects[0]

    def exchange(self, payload, to, source):
        """Sends bytes `payload` to rank `to` while receiving rank `source`'s (the writer
        thread; every rank of a ring calls it at once): the bytes received."""
        def both(outgoing, incoming):
            requests = [dist.isend(outgoing, to, group=self._writer),
                        dist.irecv(incoming, source, group=self._writer)]
            for request in requests:
                request.wait()

        size = torch.zeros(1, dtype=torch.int64)
        both(torch.tensor([len(payload)], dtype=torch.int64), size)
        # gloo sends no empty tensors: nothing to send goes as one byte that nobody reads.
        outgoing = torch.frombuffer(bytearray(payload or b"\0"), dtype=torch.uint8)
        received = torch.empty(max(1, int(size.item())), dtype=torch.uint8)
        both(outgoing, received)
        return received.numpy().tobytes() if size.item() else b""


def coordination(env, snapshots=True):
    """The ranks' coordination for `env` (a DistEnv), once the process group exists; with a
    group for the peer snapshots' writer when `snapshots`."""
    return ProcessGroups(env.rank, env.world_size, snapshots) if env.distributed else SingleProcess()


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
