"""Runs `trn_trainer` and SIGKILLs the process in the middle of saving checkpoint
$TRN_DIE_DURING_SAVE, at $TRN_DIE_AT:
  shard     part of the shard written to the first tier (the node-local one when there is one)
  copy      part of the shard copied from the node-local tier to the run directory
  manifest  every shard in place, the run directory's manifest not yet committed
  upload    the shards uploaded to the object store, its manifest not yet"""

import os
import signal
import sys

from trn_trainer.checkpoint import files
from trn_trainer.checkpoint.s3 import S3Tier
from trn_trainer.cli import main
from trn_trainer.process_exit import exit_without_teardown

STEP = int(os.environ["TRN_DIE_DURING_SAVE"])
AT = os.environ["TRN_DIE_AT"]
saving = {"step": None, "what": None}
_write_shard, _copy_shard, _commit_manifest = files.write_shard, files.copy_shard, \
    files.commit_manifest
_write, _commit_store = files._HashingFile.write, S3Tier.commit


def die():
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


def write_shard(directory, step, rank, share):
    saving.update(step=step, what="shard")
    return _write_shard(directory, step, rank, share)


def copy_shard(source_dir, directory, entry):
    if AT == "copy" and saving["step"] == STEP:
        with open(os.path.join(directory, f".{entry['file']}.tmp-{os.getpid()}"), "wb") as f:
            with open(os.path.join(source_dir, entry["file"]), "rb") as src:
                f.write(src.read(entry["bytes"] // 2))
        die()
    return _copy_shard(source_dir, directory, entry)


def write(self, data):
    n = _write(self, data)
    if AT == "shard" and saving["step"] == STEP and saving["what"] == "shard" and self.bytes > 1000:
        die()
    return n


def commit_manifest(directory, manifest):
    if AT == "manifest" and manifest["step"] == STEP:
        die()
    return _commit_manifest(directory, manifest)


def commit_store(self, manifest, directory):
    if AT == "upload" and manifest["step"] == STEP:
        die()
    return _commit_store(self, manifest, directory)


files.write_shard, files.copy_shard = write_shard, copy_shard
files.commit_manifest, files._HashingFile.write = commit_manifest, write
S3Tier.commit = commit_store
exit_without_teardown(main(sys.argv[1:]))  # as python -m trn_trainer ends
