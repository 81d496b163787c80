"""Checkpoint files, shards and tiers: what is written where, what is kept, and which
checkpoint a run resumes from when parts of them are missing or damaged."""

import hashlib
import io
import json
import re
import os
import resource
import signal
import zipfile

import pytest
import torch

from checkpoint_testlib import ThreadRanks, save, trainer_state
from trn_trainer.checkpoint import files
from trn_trainer.checkpoint.group import agreed_resume_step
from trn_trainer.checkpoint.restore import load_newest, load_step
from trn_trainer.checkpoint.shards import assemble, owners, share_of
from trn_trainer.checkpoint.tiers import CheckpointNotCommitted, Tiers
from trn_trainer.errors import CheckpointError
from trn_trainer.checkpoint.tensor_tree import map_tensors


def _state(step):
    torch.manual_seed(step)
    model = {f"layer{i}.weight": torch.randn(8 + i, 4) for i in range(5)}
    moments = {i: {"step": torch.tensor(float(step)), "exp_avg": torch.randn(8 + i, 4),
                   "exp_avg_sq": torch.rand(8 + i, 4)} for i in range(5)}
    state = trainer_state(step, model, moments)
    state["rng"] = {"torch": torch.get_rng_state()}
    return state


def _equal(a, b):
    if torch.is_tensor(a):
        return torch.is_tensor(b) and torch.equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_equal, a, b))
    return a == b


