"""The object-store tier of checkpoints (docs/architecture.md#checkpoints): after a checkpoint
is committed in the run directory, every rank's writer thread uploads its shard, then rank 0
the manifest to --checkpoint-uri s3://bucket/prefix/ (the manifest last: an object-store
checkpoint counts only with it) and keeps the newest N there. On start, a run directory without a
checkpoint as new as the store's newest fetches it first, checksum verified, as SageMaker
restores /opt/ml/checkpoints: a requeued or brand-new job continues from S3.

boto3 (Debian's python3-boto3) talks to S3; the endpoint comes from AWS_ENDPOINT_URL_S3 or
AWS_ENDPOINT_URL (read here: Debian's boto3 1.26 predates them), credentials and region from
the standard AWS variables and files."""

import fcntl
import hashlib
import json
import os
from urllib.parse import urlparse

from ..errors import UsageError
from . import files


def parse_uri(uri):
    """(bucket, prefix ending in "/" or "") of s3://bucket[/prefix]; UsageError otherwise."""
    parsed = urlparse(uri)
    if parsed.scheme != "s3" or not parsed.netloc:
        raise UsageError(f"--checkpoint-uri {uri}: not an s3://bucket/prefix URI; give one, e.g. "
                         "s3://my-bucket/runs/bert")
    prefix = parsed.path.strip("/")
    return parsed.netloc, prefix + "/" if prefix else ""


class S3Tier:
    def __init__(self, uri, keep, say, client=None, timeout=60):
        self.uri, self.keep, self._say = uri, keep, say
        self.bucket, self.prefix = parse_uri(uri)
        self._client = client or _make_client(timeout)

    def _key(self, name):
        return self.prefix + name

    def _names(self):
        """The names (keys without the prefix) of every object under the prefix."""
        pages = self._client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket,
                                                                       Prefix=self.prefix)
        for page in pages:
            for item in page.get("Contents", []):
                yield item["Key"][len(self.prefix):]

    def committed_steps(self):
        """Steps with a manifest in the store, newest first."""
        return sorted((s for s in map(files.step_of_manifest, self._names()) if s is not None),
                      reverse=True)

    def upload_shard(self, directory, name):
        """One rank's shard, from `directory` (every rank uploads its own, in parallel)."""
        self._client.upload_file(os.path.join(directory, name), self.bucket, self._key(name))

    def commit(self, manifest, directory):
        """The manifest, once every shard is uploaded: from now on the store's checkpoint
        counts. Then the store keeps its newest `keep`. Returns the checkpoint's URI."""
        step = manifest["step"]
        name = files.manifest_name(step)
        self._client.upload_file(os.path.join(directory, name), self.bucket, self._key(name))
        if self.keep > 0:
            self._prune(self.committed_steps()[self.keep - 1:self.keep])
        return f"{self.uri.rstrip('/')}/{files.shard_name(step, 0)}"

    def _prune(self, oldest_kept):
        """Every object of the steps before `oldest_kept` ([step] or []): manifests first, so a
        checkpoint half removed is never taken for a whole one; shards whose upload never got a
        manifest go too."""
        if not oldest_kept:
            return
        steps = {name: files.step_of_file(name) for name in self._names()}
        doomed = [name for name, step in steps.items() if step is not None and step < oldest_kept[0]]
        for name in sorted(doomed, key=lambda n: not n.endswith(".json")):
            self._client.delete_object(Bucket=self.bucket, Key=self._key(name))

    def fetch(self, step, directory):
        """Checkpoint `step` into `directory`: every shard checked against the manifest, then
        the manifest, each written atomically. ValueError when they do not match."""
        manifest = json.loads(self._client.get_object(
            Bucket=self.bucket, Key=self._key(files.manifest_name(step)))["Body"].read())
        shards = manifest.get("shards") or []
        if not shards:
            raise ValueError(f"{self._key(files.manifest_name(step))} lists no shards")
        for shard in shards:
            self._download(shard, directory)
        files.commit_manifest(directory, manifest)
        return os.path.join(directory, files.shard_name(step, 0))

    def _download(self, shard, directory):
        def download(f):
            self._client.download_fileobj(self.bucket, self._key(shard["file"]), f)
            f.flush()
            f.seek(0)
            digest = hashlib.sha256()
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
            files.check_shard(shard, f.tell(), digest.hexdigest(),
                              f"{self._key(shard['file'])} (its manifest's shard)")

        files.write_atomically(os.path.join(directory, shard["file"]), download)

    def fetch_over_damaged(self, step, directory, say):
        """Checkpoint `step` fetched again into `directory`, whose copy cannot be read (a shard
        damaged or truncated), when the store has it committed; one process per run directory at
        a time, and none when another one just did. Whether `directory` now holds it whole."""
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, ".s3-fetch.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if _whole(directory, step):  # another rank fetched it while this one waited
                return True
            try:
                if step not in self.committed_steps():
                    return False
                self.fetch(step, directory)
            except Exception as e:  # noqa: BLE001 - unreachable store, a damaged copy there too
                say(f"warning: cannot fetch checkpoint of step {step} from {self.uri} over the damaged "
                    f"copy in {directory} ({type(e).__name__}: {e})")
                return False
        say(f"fetched checkpoint of step {step} from {self.uri} into {directory} over its damaged copy")
        return True

    def restore_newer(self, directory, say):
        """Fetch the store's newest checkpoint when it is newer than the run directory's, one
        process per run directory at a time (the others then find it there). Store errors are
        warnings: the run goes on from what the directory has."""
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, ".s3-fetch.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            local = files.list_checkpoints(directory)  # read under the lock
            newest_local = local[0][0] if local else -1
            try:
                steps = [s for s in self.committed_steps() if s > newest_local]
            except Exception as e:  # noqa: BLE001 - unreachable store, bad credentials, ...
                say(f"warning: cannot list {self.uri} ({type(e).__name__}: {e}); resuming from "
                    f"{directory} only")
                return None
            for step in steps:
                try:
                    path = self.fetch(step, directory)
                except Exception as e:  # noqa: BLE001 - skip it, try an older one
                    say(f"warning: skipping checkpoint {self._key(f'ckpt_{step}.pt')} in {self.uri}: "
                        f"{type(e).__name__}: {e}; trying an older one")
                    continue
                say(f"fetched checkpoint of step {step} from {self.uri} into {directory}")
                return path
        return None


def _whole(directory, step):
    """Whether checkpoint `step` in `directory` has its manifest and every shard it lists, of the
    listed size and checksum."""
    try:
        manifest = files.read_manifest(directory, step)
        if manifest is None:
            return False
        for entry in manifest["shards"]:
            files.read_shard_bytes(directory, entry)
        return True
    except (OSError, ValueError):
        return False


def _make_client(timeout):
    try:
        import boto3
        from botocore.config import Config
    except ImportError as e:
        raise UsageError("--checkpoint-uri needs boto3: install python3-boto3 (Debian) or boto3 "
                         "into the training environment") from e
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    # Short timeouts and few retries: a store that does not answer costs the background writer
    # seconds, never the training step, and is reported.
    config = Config(connect_timeout=min(5, timeout), read_timeout=timeout, retries={"max_attempts": 3})
    return boto3.client("s3", endpoint_url=endpoint or None, config=config)
