"""Peer snapshots (docs/checkpoints.md#peers): a snapshot is a checkpoint kept in the node-local
tier alone (host memory when that tier is a tmpfs such as /dev/shm), and each rank also gives
its shard to the rank of the same local rank on the next node, which keeps it in its own
node-local tier. A node lost takes its shards with it, but the next node holds a copy, so the
restarted step finds every shard of the newest snapshot on some node: each rank reads the ones
its node holds from its own memory and gets the others over the network from a node that holds
them - the shared file system is not read at all. Models: Gemini's and CheckFreq's in-memory
checkpoints, TorchFT's peer recovery."""

import io
import os

from . import files, torch_archive
from .shards import assemble


def ring(rank, world_size, local_world_size):
    """(to, source): the ranks of this local rank on the next and on the previous node (ranks
    are numbered node by node); None on one node, or when nodes have unequal rank counts."""
    if local_world_size <= 0 or world_size <= local_world_size or world_size % local_world_size:
        return None
    return (rank + local_world_size) % world_size, (rank - local_world_size) % world_size


def give_to_peer(group, directory, step, entry, peers):
    """Sends this rank's shard of `step` (`entry`, written to `directory`; None when it could
    not be) to the next node and keeps the previous node's copy in `directory`: what became of
    the received copy ("ok" or the problem)."""
    to, source = peers
    mine = b""
    if entry is not None:
        try:
            with open(os.path.join(directory, entry["file"]), "rb") as f:
                mine = f.read()
        except OSError:  # the peer still expects a message: it learns of it from the gather
            pass
    received = group.exchange(mine, to, source)
    if not received:
        return f"rank {source} sent no shard"
    files.write_bytes(directory, files.shard_name(step, source), received)
    return "ok"


def inventory(directory, after):
    """{step: {"manifest": ..., "files": [...]}} of the snapshots and checkpoints newer than
    `after` committed in `directory`, with the shard files present there."""
    found = {}
    steps = [step for step in files.committed_steps(directory) if step > after]
    present = set(os.listdir(directory)) if steps else set()
    for step in steps:
        try:
            manifest = files.read_manifest(directory, step)
        except ValueError:
            continue
        found[step] = {"manifest": manifest, "files": [e["file"] for e in manifest["shards"]
                                                       if e["file"] in present]}
    return found


def _holders(everyone, step):
    """The manifest of `step` and, per shard, the lowest rank whose node holds it; None when
    some shard is on no node."""
    manifest = next(inv[step]["manifest"] for inv in everyone if step in inv)
    holders = []
    for entry in manifest["shards"]:
        who = [rank for rank, inv in enumerate(everyone)
               if step in inv and entry["file"] in inv[step]["files"]]
        if not who:
            return None
        holders.append(who[0])
    return manifest, holders


def restore_newer(group, directory, after):
    """(state, step, shards from other nodes, shards) of the newest snapshot newer than step `after`
    whose every shard some node holds, read over the network; None when there is none, or when
    a holder could not read its copy (every rank then resumes from `after`). Every rank calls
    it: the ranks agree on what they gathered."""
    everyone = group.all_gather(inventory(directory, after))
    for step in sorted({s for inv in everyone for s in inv}, reverse=True):
        found = _holders(everyone, step)
        if found is None:
            continue
        manifest, holders = found
        here = set(everyone[group.rank].get(step, {}).get("files", ()))
        shares, remote = {}, 0
        for entry, holder in zip(manifest["shards"], holders):
            data = None
            if group.rank == holder:
                try:
                    data = files.read_shard_bytes(directory, entry)
                except (OSError, ValueError) as e:
                    data = f"rank {holder}: {e}"
            data = group.broadcast(data, holder)
            if isinstance(data, str):
                return None
            shares[entry["rank"]] = torch_archive.load(io.BytesIO(data), f"shard {entry['file']}")
            remote += entry["file"] not in here
        return files.check_loaded(assemble(shares.pop(0), shares)), step, remote, len(holders)
    return None
