"""A training worker that trains nothing, for bench/cluster/control_plane.sh: it starts, writes
the heartbeats trn-run's watchdog reads (trn_trainer.heartbeat, no torch) for --steps steps of
--step-seconds each and exits. What the control plane costs is then all that is measured.

Each rank writes DIR/rank<R>.json (DIR: $TRN_BENCH_TIMES) with Unix times on its node's clock:
`started` (the interpreter running this file), `first_beat` (its first heartbeat written) and
`first_step` (its first step done).
"""

import time

STARTED = time.time()

import argparse  # noqa: E402 (the start time first)
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "trainer"))
from trn_trainer.heartbeat import Heartbeat  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--step-seconds", type=float, default=0.2)
    args = parser.parse_args()
    rank = int(os.environ["RANK"])
    times = {"rank": rank, "node": os.environ.get("SLURMD_NODENAME", ""), "started": STARTED}
    heartbeat = Heartbeat(rank)
    heartbeat.step_done(0)  # a fresh run: it starts from step 0
    times["first_beat"] = time.time()
    for step in range(1, args.steps + 1):
        heartbeat.step_started()
        time.sleep(args.step_seconds / 2)
        heartbeat.all_reduce_started()
        time.sleep(args.step_seconds / 2)
        heartbeat.step_done(step)
        if step == 1:
            times["first_step"] = time.time()
    heartbeat.stopped()
    directory = os.environ.get("TRN_BENCH_TIMES")
    if directory:
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, f"rank{rank}.json"), "w") as f:
            json.dump(times, f)


if __name__ == "__main__":
    main()
