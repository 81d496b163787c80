"""Runs `trn_trainer` and SIGKILLs the process right after optimizer step $TRN_DIE_AFTER_STEP
has been recorded: a crash at a known point (no clean-up, no final checkpoint)."""

import os
import signal
import sys

from trn_trainer.tasks import pretrain_log
from trn_trainer.cli import main
from trn_trainer.process_exit import exit_without_teardown

DIE_AFTER = int(os.environ["TRN_DIE_AFTER_STEP"])
_record = pretrain_log.StepLog._record  # every step's row goes through it


def record(self, step, *args):
    read = _record(self, step, *args)
    if step == DIE_AFTER:
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGKILL)
    return read


pretrain_log.StepLog._record = record
exit_without_teardown(main(sys.argv[1:]))  # as python -m trn_trainer ends
