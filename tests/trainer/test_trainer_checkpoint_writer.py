"""The background checkpoint writer: the step pays for a snapshot into reused host buffers, at
most one write is in flight (later saves are skipped and counted), a failed write leaves the
previous checkpoint, and an async run writes exactly what a sync run writes."""

import errno
import json
import os
import threading

import torch

from trainer_testlib import pretrain_args, read_metrics
from trn_trainer import checkpoint
from trn_trainer.checkpoint_group import SingleProcess
from trn_trainer.checkpoint_writer import CheckpointWriter, HostSnapshot
from trn_trainer.cli import main


def test_snapshot_copies_into_buffers_it_reuses():
    snapshot = HostSnapshot()
    live = {"w": torch.arange(6.0).reshape(2, 3), "state": {0: [torch.ones(4), 3]}}
    first = snapshot.copy(live)
    live["w"].add_(100)  # training goes on: the snapshot must not follow
    assert first["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert first["state"][0][1] == 3
    second = snapshot.copy(live)
    assert second["w"].data_ptr() == first["w"].data_ptr()  # the same buffer, refilled
    assert second["w"][0, 0].item() == 100.0
    assert snapshot.nbytes == (6 + 4) * 4


def test_one_write_in_flight_later_saves_are_skipped_and_the_last_waits():
    release = threading.Event()
    written, said = [], []

    def slow_save(step, state):
        release.wait(10)
        written.append((step, state["x"].item()))
        return f"ckpt_{step}"

    writer = CheckpointWriter(slow_save, said.append, SingleProcess())
    x = torch.tensor(1.0)
    assert writer.submit(1, lambda: {"x": x})
    x.add_(1)
    assert not writer.submit(2, lambda: {"x": x})
    assert writer.skipped == 1 and any("step 2 skipped" in s for s in said)
    threading.Timer(0.2, release.set).start()
    assert writer.submit(3, lambda: {"x": x}, must=True)  # waits for step 1
    writer.wait()
    assert written == [(1, 1.0), (3, 2.0)]
    report = writer.report()
    assert report["saves"] == 2 and report["skipped_in_flight"] == 1 and report["mode"] == "async"


def test_a_save_is_skipped_on_every_rank_when_any_rank_still_writes():
    """This rank's writer is idle, another rank's is not: the group says busy, so this rank
    skips too (the shards of one checkpoint come from one round on every rank)."""
    class AnotherRankBusy(SingleProcess):
        def any_busy(self, busy):
            return True

    writer = CheckpointWriter(lambda step, state: "ckpt", [].append, AnotherRankBusy())
    assert not writer.submit(2, lambda: {"x": torch.zeros(1)})
    assert writer.skipped == 1 and writer.report()["saves"] == 0


def test_an_overlapped_snapshot_copies_the_weights_before_they_change():
    """overlap: the copy runs in the writer thread while the next step computes; fence() (before
    the optimizer step) waits for it, so the checkpoint holds the weights of the step it names."""
    started, release = threading.Event(), threading.Event()
    written = []

    class SlowSnapshot(HostSnapshot):
        def copy(self, obj):
            started.set()
            release.wait(10)  # the copy takes a while
            return super().copy(obj)

    writer = CheckpointWriter(lambda step, state: written.append(state["w"].clone()) or "ckpt",
                              [].append, SingleProcess(), overlap=True)
    writer._snapshot = SlowSnapshot()
    w = torch.full((4,), 1.0)
    assert writer.submit(5, lambda: {"w": w})
    assert started.wait(10) and writer.stalls[-1] < 1  # the step did not wait for the copy
    threading.Timer(0.3, release.set).start()
    writer.fence()  # the optimizer step would change w now: wait for the copy first
    w.add_(1)
    writer.wait()
    assert written[0].tolist() == [1.0] * 4
    assert writer.stalls[-1] >= 0.2  # the wait at the fence counts as the save's stall
    assert writer.report()["snapshot_overlaps_step"] is True


def test_a_failed_write_is_reported_and_training_goes_on():
    said = []

    def full_disk(step, state):
        raise OSError(errno.ENOSPC, "No space left on device")

    writer = CheckpointWriter(full_disk, said.append, SingleProcess())
    assert writer.submit(4, lambda: {"x": torch.zeros(2)})
    writer.wait()
    assert writer.failed == 1
    assert any("checkpoint at step 4 not written" in s and "No space left" in s for s in said)


def test_async_run_writes_what_a_sync_run_writes(corpus_dir, tmp_path):
    runs = {}
    for mode in ("async", "sync"):
        out = str(tmp_path / mode)
        assert main(pretrain_args(corpus_dir, out, "--checkpoint-every", "1", "--checkpoint-mode",
                                  mode, "--keep-checkpoints", "0", steps=4)) == 0
        runs[mode] = out
    assert [r["loss"] for r in read_metrics(runs["async"])] == [r["loss"] for r in read_metrics(runs["sync"])]
    # A save due while the previous one is still written is skipped (on a loaded machine too):
    # every checkpoint the async run committed, the last one always among them, equals sync's
    # (both keep every checkpoint: with pruning the two would keep different ones).
    committed = [f"ckpt_{s}.pt" for s, _ in checkpoint.list_checkpoints(runs["async"])]
    assert "ckpt_4.pt" in committed
    for name in committed:
        a = torch.load(os.path.join(runs["async"], name))
        s = torch.load(os.path.join(runs["sync"], name))
        assert a["step"] == s["step"]
        assert all(torch.equal(a["model"][k], s["model"][k]) for k in s["model"])
        for k, state in s["optimizer"]["state"].items():
            assert all(torch.equal(a["optimizer"]["state"][k][n], v) for n, v in state.items()
                       if torch.is_tensor(v))
    with open(os.path.join(runs["async"], "results.json")) as f:
        results = json.load(f)["results"]
    assert results["checkpoints"]["mode"] == "async"
    assert results["checkpoints"]["saves"] + results["checkpoints"]["skipped_in_flight"] == 4
    assert results["checkpoint_stall_median_s"] >= 0 and results["step_time_median_s"] > 0
    assert results["checkpoints"]["host_buffer_bytes"] > 0
