"""Checkpoints written as the trainer writes them, for tests: one process, or several ranks as
threads of this process (each with the coordination interface of checkpoint/group.py, its gathers
met at a barrier), so multi-rank saves and their faults run in milliseconds."""

import threading

from trn_trainer.checkpoint.group import SingleProcess
from trn_trainer.checkpoint.restore import load_step
from trn_trainer.checkpoint.shards import share_of
from trn_trainer.checkpoint.tiers import TierWriter, Tiers


def trainer_state(step, model=None, moments=None):
    """A state with the keys a trn_trainer checkpoint has."""
    return {"step": step, "consumed_samples": 8 * step, "model": model or {},
            "optimizer": {"state": moments or {}, "param_groups": [{"lr": 0.1, "params": [0]}]},
            "model_config": {}, "optimizer_name": "adamw", "scheduler": {"last": step}}


def save(directory, step, state, keep=0, local=None, keep_local=2, say=print):
    """One process's checkpoint `step` of `state` into `directory` (and `local`)."""
    tiers = Tiers(str(directory), keep, str(local) if local else None, keep_local)
    return TierWriter(tiers, SingleProcess(), 0, say).persist(step, state)


def load(directory, step):
    """The whole state of checkpoint `step` in `directory`, its shards put together."""
    return load_step(Tiers(str(directory), keep=0), step)[0]


class ThreadRanks:
    """`world` ranks as threads; rank r's gather returns every rank's record."""

    def __init__(self, world):
        self.world = world
        self._barrier = threading.Barrier(world)
        self._slots = [None] * world

    def group(self, rank):
        ranks = self

        class Group:
            world_size = ranks.world

            def __init__(self):
                self.rank = rank

            def gather(self, record):
                ranks._slots[rank] = record
                ranks._barrier.wait(timeout=30)
                records = list(ranks._slots)
                ranks._barrier.wait(timeout=30)  # everyone read them before the next round
                return records

            def any_rank(self, busy):
                return busy

        return Group()

    def persist(self, tiers_of_rank, step, state, local_ranks=None, say=None):
        """Every rank persists its share of `state`; {rank: path or the exception raised}."""
        results, said = {}, []

        def run(rank):
            local_rank = local_ranks[rank] if local_ranks else rank
            writer = TierWriter(tiers_of_rank(rank), self.group(rank), local_rank, say or said.append)
            try:
                results[rank] = writer.persist(step, share_of(state, rank, self.world))
            except Exception as e:  # noqa: BLE001 - the test looks at it
                results[rank] = e

        threads = [threading.Thread(target=run, args=(r,)) for r in range(self.world)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        return results, said
