"""Runs `trn_trainer` and SIGKILLs the process in the middle of writing checkpoint
$TRN_DIE_DURING_SAVE: at "shard" once part of the state file is written, at "manifest" after
the state file is renamed into place but before its manifest is committed ($TRN_DIE_AT)."""

import os
import signal
import sys

from trn_trainer import checkpoint
from trn_trainer.cli import main

STEP = int(os.environ["TRN_DIE_DURING_SAVE"])
AT = os.environ["TRN_DIE_AT"]
_save, _write_atomically = checkpoint.save, checkpoint.write_atomically
_write = checkpoint._HashingFile.write
saving = {"step": None}


def die():
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


def save(directory, step, state, keep):
    saving["step"] = step
    return _save(directory, step, state, keep)


def write(self, data):
    n = _write(self, data)
    if AT == "shard" and saving["step"] == STEP and self.bytes > 1000:
        die()
    return n


def write_atomically(final, write_file):
    if AT == "manifest" and saving["step"] == STEP and final.endswith(".json"):
        die()
    return _write_atomically(final, write_file)


checkpoint.save = save
checkpoint._HashingFile.write = write
checkpoint.write_atomically = write_atomically
sys.exit(main(sys.argv[1:]))
