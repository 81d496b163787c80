"""Runs `trn_trainer pretrain` with a resume held for $TRN_SLOW_RESTORE_S seconds once the
checkpoint is read and a file in $TRN_RESTORE_MARK_DIR says this rank is restoring: a moment a
test can lose a node in (tests/integration/launcher/lost_during_restore.sh). Only the first
resume of each rank: the next restart restores at once."""

import os
import sys
import time

from trn_trainer.cli import main
from trn_trainer.process_exit import exit_without_teardown
from trn_trainer.tasks import pretrain_inputs

DELAY_S = float(os.environ["TRN_SLOW_RESTORE_S"])
MARKS = os.environ["TRN_RESTORE_MARK_DIR"]
_load_newest = pretrain_inputs.load_newest


def load_newest(tiers, warn, *args, **kwargs):
    state, step, sources = _load_newest(tiers, warn, *args, **kwargs)
    mark = os.path.join(MARKS, f"rank-{os.environ.get('RANK', 'unknown')}")
    if state is not None and not os.path.exists(mark):
        with open(mark, "w") as f:
            f.write(str(step))
        time.sleep(DELAY_S)
    return state, step, sources


pretrain_inputs.load_newest = load_newest
exit_without_teardown(main(sys.argv[1:]))  # as python -m trn_trainer ends
