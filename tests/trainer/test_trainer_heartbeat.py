"""Each rank's heartbeat for trn-run's watchdog: where it is (steps done, phase), its compute
time per window, how it ended, and its threads' stacks on SIGUSR1."""

import json
import os
import signal
import socket
import subprocess
import time

from trainer_testlib import PYTHON, child_env, pretrain_args, run_cli, run_ranks


def _beat(watch, rank):
    with open(os.path.join(watch, f"rank{rank}.beat")) as f:
        return json.loads(f.readline())


def test_each_rank_beats_and_says_how_it_ended(corpus_dir, tmp_path):
    watch = str(tmp_path / "watch")
    result = run_ranks(2, pretrain_args(corpus_dir, str(tmp_path / "run"), steps=4),
                       TRN_WATCH_DIR=watch, TRN_STRAGGLER_WINDOW="2")
    assert result.returncode == 0, result.stderr[-2000:]
    for rank in (0, 1):
        beat = _beat(watch, rank)
        assert (beat["rank"], beat["step"], beat["phase"]) == (rank, 4, "exited")
        assert beat["node"] == socket.gethostname() and beat["window"] == 2
        assert 0 < beat["window_compute_s"] < 60 and 0 < beat["compute_s"] < 60
        assert os.path.getsize(os.path.join(watch, f"rank{rank}.beat")) == 512
        assert beat["start_step"] == 0  # a fresh run; a resumed one says its checkpoint's step


def test_a_resumed_rank_says_the_step_it_started_from():
    from trn_trainer.heartbeat import Heartbeat

    heartbeat = Heartbeat(0, env={})
    heartbeat.step_done(12)  # where it starts: the checkpoint it loaded
    heartbeat.step_done(13)
    assert (heartbeat.start_step, heartbeat.step) == (12, 13)


def test_a_rank_that_fails_says_why(corpus_dir, tmp_path):
    watch = str(tmp_path / "watch")
    result = run_cli(pretrain_args(corpus_dir, str(tmp_path / "run"), "--global-batch", "3"),
                     TRN_WATCH_DIR=watch)
    assert result.returncode == 2
    beat = _beat(watch, 0)
    assert beat["phase"] == "failed" and beat["error"].startswith("UsageError: --global-batch 3")


def test_sigusr1_writes_every_threads_stack(corpus_dir, tmp_path):
    watch = str(tmp_path / "watch")
    proc = subprocess.Popen([PYTHON, "-m", "trn_trainer"] + pretrain_args(
        corpus_dir, str(tmp_path / "run"), steps=10000), env=child_env(TRN_WATCH_DIR=watch),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        started = time.monotonic()
        deadline = started + 120
        while not (os.path.exists(os.path.join(watch, "rank0.beat")) and _beat(watch, 0)["step"] >= 1):
            assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
            time.sleep(0.2)
        proc.send_signal(signal.SIGUSR1)
        stack = os.path.join(watch, "rank0.stack")
        # Any frame will do: the kernel may deliver the signal to a thread Python did not start
        # (torch's, gloo's), and then faulthandler heads no stack "Current thread" - every
        # Python thread's stack is still written. A deadline of its own, as on a loaded machine
        # the first step can take most of the two minutes above.
        first_step_s, deadline = time.monotonic() - started, time.monotonic() + 60
        while 'File "' not in open(stack).read():
            assert time.monotonic() < deadline and proc.poll() is None, \
                f"no stack written within 60 s (exit status {proc.poll()}; step 1 took {first_step_s:.0f} s)"
            time.sleep(0.2)
        time.sleep(0.5)
        text = open(stack).read()
        assert 'File "' in text and "tasks/pretrain.py" in text  # the training thread's frames
        assert proc.poll() is None  # the dump does not stop the run
    finally:
        proc.kill()
        proc.wait()


def test_a_save_leaves_checkpoint_at_its_step(tmp_path):
    """Around a save the beat says "checkpoint" at the step being saved, and "done" at that same
    step once the save returns (or raises): the watchdog's finish floor covers exactly the save."""
    from trn_trainer.heartbeat import Heartbeat

    heartbeat = Heartbeat(0, env={"TRN_WATCH_DIR": str(tmp_path)})
    heartbeat.step_done(2)
    with heartbeat.checkpointing():
        assert (_beat(str(tmp_path), 0)["step"], _beat(str(tmp_path), 0)["phase"]) == (2, "checkpoint")
    assert (_beat(str(tmp_path), 0)["step"], _beat(str(tmp_path), 0)["phase"]) == (2, "done")
    try:
        with heartbeat.checkpointing():
            raise OSError("disk full")
    except OSError:
        pass
    assert _beat(str(tmp_path), 0)["phase"] == "done"
    heartbeat.stopped()


def test_a_save_the_step_waits_for_beats_checkpoint(corpus_dir, tmp_path):
    """A synchronous save on storage that takes 3 s per shard: while it writes, the rank's
    heartbeat says "checkpoint" (trn-run's watchdog then allows the 600 s finish floor, not the
    hang deadline), and leaves "checkpoint" once the save returned: the next beat the poll
    catches is another phase, at step 2 or, as the tiny model's steps take milliseconds, a later
    step (a poll cannot promise to see step 2's "done"; test_a_save_leaves_checkpoint_at_its_step
    checks that on the Heartbeat itself)."""
    watch = str(tmp_path / "watch")
    cmd = [PYTHON, "-m", "slow_shard_writes"] + pretrain_args(
        corpus_dir, str(tmp_path / "run"), "--checkpoint-every", "2", "--checkpoint-mode", "sync", steps=4)
    child = subprocess.Popen(cmd, env=child_env(TRN_WATCH_DIR=watch, TRN_SLOW_WRITE_S="3"),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen, deadline = [], time.time() + 240
    while child.poll() is None and time.time() < deadline:
        try:
            beat = _beat(watch, 0)
        except (OSError, ValueError):  # not written yet, or read while rewritten
            beat = None
        if beat and (not seen or seen[-1] != (beat["step"], beat["phase"])):
            seen.append((beat["step"], beat["phase"]))
        time.sleep(0.2)
    assert child.wait(timeout=60) == 0, child.stderr.read()[-2000:]
    assert (2, "checkpoint") in seen, seen
    after = seen[seen.index((2, "checkpoint")) + 1:]
    assert after and after[0][1] != "checkpoint" and after[0][0] >= 2, seen  # the save returned
