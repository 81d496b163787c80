import pytest
import torch

from trn_trainer import checkpoint
from trn_trainer.environment import DistEnv, read_dist_env
from trn_trainer.errors import CheckpointError, EnvironmentSetupError
from trn_trainer.optim import WarmupDecay, warmup_steps


def test_no_variables_means_one_process():
    assert read_dist_env({}) == DistEnv()


def test_torchrun_and_plugin_variables_are_read():
    env = {"RANK": "5", "WORLD_SIZE": "8", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "4",
           "MASTER_ADDR": "node1", "MASTER_PORT": "2022"}
    got = read_dist_env(env)
    assert (got.rank, got.world_size, got.local_rank, got.local_world_size) == (5, 8, 1, 4)
    assert (got.master_addr, got.master_port, got.distributed, got.is_main) == ("node1", 2022, True, False)
    assert read_dist_env({"RANK": "0", "WORLD_SIZE": "1"}).distributed is False


@pytest.mark.parametrize("env, needle", [
    ({"RANK": "1"}, "WORLD_SIZE"),
    ({"RANK": "0", "WORLD_SIZE": "2"}, "MASTER_ADDR"),
    ({"RANK": "2", "WORLD_SIZE": "2", "MASTER_ADDR": "a", "MASTER_PORT": "1"}, "RANK < WORLD_SIZE"),
    ({"RANK": "x", "WORLD_SIZE": "2"}, "RANK='x'"),
])
def test_incomplete_environment_is_one_clear_error(env, needle):
    with pytest.raises(EnvironmentSetupError) as info:
        read_dist_env(env)
    assert needle in str(info.value)
    assert info.value.exit_code == 5


def test_schedule_warms_up_then_decays_to_the_last_step():
    s = WarmupDecay(1.0, 4, 10)
    lrs = [s.lr(i) for i in range(1, 11)]
    assert lrs[:4] == [0.25, 0.5, 0.75, 1.0]
    assert lrs[4] == 1.0 and all(a > b for a, b in zip(lrs[4:], lrs[5:])) and lrs[-1] > 0
    poly = WarmupDecay(1.0, 0, 10, power=0.5)
    assert poly.lr(6) == pytest.approx((1 - 5 / 10) ** 0.5)
    assert warmup_steps(0.1, 200) == 20 and warmup_steps(30, 200) == 30


def test_keep_last_n_and_stale_later_checkpoints_removed(tmp_path):
    def state(step):
        return {"step": step, "model": {}, "optimizer": {}, "consumed_samples": step,
                "model_config": {}, "optimizer_name": "adamw"}

    for step in (2, 4, 6, 8):
        checkpoint.save(str(tmp_path), step, state(step), keep=2)
    assert [s for s, _ in checkpoint.list_checkpoints(str(tmp_path))] == [8, 6]
    assert not [p for p in tmp_path.iterdir() if ".tmp" in p.name]
    checkpoint.save(str(tmp_path), 2, state(2), keep=2)  # a restart (--no-resume) reached step 2
    assert [s for s, _ in checkpoint.list_checkpoints(str(tmp_path))] == [2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt_2.json", "ckpt_2.pt"]
    # A save killed before its manifest was committed is no checkpoint at all.
    (tmp_path / "ckpt_9.pt").write_bytes(b"not a checkpoint")
    assert [s for s, _ in checkpoint.list_checkpoints(str(tmp_path))] == [2]
    # A manifest whose shard is missing, or whose shard does not match it, is skipped with a
    # warning naming it; the older checkpoint is used.
    checkpoint.save(str(tmp_path), 3, state(3), keep=0)
    checkpoint.save(str(tmp_path), 4, state(4), keep=0)
    (tmp_path / "ckpt_4.pt").unlink()
    data = (tmp_path / "ckpt_3.pt").read_bytes()
    (tmp_path / "ckpt_3.pt").write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # one bit flipped
    warnings = []
    loaded, path = checkpoint.load_newest(str(tmp_path), warnings.append)
    assert loaded["step"] == 2 and path.endswith("ckpt_2.pt")
    assert "ckpt_4.pt" in warnings[0] and "shard ckpt_4.pt is missing" in warnings[0]
    assert "ckpt_3.pt" in warnings[1] and "truncated or corrupt" in warnings[1]
    (tmp_path / "ckpt_2.pt").write_bytes(b"")
    with pytest.raises(CheckpointError, match="none of the 3 checkpoint"):
        checkpoint.load_newest(str(tmp_path), warnings.append)


def test_a_directory_of_an_earlier_trainer_without_manifests_still_resumes(tmp_path):
    state = {"step": 5, "model": {}, "optimizer": {}, "consumed_samples": 5, "model_config": {},
             "optimizer_name": "adamw"}
    torch.save(state, str(tmp_path / "ckpt_5.pt"))
    (tmp_path / "ckpt_7.pt").write_bytes(b"truncated")
    warnings = []
    loaded, path = checkpoint.load_newest(str(tmp_path), warnings.append)
    assert loaded["step"] == 5 and "ckpt_7.pt" in warnings[0]


def test_checkpoint_loads_take_turns_per_node(tmp_path):
    """8 local ranks, 2 load slots: never more than 2 loads at once, and every rank loads."""
    import threading
    import time

    from trn_trainer.load_slots import load_slot

    running, peak, done = [0], [0], []
    guard = threading.Lock()

    def load(local_rank):
        with load_slot(local_rank, slots=2, lock_dir=str(tmp_path)):
            with guard:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
            time.sleep(0.05)
            with guard:
                running[0] -= 1
                done.append(local_rank)

    threads = [threading.Thread(target=load, args=(rank,)) for rank in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(done) == list(range(8))
    assert peak[0] <= 2, peak[0]  # without the slots all 8 load at once
