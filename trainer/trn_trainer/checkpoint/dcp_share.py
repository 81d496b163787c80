"""torch.distributed.checkpoint (DCP) over the checkpoint engine's shards (docs/checkpoints.md#dcp).

DCP plans what each rank writes of a state of DTensors (each global tensor's chunks once,
replicated ones spread over the ranks) and what each rank reads back at any other layout
(another tensor-parallel degree, data-parallel size or ZeRO-1 partition): resharding. How the
bytes are stored is a StorageWriter / StorageReader's business, DCP's extension point. The
pair here keeps a rank's chunks in memory as its share - {"dcp_items": {key: tensor}} plus, on
rank 0, the checkpoint's DCP Metadata - which the engine then writes like any other shard: to
every tier, its checksum in the manifest committed last, restored from the fastest tier that
has it whole (tiers.py, restore.py). A load reads only the shares that hold chunks it needs.
"""

import contextlib
import io
import warnings
import torch
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.api import CheckpointException
from torch.distributed.checkpoint.planner import LoadItemType, WriteItemType
from torch.distributed.checkpoint.storage import StorageReader, StorageWriter, WriteResult

ITEMS = "dcp_items"  # a share's chunks: {key: tensor, or bytes of a non-tensor value}
METADATA = "dcp_metadata"  # rank 0's share: DCP's Metadata of the whole checkpoint


def _done(value):
    future = torch.futures.Future()  # what DCP waits on
    future.set_result(value)
    return future


class _ShareWriter(StorageWriter):
    """Keeps the chunks DCP's plan gives this rank; where each is: (rank, key)."""

    def __init__(self, rank):
        super().__init__()
        self.rank = rank
        self.items = {}
        self.metadata = None

    def reset(self, checkpoint_id=None):
        self.items, self.metadata = {}, None

    def set_up_storage_writer(self, is_coordinator, *args, **kwargs):
        pass

    def prepare_local_plan(self, plan):
        return plan

    def prepare_global_plan(self, plans):
        return plans

    def write_data(self, plan, planner):
        results = []
        for item in plan.items:
            data = planner.resolve_data(item)
            key = str(len(self.items))
            if item.type == WriteItemType.BYTE_IO:
                self.items[key] = data.getvalue()
                size = len(self.items[key])
            else:
                # A view of the host snapshot: torch.save writes only the chunk's elements.
                self.items[key] = data.detach()
                size = data.numel() * data.element_size()
            results.append(WriteResult(index=item.index, size_in_bytes=size, storage_data=(self.rank, key)))
        return _done(results)

    def finish(self, metadata, results):
        metadata.storage_data = {r.index: r.storage_data for per_rank in results for r in per_rank}
        self.metadata = metadata

    @classmethod
    def validate_checkpoint_id(cls, checkpoint_id):
        return True


class _ShareReader(StorageReader):
    """Reads chunks out of the shares: share(rank) -> that rank's loaded share."""

    def __init__(self, metadata, share):
        super().__init__()
        self.metadata, self.share = metadata, share

    def reset(self, checkpoint_id=None):
        pass

    def read_metadata(self, *args, **kwargs):
        return self.metadata

    def set_up_storage_reader(self, metadata, is_coordinator, *args, **kwargs):
        pass

    def prepare_local_plan(self, plan):
        return plan

    def prepare_global_plan(self, plans):
        return plans

    def read_data(self, plan, planner):
        for request in plan.items:
            rank, key = self.metadata.storage_data[request.storage_index]
            items = self.share(rank).get(ITEMS, {})
            if key not in items:
                raise ValueError(f"the share of rank {rank} lacks chunk {key} of {request.storage_index.fqn}")
            stored = items[key]
            if request.type == LoadItemType.BYTE_IO:
                planner.load_bytes(request, io.BytesIO(stored))
                continue
            chunk = stored
            for dim, (offset, length) in enumerate(zip(request.storage_offsets, request.lengths)):
                chunk = chunk.narrow(dim, offset, length)
            target = planner.resolve_tensor(request).detach()
            if target.size() != chunk.size():
                raise ValueError(f"chunk {key} of {request.storage_index.fqn} has shape "
                                 f"{tuple(chunk.shape)}, the load wants {tuple(target.shape)}")
            target.copy_(chunk)
            planner.commit_tensor(request, target)
        return _done(None)

    @classmethod
    def validate_checkpoint_id(cls, checkpoint_id):
        return True


def share_of(state, rank, process_group=None):
    """This rank's share of `state` (nested dicts of DTensors and tensors, the same keys' layout on
    every rank): DCP's save plan over `process_group` (every rank calls it at once; None in a
    single process), the chunks kept in memory, DCP's Metadata added on rank 0."""
    writer = _ShareWriter(rank)
    try:
        with _single_process_is_meant():
            dcp.save(state, storage_writer=writer, process_group=process_group, no_dist=process_group is None)
    except CheckpointException as e:  # a BaseException: the writer reports Exceptions
        raise RuntimeError(_first_failure(e)) from None
    share = {ITEMS: writer.items}
    if writer.metadata is not None:
        share[METADATA] = writer.metadata
    return share


def load_into(template, metadata, share):
    """`template` (nested dicts of DTensors and tensors at this run's layout) filled in place from
    a checkpoint of any layout: DCP Metadata `metadata` and share(rank) -> rank's loaded share.
    Each rank plans its own reads (no collective). ValueError when a chunk is missing."""
    try:
        with _single_process_is_meant():
            dcp.load(template, storage_reader=_ShareReader(metadata, share), no_dist=True)
    except CheckpointException as e:
        raise ValueError(_first_failure(e)) from None
    return template


@contextlib.contextmanager
def _single_process_is_meant():
    """DCP warns on every call without a process group that it assumes a single process: here
    that is what is meant (one process, or a load each rank plans alone)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*assuming the intent is to (save|load) in a single")
        yield


def _first_failure(error):
    """One line of DCP's CheckpointException (every failed rank's traceback): a rank and its error."""
    failures = getattr(error, "failures", {}) or {}
    for rank, (cause, _) in sorted(failures.items()):
        return f"DCP on rank {rank}: {type(cause).__name__}: {cause}"
    return f"DCP: {error}"


def tensor_sizes(metadata, prefix):
    """{key under `prefix`: full size} of the tensors a checkpoint's Metadata describes (to
    make a template of whole tensors, as convert does)."""
    start = prefix + "."
    return {fqn[len(start):]: torch.Size(md.size) for fqn, md in metadata.state_dict_metadata.items()
            if fqn.startswith(start) and hasattr(md, "chunks")}
