"""Where a checkpoint goes (docs/checkpoints.md#tiers): the node-local tier first (fast NVMe,
lost with the node; --checkpoint-local-dir), then the run directory on the shared file system
(--output), then optionally an object store (--checkpoint-uri). Each rank writes its own shard
to each tier; a tier's manifest is committed once every rank's shard is there, and each tier
keeps its own number of checkpoints. Runs in every rank's writer thread."""

import os
import time
from dataclasses import dataclass
from typing import Optional

from . import files
from .peers import give_to_peer
from .s3 import S3Tier

OK = "ok"


@dataclass
class Tiers:
    shared: str  # the run directory
    keep: int
    local: Optional[str] = None
    keep_local: int = 2
    store: Optional[S3Tier] = None

    def directories(self):
        """(name, directory) of the file tiers, fastest first."""
        return [(name, d) for name, d in (("node-local", self.local), ("shared", self.shared)) if d]

    @property
    def snapshots(self):
        """The peer snapshots' folder (peers.py), in the node-local tier: a folder of its
        own, so that its writer and the checkpoints' never touch each other's files."""
        return os.path.join(self.local, "snapshots") if self.local else None

    def names(self):
        return [name for name, _ in self.directories()] + (["object store"] if self.store else [])

    def path(self, step):
        """How a checkpoint is named to people: rank 0's shard in the run directory."""
        return os.path.join(self.shared, files.shard_name(step, 0))


class CheckpointNotCommitted(Exception):
    """A save that did not reach the shared tier on every rank (the previous one stands)."""


def _describe(error):
    return f"{type(error).__name__}: {error}"


class TierWriter:
    """persist(step, share): this rank's share of checkpoint `step` into every tier, the
    manifests committed where every rank's shard arrived; the path of the committed checkpoint.
    persist(step, share, snapshot=True): into the node-local tier and, through `peers` (the
    ranks to give the shard to and to keep a copy of: peers.ring), a peer's."""

    def __init__(self, tiers, group, local_rank, say, peers=None):
        self.tiers, self.group, self.local_rank, self.say = tiers, group, local_rank, say
        self.peers = peers
        self.rank = group.rank
        self.uploads_failed = 0
        self.local_failed = 0

    def _write(self, step, share):
        """This rank's record: its manifest entry and what became of it in each tier."""
        tiers = self.tiers
        record = {"rank": self.rank, "entry": None, "local": None, "shared": None}
        if isinstance(share, Exception):  # the snapshot failed: still part of the round
            record["shared"] = _describe(share)
            return record
        if tiers.local:
            try:
                record["entry"] = files.write_shard(tiers.local, step, self.rank, share)
                record["local"] = OK
            except Exception as e:  # noqa: BLE001 - a full or missing local disk: shared goes on
                record["local"] = _describe(e)
        try:
            if record["entry"] is not None:
                files.copy_shard(tiers.local, tiers.shared, record["entry"])
            else:
                record["entry"] = files.write_shard(tiers.shared, step, self.rank, share)
            record["shared"] = OK
        except Exception as e:  # noqa: BLE001 - reported by rank 0 for every rank
            record["shared"] = _describe(e)
        return record

    def persist(self, step, share, snapshot=False):
        if snapshot:
            return self._snapshot(step, share)
        records = self.group.gather(self._write(step, share))
        manifest = files.make_manifest(step, [r["entry"] for r in records]) \
            if all(r["entry"] for r in records) else None
        self._commit_local(step, records, manifest)
        failed = [f"rank {r['rank']}: {r['shared']}" for r in records if r["shared"] != OK]
        committed = not failed and self._commit_shared(step, manifest, failed)
        if self.tiers.store is not None and not failed:
            self._upload(step, records, manifest, committed)
        if failed:
            raise CheckpointNotCommitted("; ".join(failed[:4]))
        return self.tiers.path(step)

    def _snapshot(self, step, share):
        """A peer snapshot (peers.py): committed on every node once every rank's shard
        and every peer copy is in its node-local tier; the path of this node's manifest."""
        local = self.tiers.snapshots
        record = {"rank": self.rank, "entry": None, "problem": None}
        if isinstance(share, Exception):
            record["problem"] = _describe(share)
        else:
            try:
                record["entry"] = files.write_shard(local, step, self.rank, share)
            except Exception as e:  # noqa: BLE001 - reported with every rank's
                record["problem"] = _describe(e)
        if self.peers is not None:  # every rank takes part, even without a shard to give
            try:
                copy = give_to_peer(self.group, local, step, record["entry"], self.peers)
            except Exception as e:  # noqa: BLE001
                copy = _describe(e)
            if copy != OK:
                record["problem"] = record["problem"] or f"peer copy: {copy}"
        records = self.group.gather(record)
        failed = [f"rank {r['rank']}: {r['problem']}" for r in records if r["problem"]]
        if failed:
            raise CheckpointNotCommitted("; ".join(failed[:4]))
        manifest = files.make_manifest(step, [r["entry"] for r in records])
        manifest["snapshot"] = True
        if self.local_rank == 0:
            files.commit_manifest(local, manifest)
            files.prune(local, step, self.tiers.keep_local)
        return os.path.join(local, files.manifest_name(step))

    def _commit_local(self, step, records, manifest):
        """On each node (its local rank 0): the node-local manifest once every rank's shard is
        in its node's tier; the other nodes' shards are then read from the shared tier."""
        tiers = self.tiers
        if not tiers.local:
            return
        lost = [r["rank"] for r in records if r["local"] != OK]
        if self.local_rank == 0 and not lost:
            try:
                files.commit_manifest(tiers.local, manifest)
                files.prune(tiers.local, step, tiers.keep_local)
            except OSError as e:
                lost.append(f"{self.rank} ({_describe(e)})")
        if lost:
            self.local_failed += 1
            self.say(f"warning: checkpoint of step {step} not on the node-local tier {tiers.local} "
                     f"(rank(s) {', '.join(map(str, lost[:8]))}: "
                     f"{next((r['local'] for r in records if r['local'] != OK), 'manifest')})")

    def _commit_shared(self, step, manifest, failed):
        if self.rank != 0:
            return True
        try:
            files.commit_manifest(self.tiers.shared, manifest)
        except OSError as e:
            failed.append(f"manifest: {_describe(e)}")
            return False
        files.prune(self.tiers.shared, step, self.tiers.keep)
        return True

    def _upload(self, step, records, manifest, committed):
        """Every rank uploads its shard (in parallel), then rank 0 the manifest: the store's
        checkpoint counts only with it."""
        store, mine = self.tiers.store, records[self.rank]
        source = self.tiers.local if mine["local"] == OK else self.tiers.shared
        start = time.perf_counter()
        try:
            store.upload_shard(source, mine["entry"]["file"])
            outcome = OK
        except Exception as e:  # noqa: BLE001 - unreachable store, credentials, timeouts
            outcome = _describe(e)
        outcomes = self.group.gather(outcome)
        if self.rank != 0 or not committed:
            return
        failed = [f"rank {rank}: {o}" for rank, o in enumerate(outcomes) if o != OK]
        if not failed:
            try:
                uri = store.commit(manifest, self.tiers.shared)
                self.say(f"checkpoint {uri} uploaded ({time.perf_counter() - start:.2f} s)")
                return
            except Exception as e:  # noqa: BLE001
                failed.append(f"manifest: {_describe(e)}")
        self.uploads_failed += 1
        self.say(f"warning: checkpoint of step {step} not uploaded to {store.uri} ({'; '.join(failed[:4])}); "
                 f"{self.tiers.path(step)} stands")
