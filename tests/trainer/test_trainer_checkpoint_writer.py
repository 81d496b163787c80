"""The background checkpoint writer: the step pays for a snapshot into reused host buffers (or
only for waiting on it before the optimizer step), at most one write is in flight on any rank
(later saves are skipped and counted), a failed write - a full disk in either tier - leaves the
previous checkpoint, and an async run writes exactly what a sync run writes."""

import errno
import json
import os
import subprocess
import threading

import torch

from trainer_testlib import PYTHON, child_env, pretrain_args, read_metrics
from trn_trainer.checkpoint import files
from trn_trainer.checkpoint.group import SingleProcess
from trn_trainer.checkpoint.writer import CheckpointWriter, HostSnapshot
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
        def any_rank(self, busy):
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
    committed = [f"ckpt_{s}.pt" for s, _ in files.list_checkpoints(runs["async"])]
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


def _run_with_a_small_disk(disk, size, args):
    """`python3 -m trn_trainer ARGS` with a tmpfs of `size` mounted at `disk`, in a mount
    namespace of its own (a real ENOSPC from the kernel; needs root, as CI runs the tests)."""
    assert os.geteuid() == 0, "mounting a small file system needs root (CI runs the tests as root)"
    os.makedirs(disk, exist_ok=True)
    script = 'mount -t tmpfs -o size="$1" tmpfs "$2" && shift 2 && exec "$@"'
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                           size, disk, PYTHON, "-m", "trn_trainer"] + args, env=child_env(),
                          capture_output=True, text=True, timeout=300)


def test_a_full_run_directory_keeps_the_previous_checkpoint_and_fails_the_last(corpus_dir, tmp_path):
    """A run directory with room for one checkpoint (about 14 MB): checkpoint 2 is written, the
    later ones fail with ENOSPC and leave it the newest; the run trains on, and since its last
    checkpoint is lost it ends with exit status 4, saying so. The same file system then gets room
    (remounted larger, its files kept) and the same command resumes from checkpoint 2."""
    disk = str(tmp_path / "disk")
    os.makedirs(disk)
    run = disk + "/run"
    args = pretrain_args(corpus_dir, run, "--checkpoint-every", "2", "--checkpoint-mode", "sync", steps=4)
    # One mount namespace for both runs: the tmpfs outlives the first, and what it holds between
    # them is listed on a line of its own.
    script = ('disk=$1 && shift && mount -t tmpfs -o size=20m tmpfs "$disk" && "$@"; echo "first exit $?"; '
              'echo "between: $(ls "$0" | tr "\\n" " ")"; mount -o remount,size=200m tmpfs "$disk" && "$@"')
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, run, disk,
                           PYTHON, "-m", "trn_trainer"] + args,
                          env=child_env(), capture_output=True, text=True, timeout=300)
    first, _, second = done.stdout.partition("first exit ")
    assert second.startswith("4\n"), done.stdout[-3000:] + done.stderr[-2000:]
    assert "warning: checkpoint at step 4 not written" in first and "No space left" in first
    assert "the run's last checkpoint (step 4) could not be written" in done.stderr
    between = next(line for line in second.splitlines() if line.startswith("between: ")).split()[1:]
    assert "ckpt_2.json" in between and "ckpt_2.pt" in between and "ckpt_4.json" not in between, between
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"resumed from {run}/ckpt_2.pt (step 2" in second, second[-2000:]
    assert [line.split()[1] for line in second.splitlines() if line.startswith("step ")] == ["3/4", "4/4"]


def test_a_run_directory_with_no_room_left_stops_the_run_with_one_line(corpus_dir, tmp_path):
    """A run directory whose file system is full from the start (a filler takes all of it):
    the first metrics row cannot be written, and the run stops with one line naming the folder
    and the fix and the checkpoint exit status (4), not a traceback."""
    assert os.geteuid() == 0, "mounting a small file system needs root (CI runs the tests as root)"
    disk = str(tmp_path / "disk")
    os.makedirs(disk)
    run = disk + "/run"
    script = ('mount -t tmpfs -o size=4m tmpfs "$0" && { dd if=/dev/zero of="$0/filler" bs=64k 2>/dev/null; '
              'exec "$@"; }')
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, disk,
                           PYTHON, "-m", "trn_trainer"] + pretrain_args(corpus_dir, run, steps=2),
                          env=child_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("trn_trainer: error:")]
    assert len(errors) == 1 and "No space left on device" in errors[0] and run in errors[0], done.stderr
    assert "free space on it" in errors[0]


def test_a_full_node_local_tier_costs_warnings_and_the_run_directory_has_every_checkpoint(
        corpus_dir, tmp_path):
    disk = str(tmp_path / "disk")
    out = str(tmp_path / "run")
    args = pretrain_args(corpus_dir, out, "--checkpoint-every", "2", "--checkpoint-mode", "sync",
                         "--checkpoint-local-dir", disk + "/local", "--snapshot-every", "0", steps=4)
    result = _run_with_a_small_disk(disk, "20m", args)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "warning: checkpoint of step 4 not on the node-local tier" in result.stdout
    assert "No space left" in result.stdout
    assert files.committed_steps(out) == [4, 2]
    with open(os.path.join(out, "results.json")) as f:
        assert json.load(f)["results"]["checkpoints"]["local_failed"] == 1
