"""Runs `trn_trainer` on a file system that takes $TRN_SLOW_WRITE_S seconds to write each
checkpoint shard: storage slower than trn-run's hang deadline, with nothing hung.

With $TRN_SLOW_WRITE_STEP set, only that step's shard writes are slowed, once per rank (a restart
that saves the step again writes at once), and only the ranks listed in $TRN_SLOW_WRITE_RANKS
(comma-separated; default all). Each held rank first leaves a file step-S-rank-R in
$TRN_WRITE_MARK_DIR: a moment a test can lose a node in
(tests/integration/launcher/lost_during_checkpoint.sh)."""

import os
import sys
import time

from trn_trainer.checkpoint import files
from trn_trainer.cli import main
from trn_trainer.process_exit import exit_without_teardown

DELAY_S = float(os.environ["TRN_SLOW_WRITE_S"])
ONLY_STEP = os.environ.get("TRN_SLOW_WRITE_STEP")
RANKS = os.environ.get("TRN_SLOW_WRITE_RANKS")
MARKS = os.environ.get("TRN_WRITE_MARK_DIR", "")
_write_shard = files.write_shard


def held(step, rank):
    if ONLY_STEP is None:
        return True
    if step != int(ONLY_STEP) or (RANKS and str(rank) not in RANKS.split(",")):
        return False
    mark = os.path.join(MARKS, f"step-{step}-rank-{rank}")
    if os.path.exists(mark):
        return False
    open(mark, "w").close()
    return True


def write_shard(directory, step, rank, share):
    if held(step, rank):
        time.sleep(DELAY_S)
    return _write_shard(directory, step, rank, share)


files.write_shard = write_shard
exit_without_teardown(main(sys.argv[1:]))  # as python -m trn_trainer ends
