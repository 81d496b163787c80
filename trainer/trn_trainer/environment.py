"""Rank, world and rendezvous as set by our SPANK plugin or by torchrun."""

import dataclasses
import os

from .env_names import (LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, RANK, TRN_COMPILE_WARMUP,
                        WORLD_SIZE)
from .errors import EnvironmentSetupError


def extracting_graphs_only(env=None):
    """Whether this run only compiles for trn-run's compile phase: it traces graphs for
    neuron_parallel_compile (NEURON_EXTRACT_GRAPHS_ONLY, the trn1 path) or warms TorchNeuron's
    compile cache (TRN_COMPILE_WARMUP, the native path). It runs its steps and writes nothing - no
    checkpoints, metrics or results, nothing resumed - so the training run that follows starts
    clean."""
    return compile_run_variable(env) is not None


def compile_run_variable(env=None):
    """The variable that makes this a compile run (extracting_graphs_only), else None."""
    env = os.environ if env is None else env
    return next((name for name in ("NEURON_EXTRACT_GRAPHS_ONLY", TRN_COMPILE_WARMUP) if env.get(name)), None)


@dataclasses.dataclass(frozen=True)
class DistEnv:
    rank: int = 0
    world_size: int = 1
    local_rank: int = 0
    local_world_size: int = 1
    master_addr: str = ""
    master_port: int = 0

    @property
    def distributed(self):
        return self.world_size > 1

    @property
    def is_main(self):
        return self.rank == 0


def _int(env, name):
    value = env[name]
    try:
        return int(value)
    except ValueError:
        raise EnvironmentSetupError(
            f"environment variable {name}={value!r} is not an integer; "
            "unset it or give a whole number"
        ) from None


def read_dist_env(env=None):
    """None of the variables set: a single process. Otherwise they must be complete."""
    env = os.environ if env is None else env
    names = (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT)
    present = [n for n in names if n in env]
    if not present or (RANK not in env and WORLD_SIZE not in env):
        return DistEnv()
    missing = [n for n in (RANK, WORLD_SIZE) if n not in env]
    if missing:
        raise EnvironmentSetupError(
            f"environment sets {', '.join(present)} but not {', '.join(missing)}; "
            "set all of RANK, WORLD_SIZE (and MASTER_ADDR, MASTER_PORT when WORLD_SIZE > 1) "
            "or none of them for a single process"
        )
    rank, world = _int(env, RANK), _int(env, WORLD_SIZE)
    if world < 1 or not 0 <= rank < world:
        raise EnvironmentSetupError(
            f"RANK={rank} WORLD_SIZE={world}: need WORLD_SIZE >= 1 and 0 <= RANK < WORLD_SIZE"
        )
    local_world = _int(env, LOCAL_WORLD_SIZE) if LOCAL_WORLD_SIZE in env else 1
    local_rank = _int(env, LOCAL_RANK) if LOCAL_RANK in env else rank % max(local_world, 1)
    if world > 1:
        missing = [n for n in (MASTER_ADDR, MASTER_PORT) if not env.get(n)]
        if missing:
            raise EnvironmentSetupError(
                f"WORLD_SIZE={world} but {', '.join(missing)} not set; set the address and port "
                "of rank 0 (torchrun and the trn SPANK plugin do this)"
            )
    return DistEnv(
        rank=rank,
        world_size=world,
        local_rank=local_rank,
        local_world_size=local_world,
        master_addr=env.get(MASTER_ADDR, ""),
        master_port=_int(env, MASTER_PORT) if env.get(MASTER_PORT) else 0,
    )
