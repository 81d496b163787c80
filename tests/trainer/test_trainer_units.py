import pytest

from trn_trainer.environment import DistEnv, read_dist_env
from trn_trainer.errors import EnvironmentSetupError
from trn_trainer.training.optim import WarmupDecay, warmup_steps


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


def test_checkpoint_loads_take_turns_per_node(tmp_path):
    """8 local ranks, 2 load slots: never more than 2 loads at once, and every rank loads."""
    import threading
    import time

    from trn_trainer.checkpoint.load_slots import load_slot

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
