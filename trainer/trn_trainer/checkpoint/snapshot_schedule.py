"""When the trainer takes a peer snapshot (docs/checkpoints.md#peers). `--snapshot-every N` fixes
the interval (0: none); the default takes one every step as long as that costs the step under 1%
of its time, and doubles the interval each time the measured cost goes over: a failure then
redoes at most one step where snapshots are cheap, and snapshots never slow training down much
where they are not."""

import statistics

BUDGET = 0.01  # of the step time a snapshot may cost
WINDOW = 5  # snapshots (and steps) the cost is judged over
MAX_INTERVAL = 1024


class SnapshotSchedule:
    def __init__(self, every, say):
        """every: steps between snapshots, 0 for none, None to adapt to the cost."""
        self.adaptive = every is None
        self.every = 1 if every is None else every
        self._say = say
        self._steps, self._count = [], 0

    def due(self, step):
        return self.every > 0 and step % self.every == 0

    def observe_step(self, seconds):
        self._steps = (self._steps + [seconds])[-WINDOW:]

    def after_snapshot(self, stalls, any_rank):
        """`stalls`: what the step paid for each snapshot so far (this rank's); any_rank(flag):
        whether the flag is set on any rank. Every WINDOW snapshots the ranks judge the cost
        together - each rank's clock differs, the interval must not."""
        if not self.adaptive or self.every >= MAX_INTERVAL:
            return
        self._count += 1
        if self._count % WINDOW or not self._steps:
            return
        cost, step = statistics.median(stalls[-WINDOW:]), statistics.median(self._steps)
        if any_rank(cost > BUDGET * step):
            self.every *= 2
            self._say(f"snapshots cost {cost * 1e3:.1f} ms of a {step * 1e3:.0f} ms step (over "
                      f"{BUDGET:.0%} on some rank): one every {self.every} steps from now on")
