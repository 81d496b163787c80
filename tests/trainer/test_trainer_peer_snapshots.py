"""Peer snapshots (docs/checkpoints.md#peers) between two "nodes": two torchrun agents on this
machine, one process each, each with a node-local tier of its own - what a lost node takes with
it is its folder."""

import json
import os
import shutil
import subprocess

import pytest

from trainer_testlib import PYTHON, child_env, free_port, pretrain_args, read_metrics
from trn_trainer.checkpoint.peers import ring
from trn_trainer.errors import UsageError
from trn_trainer.tasks.pretrain_inputs import _snapshot_every
from trn_trainer.checkpoint.snapshot_schedule import WINDOW, SnapshotSchedule


def _two_nodes(module_args, local_dirs, module="trn_trainer", timeout=300, **env):
    """Both nodes' torchrun agents (static rendezvous on this machine): their CompletedProcess."""
    port = free_port()
    agents = []
    for node, local in enumerate(local_dirs):
        cmd = [PYTHON, "-m", "torch.distributed.run", "--nnodes", "2", "--node_rank", str(node),
               "--nproc_per_node", "1", "--master_addr", "127.0.0.1", "--master_port", str(port),
               "-r", "1", "-t", "1", "-m", module] + list(module_args)
        agents.append(subprocess.Popen(cmd, env=child_env(TRN_CHECKPOINT_LOCAL_DIR=local, **env),
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    results = []
    for agent in agents:
        out, err = agent.communicate(timeout=timeout)
        results.append(subprocess.CompletedProcess(agent.args, agent.returncode, out, err))
    return results


def _killed_run(corpus_dir, tmp_path, steps, die_after):
    """(run directory, the nodes' folders, arguments) of a two-node run with a snapshot every
    step and a checkpoint every 4 (written in the step), killed after step `die_after`."""
    out = str(tmp_path / "run")
    local = [str(tmp_path / "node0"), str(tmp_path / "node1")]
    args = pretrain_args(corpus_dir, out, "--checkpoint-every", "4", "--checkpoint-mode", "sync",
                         "--snapshot-every", "1", steps=steps)
    killed = _two_nodes(args, local, module="die_after_step", TRN_DIE_AFTER_STEP=str(die_after))
    assert all(r.returncode != 0 for r in killed)
    return out, local, args


def test_a_lost_node_resumes_from_the_peer_copy_of_the_newest_snapshot(corpus_dir, reference_run, tmp_path):
    """Snapshots every step, checkpoints every 4: both nodes die after step 7; node 0's folder is
    lost with it, and the run directory's checkpoint is damaged. The restarted run (node 0 with
    an empty folder) resumes from the newest snapshot (step 6, or 5 when 6 was still being
    written: a snapshot waits for the previous one, never for more) - rank 0's shard from node
    1's copy - not from the run directory's step 4, and finishes with the uninterrupted run's
    losses."""
    out, local, args = _killed_run(corpus_dir, tmp_path, steps=8, die_after=7)
    assert {"ckpt_4.json", "ckpt_4.pt", "ckpt_4.shard1.pt"} <= set(os.listdir(out))
    assert not any(name.startswith(("ckpt_5", "ckpt_6")) for name in os.listdir(out)), \
        "a snapshot reached the run directory"
    # Node 1 holds its own shard of the newest snapshot and node 0's copy, in a folder of its own.
    snapshots = os.path.join(local[1], "snapshots")
    newest = max(int(n[5:-5]) for n in os.listdir(snapshots) if n.endswith(".json"))
    assert newest in (5, 6)
    assert {f"ckpt_{newest}.pt", f"ckpt_{newest}.shard1.pt"} <= set(os.listdir(snapshots))
    with open(os.path.join(snapshots, f"ckpt_{newest}.json")) as f:
        assert json.load(f)["snapshot"] is True

    shutil.rmtree(local[0])  # the lost node's memory
    # The run directory's checkpoint is not even read: damaged, nobody notices.
    for name in ("ckpt_4.pt", "ckpt_4.shard1.pt"):
        with open(os.path.join(out, name), "r+b") as f:
            f.truncate(100)
    resumed = _two_nodes(args, local)
    assert all(r.returncode == 0 for r in resumed), resumed[0].stderr[-3000:] + resumed[1].stderr[-3000:]
    said = resumed[0].stdout
    assert f"resumed from the nodes' snapshot {local[0]}/snapshots/ckpt_{newest}.json (step {newest}, " \
        f"{8 * newest} samples consumed); " \
        "2 of its 2 shard(s) from another node's node-local tier, none from the run directory; " \
        "state read in " in said, said
    assert "skipping checkpoint" not in said
    got = {r["step"]: r["loss"] for r in read_metrics(out)}
    want = {r["step"]: r["loss"] for r in read_metrics(reference_run)}
    assert sorted(got) == list(range(1, 9)) and max(abs(got[s] - want[s]) for s in got) < 1e-5
    with open(os.path.join(out, "results.json")) as f:
        checkpoints = json.load(f)["results"]["checkpoints"]
    snapshots = checkpoints["snapshots"]
    assert snapshots["peer_copies"] is True and snapshots["every"] == 1 and not snapshots["adaptive"]
    assert snapshots["taken"] >= 1 and snapshots["failed"] == 0


def test_without_a_copy_on_any_node_the_run_directory_is_read(corpus_dir, tmp_path):
    """Both nodes' folders lost: the newest snapshot is on no node, so the run resumes from the
    run directory's checkpoint of step 4."""
    out, local, args = _killed_run(corpus_dir, tmp_path, steps=6, die_after=5)
    for folder in local:
        shutil.rmtree(folder)
    resumed = _two_nodes(args, local)
    assert all(r.returncode == 0 for r in resumed), resumed[0].stderr[-3000:]
    assert f"resumed from {out}/ckpt_4.pt (step 4" in resumed[0].stdout, resumed[0].stdout


def test_the_ring_pairs_each_rank_with_the_same_local_rank_on_the_next_node():
    assert ring(0, 8, 4) == (4, 4) and ring(5, 8, 4) == (1, 1)
    assert ring(1, 12, 4) == (5, 9)
    assert ring(3, 4, 4) is None  # one node: no peer
    assert ring(0, 6, 4) is None  # nodes with unequal rank counts


def test_snapshot_every_needs_the_node_local_tier():
    assert _snapshot_every("auto", "/dev/shm/x") is None and _snapshot_every("auto", None) == 0
    assert _snapshot_every("3", "/l") == 3 and _snapshot_every("0", None) == 0
    with pytest.raises(UsageError, match="--snapshot-every 2: snapshots are kept in the node-local tier"):
        _snapshot_every("2", None)
    with pytest.raises(UsageError, match="--snapshot-every -1: give a whole number"):
        _snapshot_every("-1", "/l")
    with pytest.raises(UsageError, match="--snapshot-every often: give a whole number"):
        _snapshot_every("often", "/l")


def test_auto_snapshots_back_off_when_they_cost_more_than_a_percent_of_a_step():
    said, votes = [], []
    schedule = SnapshotSchedule(None, said.append)
    assert schedule.every == 1 and schedule.due(7)
    for _ in range(WINDOW):
        schedule.observe_step(0.1)
    cheap = [0.0005] * WINDOW  # 0.5% of the step
    for i in range(WINDOW):
        schedule.after_snapshot(cheap[:i + 1], lambda flag: votes.append(flag) or flag)
    assert schedule.every == 1 and votes == [False]
    costly = cheap + [0.002] * WINDOW  # 2%: doubles, once per window
    for i in range(WINDOW):
        schedule.after_snapshot(costly[:WINDOW + i + 1], lambda flag: flag)
    assert schedule.every == 2 and not schedule.due(3) and schedule.due(4)
    assert "one every 2 steps from now on" in said[0]
    # Another rank over budget decides for all.
    other = SnapshotSchedule(None, said.append)
    other.observe_step(0.1)
    for i in range(WINDOW):
        other.after_snapshot(cheap[:i + 1], lambda flag: True)
    assert other.every == 2
    fixed = SnapshotSchedule(3, said.append)
    for i in range(2 * WINDOW):
        fixed.after_snapshot(costly[:i + 1], lambda flag: True)
    assert fixed.every == 3