def test_keep_last_n_and_stale_later_checkpoints_removed(tmp_path):
    for step in (2, 4, 6, 8):
        save(tmp_path, step, trainer_state(step), keep=2)
    assert [s for s, _ in files.list_checkpoints(str(tmp_path))] == [8, 6]
    assert not [p for p in tmp_path.iterdir() if ".tmp" in p.name]
    save(tmp_path, 2, trainer_state(2), keep=2)  # a restart (--no-resume) reached step 2
    assert [s for s, _ in files.list_checkpoints(str(tmp_path))] == [2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt_2.json", "ckpt_2.pt"]
    # A save killed before its manifest was committed is no checkpoint at all.
    (tmp_path / "ckpt_9.pt").write_bytes(b"not a checkpoint")
    assert [s for s, _ in files.list_checkpoints(str(tmp_path))] == [2]


def test_the_next_save_being_written_survives_the_commit_of_this_one(tmp_path):
    """Ranks whose part of step 2 is written train on and write step 4 while rank 0 still
    commits step 2: its prune must leave step 4's files alone."""
    (tmp_path / ".ckpt_4.shard1.pt.tmp-999").write_bytes(b"being written")
    (tmp_path / "ckpt_4.shard2.pt").write_bytes(b"written")
    save(tmp_path, 2, trainer_state(2))
    assert (tmp_path / ".ckpt_4.shard1.pt.tmp-999").exists() and (tmp_path / "ckpt_4.shard2.pt").exists()


def test_temporary_files_of_killed_writers_go_with_the_next_save(tmp_path):
    save(tmp_path, 2, trainer_state(2))
    (tmp_path / ".ckpt_4.shard1.pt.tmp-999").write_bytes(b"half")  # killed while writing step 4
    save(tmp_path, 4, trainer_state(4))
    assert (tmp_path / ".ckpt_4.shard1.pt.tmp-999").exists()  # step 4's own round: not touched
    save(tmp_path, 6, trainer_state(6))
    assert not (tmp_path / ".ckpt_4.shard1.pt.tmp-999").exists()


def test_a_missing_or_damaged_shard_is_skipped_with_a_warning_naming_it(tmp_path):
    tiers = Tiers(str(tmp_path), keep=0)
    for step in (2, 3, 4):
        save(tmp_path, step, trainer_state(step))
    (tmp_path / "ckpt_4.pt").unlink()  # a manifest without its shard
    data = (tmp_path / "ckpt_3.pt").read_bytes()
    (tmp_path / "ckpt_3.pt").write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # one bit flipped
    warnings = []
    state, step, sources = load_newest(tiers, warnings.append)
    assert state["step"] == 2 and step == 2 and sources == {"shared"}
    assert "ckpt_4.pt" in warnings[0] and "shard ckpt_4.pt is missing" in warnings[0]
    assert "ckpt_3.pt" in warnings[1] and "truncated or corrupt" in warnings[1]
    (tmp_path / "ckpt_2.pt").write_bytes(b"")
    with pytest.raises(CheckpointError, match="none of the 3 checkpoint"):
        load_newest(tiers, warnings.append)


def test_a_manifest_that_lists_no_shards_is_skipped(tmp_path):
    save(tmp_path, 2, trainer_state(2))
    (tmp_path / "ckpt_4.json").write_text('{"format": 2, "step": 4, "world_size": 2, "shards": []}')
    warnings = []
    state, step, _ = load_newest(Tiers(str(tmp_path), keep=0), warnings.append)
    assert step == 2 and "ckpt_4.pt" in warnings[0] and "does not describe the shards" in warnings[0]


def test_files_without_their_committed_manifest_are_never_read(tmp_path):
    """A save cut off by a lost node leaves each rank's share of step 10 and no manifest; rank
    0's share is no whole state, whatever its name (issue 27.1). Nor is a whole-state file of a
    trainer from before manifests read: only a commit makes a checkpoint."""
    state = _state(10)
    torch.save(share_of(state, 0, 2), str(tmp_path / "ckpt_10.pt"))
    torch.save(share_of(state, 1, 2), str(tmp_path / "ckpt_10.shard1.pt"))
    torch.save(trainer_state(12), str(tmp_path / "ckpt_12.pt"))
    warnings = []
    assert load_newest(Tiers(str(tmp_path), keep=0), warnings.append) == (None, -1, set())
    assert len(warnings) == 1 and "step(s) 12, 10" in warnings[0] and "training from step 0" in warnings[0]
    save(tmp_path, 4, _state(4))
    warnings = []
    state, step, _ = load_newest(Tiers(str(tmp_path), keep=0), warnings.append)
    assert step == 4 and _equal(state, _state(4))
    assert len(warnings) == 1 and "resuming from step 4" in warnings[0]


def test_every_tensor_goes_to_one_rank_and_the_bytes_are_balanced():
    assert owners([100, 10, 60, 50, 1], 2) == [0, 0, 1, 1, 0]  # 100+10+1 vs 60+50
    sizes = [4 * n for n in range(1, 200)]
    owner = owners(sizes, 8)
    loads = [sum(s for s, o in zip(sizes, owner) if o == r) for r in range(8)]
    assert max(loads) - min(loads) <= max(sizes)


@pytest.mark.parametrize("world", [1, 2, 3, 7])
def test_shares_put_together_give_the_state_back(world):
    state = _state(4)
    shares = [share_of(state, rank, world) for rank in range(world)]
    held = []  # the weight and optimizer tensors each share holds
    map_tensors({k: shares[0][k] for k in ("model", "optimizer")}, held.append)
    for share in shares[1:]:
        map_tensors(share, held.append)
    everything = []
    map_tensors({k: state[k] for k in ("model", "optimizer")}, everything.append)
    assert len(everything) == 20  # 5 weights; per weight a step, exp_avg and exp_avg_sq
    assert sorted(map(id, held)) == sorted(map(id, everything))  # each in exactly one share
    if world > 1:
        assert "rng" not in shares[1] and shares[0]["rng"] is state["rng"]  # rank 0 keeps the rest
    assert _equal(assemble(shares[0], dict(enumerate(shares[1:], 1))), state)


def test_ranks_write_their_shards_in_parallel_and_the_manifest_lists_them(tmp_path):
    state = _state(6)
    results, _ = ThreadRanks(3).persist(lambda rank: Tiers(str(tmp_path), keep=0), 6, state)
    assert results == {r: str(tmp_path / "ckpt_6.pt") for r in range(3)}
    assert sorted(os.listdir(tmp_path)) == ["ckpt_6.json", "ckpt_6.pt", "ckpt_6.shard1.pt",
                                            "ckpt_6.shard2.pt"]
    manifest = files.read_manifest(str(tmp_path), 6)
    assert manifest["world_size"] == 3 and [e["rank"] for e in manifest["shards"]] == [0, 1, 2]
    loaded, sources = load_step(Tiers(str(tmp_path), keep=0), 6)
    assert _equal(loaded, state) and sources == {"shared"}


def test_one_rank_that_cannot_write_leaves_the_previous_checkpoint_the_newest(tmp_path):
    shared = tmp_path / "run"
    ThreadRanks(2).persist(lambda rank: Tiers(str(shared), keep=0), 2, _state(2))
    blocked = tmp_path / "a-file"
    blocked.write_text("")

    def tiers(rank):  # rank 1 cannot write (its path runs through a file): a failed disk
        return Tiers(str(shared) if rank == 0 else str(blocked / "run"), keep=0)

    results, said = ThreadRanks(2).persist(tiers, 4, _state(4))
    assert isinstance(results[0], CheckpointNotCommitted) and "rank 1: NotADirectoryError" in str(results[0])
    assert files.committed_steps(str(shared)) == [2]
    state, step, _ = load_newest(Tiers(str(shared), keep=0), print)
    assert step == 2 and _equal(state, _state(2))


def test_the_node_local_tier_is_read_first_and_the_shared_tier_fills_in(tmp_path):
    """Two nodes, one rank each: each node's local tier holds its own shard (and the manifest),
    the run directory all of them."""
    shared, local = tmp_path / "run", {0: tmp_path / "nodeA", 1: tmp_path / "nodeB"}

    def tiers(rank):
        return Tiers(str(shared), keep=0, local=str(local[rank]), keep_local=1)

    for step in (2, 4):
        ThreadRanks(2).persist(tiers, step, _state(step), local_ranks=[0, 0])
    assert sorted(os.listdir(local[0])) == ["ckpt_4.json", "ckpt_4.pt"]  # keep_local 1
    assert sorted(os.listdir(local[1])) == ["ckpt_4.json", "ckpt_4.shard1.pt"]
    assert files.committed_steps(str(shared)) == [4, 2]
    state, step, sources = load_newest(tiers(0), print)
    assert step == 4 and sources == {"node-local", "shared"} and _equal(state, _state(4))
    # The node-local copy wins over a damaged shared one...
    whole = (shared / "ckpt_4.pt").read_bytes()
    (shared / "ckpt_4.pt").write_bytes(b"damaged")
    assert load_newest(tiers(0), print)[1] == 4
    (shared / "ckpt_4.pt").write_bytes(whole)
    # ...and a shard missing from every tier its node sees sends that node to an older step,
    # while the other node still reads step 4: the ranks agree on the older one.
    (shared / "ckpt_4.shard1.pt").unlink()
    warnings = []
    steps = [load_newest(tiers(0), warnings.append)[1], load_newest(tiers(1), print)[1]]
    assert steps == [2, 4] and "ckpt_4.shard1.pt is missing" in warnings[0]
    assert agreed_resume_step(steps, str(shared)) == 2


def test_a_node_local_tier_that_fails_costs_a_warning_and_the_shared_copy_stands(tmp_path):
    shared, blocked = tmp_path / "run", tmp_path / "not-a-disk"
    blocked.write_text("")
    results, said = ThreadRanks(2).persist(
        lambda rank: Tiers(str(shared), keep=0, local=str(blocked / "local")), 2, _state(2))
    assert results[0] == str(shared / "ckpt_2.pt")
    assert files.committed_steps(str(shared)) == [2]
    assert any("not on the node-local tier" in s and "NotADirectoryError" in s for s in said)


def test_ranks_agree_on_the_oldest_newest_checkpoint():
    assert agreed_resume_step([4, 4, 4], "run") == 4
    assert agreed_resume_step([6, 4, 6], "run") == 4
    assert agreed_resume_step([-1, -1], "run") == -1
    with pytest.raises(CheckpointError, match=r"rank\(s\) 1 found no checkpoint in run while rank 0"):
        agreed_resume_step([4, -1], "run")


@pytest.fixture
def no_hang():
    """A read that blocks (a FIFO with no writer) fails the test after 20 s instead of hanging it."""
    def hung(signum, frame):
        raise TimeoutError("a checkpoint reader blocked")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def test_a_manifest_or_shard_that_is_no_regular_file_is_refused_at_once(tmp_path, no_hang):
    for step in (2, 3, 4):
        save(tmp_path, step, trainer_state(step))
    (tmp_path / "ckpt_4.json").unlink()
    os.mkfifo(tmp_path / "ckpt_4.json")  # no writer ever comes
    (tmp_path / "ckpt_3.pt").unlink()
    os.symlink("/dev/zero", tmp_path / "ckpt_3.pt")  # endless: the manifest's size bounds the read
    warnings = []
    state, step, _ = load_newest(Tiers(str(tmp_path), keep=0), warnings.append)
    assert step == 2 and state["step"] == 2
    assert "ckpt_4.json is not a regular file" in warnings[0], warnings
    assert "ckpt_3.pt is not a regular file" in warnings[1], warnings


def test_a_manifest_naming_a_file_outside_its_folder_is_refused(tmp_path, no_hang):
    secret = tmp_path / "secret"
    secret.write_bytes(b"not a checkpoint")
    run = tmp_path / "run"
    for step in (2, 3):
        save(run, step, trainer_state(step))
    manifest = json.loads((run / "ckpt_3.json").read_text())
    manifest["shards"][0]["file"] = "../secret"
    (run / "ckpt_3.json").write_text(json.dumps(manifest))
    warnings = []
    _, step, _ = load_newest(Tiers(str(run), keep=0), warnings.append)
    assert step == 2 and "'../secret', which is not a file inside its folder" in warnings[0], warnings


@pytest.mark.parametrize("name", ["../secret", "a/b", ".", "..", "", "ckpt_1.pt\0x", None])
def test_a_name_from_a_manifest_is_a_plain_name_in_its_folder(name):
    from trn_trainer.outside_files import UnreadableFile, plain_name
    assert plain_name("ckpt_1.shard3.pt", "manifest m") == "ckpt_1.shard3.pt"
    with pytest.raises(UnreadableFile, match="not a file inside its folder"):
        plain_name(name, "manifest m")


@pytest.mark.parametrize("content, problem", [
    (b"[" * 3000, "is not valid JSON (nested too deeply)"),
    (b'{"format": 2, "step": 4, "shards": [{"file": "ckpt_4.pt", "bytes": 1, "sha256": "a", "rank": [1]}]}',
     "does not describe the shards of step 4"),
])
def test_a_manifest_python_cannot_take_is_a_value_error(tmp_path, content, problem):
    """peers.inventory and restore.read_step_manifest skip a manifest on ValueError only (fuzzing)."""
    (tmp_path / "ckpt_4.json").write_bytes(content)
    with pytest.raises(ValueError, match=re.escape(problem)):
        files.read_manifest(str(tmp_path), 4)


def _rewrite_shard(run, step, data):
    """Shard `ckpt_<step>.pt` replaced by `data`, its manifest entry saying its true size and
    checksum (as a writer's own bytes would): only the content can refuse it."""
    (run / f"ckpt_{step}.pt").write_bytes(data)
    manifest = json.loads((run / f"ckpt_{step}.json").read_text())
    entry = manifest["shards"][0]
    entry["bytes"], entry["sha256"] = len(data), hashlib.sha256(data).hexdigest()
    (run / f"ckpt_{step}.json").write_text(json.dumps(manifest))


def _archive_with_pickle(pickle_bytes):
    buffer = io.BytesIO()
    torch.save({"x": torch.zeros(1)}, buffer)
    source, rewritten = zipfile.ZipFile(io.BytesIO(buffer.getvalue())), io.BytesIO()
    with zipfile.ZipFile(rewritten, "w", zipfile.ZIP_STORED) as target:
        for info in source.infolist():
            data = pickle_bytes if info.filename.endswith("/data.pkl") else source.read(info)
            target.writestr(info, data)
    return rewritten.getvalue()


@pytest.mark.parametrize("content, problem", [
    # LONG_BINPUT 0x2274616d: CPython's unpickler would first allocate a memo of 578M slots
    # (fuzz_checkpoint_manifest ran out of 2 GiB on it; the input is kept as a regression).
    (lambda: _archive_with_pickle(b"\x80\x02}r" + b'mat"' + b"."), "puts into memo slot 578052461"),
    (lambda: b'MMMMMMrmat": 2, "step":7', "is not a torch.save zip archive"),
    (lambda: _archive_with_pickle(b"\x80\x02}\xff."), "its pickle is malformed"),
])
def test_a_shard_whose_bytes_would_claim_the_memory_is_skipped(tmp_path, content, problem):
    resource_limit = resource.getrlimit(resource.RLIMIT_AS)
    for step in (2, 3):
        save(tmp_path, step, trainer_state(step))
    _rewrite_shard(tmp_path, 3, content())
    warnings = []
    # 1 GiB more than now: the unchecked pickle would need over 4 GiB for its memo.
    in_use = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (in_use + (1 << 30), resource_limit[1]))
    try:
        state, step, _ = load_newest(Tiers(str(tmp_path), keep=0), warnings.append)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, resource_limit)
    assert step == 2 and state["step"] == 2
    assert problem in warnings[0] and "ckpt_3.pt" in warnings[0], warnings
