"""The object-store tier against a real S3 API on localhost (s3rver from npm, installed by
scripts/bootstrap): checkpoints uploaded after the run directory's copy, a shard per rank,
retention, a brand-new job in an empty directory resuming from the store with the reference's
losses, a damaged run-directory checkpoint fetched again from the store, a corrupt object and
an upload killed before its manifest skipped for an older checkpoint, and a store that cannot be
reached, answers with an error or never answers costing warnings, not the run."""

import json
import os
import socket
import subprocess
import time

import pytest

from trainer_testlib import PYTHON, child_env, free_port, pretrain_args, read_metrics, run_cli, run_ranks
from trn_trainer.cli import main

S3RVER = os.environ.get("TRN_S3RVER", "/usr/local/lib/trn-s3rver/node_modules/.bin/s3rver")
BUCKET = "trn-test"


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """A running s3rver with one bucket; yields its endpoint URL."""
    if not os.access(S3RVER, os.X_OK):
        pytest.fail(f"{S3RVER} missing: run scripts/bootstrap (it installs s3rver from npm)")
    port = free_port()
    data = tmp_path_factory.mktemp("s3rver")
    server = subprocess.Popen([S3RVER, "-d", str(data), "-a", "127.0.0.1", "-p", str(port),
                               "--configure-bucket", BUCKET, "--silent"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if time.time() > deadline or server.poll() is not None:
                server.kill()
                pytest.fail("s3rver did not start")
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}"
    server.terminate()
    server.wait(10)


@pytest.fixture
def s3_env(s3, monkeypatch):
    for name, value in (("AWS_ENDPOINT_URL", s3), ("AWS_ACCESS_KEY_ID", "S3RVER"),
                        ("AWS_SECRET_ACCESS_KEY", "S3RVER"), ("AWS_DEFAULT_REGION", "us-east-1")):
        monkeypatch.setenv(name, value)
    return s3


def _objects(prefix):
    import boto3
    client = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"])
    listed = client.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", [])
    return client, sorted(o["Key"][len(prefix):] for o in listed)


def _losses_by_step(out):
    return {r["step"]: r["loss"] for r in read_metrics(out)}


def test_a_new_job_in_an_empty_directory_resumes_from_the_store(corpus_dir, reference_run, tmp_path,
                                                                s3_env, capsys):
    uri = f"s3://{BUCKET}/runs/a"
    first = str(tmp_path / "first")
    cmd = [PYTHON, "-m", "die_after_step"] + pretrain_args(
        corpus_dir, first, "--checkpoint-every", "2", "--checkpoint-uri", uri,
        "--keep-checkpoints-uri", "1", "--checkpoint-mode", "sync", steps=8)
    killed = subprocess.run(cmd, env=child_env(TRN_DIE_AFTER_STEP="5"), capture_output=True,
                            text=True, timeout=300)
    assert killed.returncode == -9, killed.stderr
    _, keys = _objects("runs/a/")
    assert keys == ["ckpt_4.json", "ckpt_4.pt"]  # keep 1 in the store

    second = str(tmp_path / "second")  # a brand-new job: empty run directory
    capsys.readouterr()
    assert main(pretrain_args(corpus_dir, second, "--checkpoint-every", "2", "--checkpoint-uri", uri,
                              steps=8)) == 0
    out = capsys.readouterr().out
    assert f"fetched checkpoint of step 4 from {uri}" in out
    assert "resumed from " + os.path.join(second, "ckpt_4.pt") in out
    got, want = _losses_by_step(second), _losses_by_step(reference_run)
    assert sorted(got) == [5, 6, 7, 8]
    assert max(abs(got[s] - want[s]) for s in got) < 1e-6
    _, keys = _objects("runs/a/")  # the store keeps --keep-checkpoints (3) by default
    assert keys == [f"ckpt_{s}.{x}" for s in (4, 6, 8) for x in ("json", "pt")]


def test_a_damaged_local_checkpoint_is_fetched_again_from_the_store(corpus_dir, reference_run, tmp_path,
                                                                    s3_env, capsys):
    """The run directory's newest checkpoint damaged (a bit flipped in its shard), the store holding
    it whole: the run resumes from the store's copy of that step, not from an older local one."""
    uri = f"s3://{BUCKET}/runs/damaged"
    out = str(tmp_path / "run")
    cmd = [PYTHON, "-m", "die_after_step"] + pretrain_args(
        corpus_dir, out, "--checkpoint-every", "2", "--checkpoint-uri", uri, "--checkpoint-mode", "sync",
        steps=8)
    killed = subprocess.run(cmd, env=child_env(TRN_DIE_AFTER_STEP="7"), capture_output=True,
                            text=True, timeout=300)
    assert killed.returncode == -9, killed.stderr
    _, keys = _objects("runs/damaged/")
    assert "ckpt_6.json" in keys and "ckpt_6.pt" in keys, keys
    shard = tmp_path / "run" / "ckpt_6.pt"
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size: only its checksum tells
    shard.write_bytes(bytes(data))

    capsys.readouterr()
    assert main(pretrain_args(corpus_dir, out, "--checkpoint-every", "2", "--checkpoint-uri", uri,
                              "--checkpoint-mode", "sync", steps=8)) == 0
    printed = capsys.readouterr().out
    assert f"fetched checkpoint of step 6 from {uri} into {out} over its damaged copy" in printed, printed
    assert "resumed from " + os.path.join(out, "ckpt_6.pt") in printed, printed
    got, want = _losses_by_step(out), _losses_by_step(reference_run)
    assert got[8] == pytest.approx(want[8], abs=1e-6) and got[7] == pytest.approx(want[7], abs=1e-6)


def test_corrupt_and_half_uploaded_objects_are_skipped(corpus_dir, tmp_path, s3_env, capsys):
    uri = f"s3://{BUCKET}/runs/b"
    first = str(tmp_path / "first")
    assert main(pretrain_args(corpus_dir, first, "--checkpoint-every", "2", "--checkpoint-uri", uri,
                              "--keep-checkpoints-uri", "0", steps=4)) == 0
    client, keys = _objects("runs/b/")
    assert keys == ["ckpt_2.json", "ckpt_2.pt", "ckpt_4.json", "ckpt_4.pt"]
    client.put_object(Bucket=BUCKET, Key="runs/b/ckpt_4.pt", Body=b"not the checkpoint")
    # An upload killed before its manifest: a state file alone is no checkpoint.
    client.put_object(Bucket=BUCKET, Key="runs/b/ckpt_6.pt", Body=b"half an upload")
    second = str(tmp_path / "second")
    capsys.readouterr()
    assert main(pretrain_args(corpus_dir, second, "--checkpoint-every", "2", "--checkpoint-uri", uri,
                              steps=4)) == 0
    out = capsys.readouterr().out
    assert "warning: skipping checkpoint runs/b/ckpt_4.pt" in out
    assert "runs/b/ckpt_4.pt (its manifest's shard) has 18 bytes" in out and "truncated or corrupt" in out
    assert "resumed from " + os.path.join(second, "ckpt_2.pt") in out


def test_an_unreachable_store_costs_warnings_not_the_run(corpus_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")  # nothing listens
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "x")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    out_dir = str(tmp_path / "run")
    assert main(pretrain_args(corpus_dir, out_dir, "--checkpoint-every", "2", "--checkpoint-uri",
                              f"s3://{BUCKET}/runs/c", steps=4)) == 0
    out = capsys.readouterr().out
    assert "warning: cannot list s3://trn-test/runs/c" in out
    assert "warning: checkpoint of step 4 not uploaded" in out
    assert os.path.exists(os.path.join(out_dir, "ckpt_4.json"))
    with open(os.path.join(out_dir, "results.json")) as f:
        assert json.load(f)["results"]["checkpoints"]["uploads_failed"] == 2


def test_a_bad_uri_is_a_usage_error(corpus_dir, tmp_path):
    result = run_cli(pretrain_args(corpus_dir, str(tmp_path / "x"), "--checkpoint-uri", "/not/s3"))
    assert result.returncode == 2
    assert "--checkpoint-uri /not/s3: not an s3://bucket/prefix URI" in result.stderr


def test_every_rank_uploads_its_shard_and_a_new_job_puts_them_together(
        corpus_dir, reference_run, tmp_path, s3_env):
    """2 processes upload a shard each, rank 0 the manifest after both; killed after step 5, the
    run continues in a 1-process job in an empty directory, which fetches every shard, with the
    reference's losses."""
    uri = f"s3://{BUCKET}/runs/shards"
    first = str(tmp_path / "first")
    args = pretrain_args(corpus_dir, first, "--checkpoint-every", "2", "--checkpoint-uri", uri,
                         "--checkpoint-mode", "sync", steps=8)
    assert run_ranks(2, args, module="die_after_step", TRN_DIE_AFTER_STEP="5").returncode != 0
    _, keys = _objects("runs/shards/")
    assert keys == [f"ckpt_{s}.{x}" for s in (2, 4) for x in ("json", "pt", "shard1.pt")]
    second = str(tmp_path / "second")
    resumed = run_cli(pretrain_args(corpus_dir, second, "--checkpoint-every", "2", "--checkpoint-uri",
                                    uri, steps=8))
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"fetched checkpoint of step 4 from {uri}" in resumed.stdout
    assert {"ckpt_4.pt", "ckpt_4.shard1.pt", "ckpt_4.json"} <= set(os.listdir(second))
    got, want = _losses_by_step(second), _losses_by_step(reference_run)
    assert sorted(got) == [5, 6, 7, 8] and max(abs(got[s] - want[s]) for s in got) < 1e-5


def test_killed_between_the_shards_and_the_manifest_upload(corpus_dir, tmp_path, s3_env):
    """SIGKILL after checkpoint 4's shard reached the store but before its manifest: the store's
    checkpoint 2 stays its newest, and a new job resumes from it."""
    uri = f"s3://{BUCKET}/runs/killed"
    first = str(tmp_path / "first")
    cmd = [PYTHON, "-m", "die_during_save"] + pretrain_args(
        corpus_dir, first, "--checkpoint-every", "2", "--checkpoint-uri", uri, "--checkpoint-mode", "sync",
        steps=8)
    killed = subprocess.run(cmd, env=child_env(TRN_DIE_DURING_SAVE="4", TRN_DIE_AT="upload"),
                            capture_output=True, text=True, timeout=300)
    assert killed.returncode == -9, killed.stderr
    _, keys = _objects("runs/killed/")
    assert keys == ["ckpt_2.json", "ckpt_2.pt", "ckpt_4.pt"]
    second = str(tmp_path / "second")
    resumed = run_cli(pretrain_args(corpus_dir, second, "--checkpoint-uri", uri, steps=3))
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"fetched checkpoint of step 2 from {uri}" in resumed.stdout
    assert "resumed from " + os.path.join(second, "ckpt_2.pt") in resumed.stdout


def test_a_store_error_costs_warnings_not_the_run(corpus_dir, tmp_path, s3_env, capsys):
    """The store answers with an error (no such bucket): every upload is a warning, counted."""
    out_dir = str(tmp_path / "run")
    assert main(pretrain_args(corpus_dir, out_dir, "--checkpoint-every", "2", "--checkpoint-uri",
                              "s3://no-such-bucket/runs", steps=4)) == 0
    out = capsys.readouterr().out
    assert "warning: cannot list s3://no-such-bucket/runs (NoSuchBucket" in out
    assert "warning: checkpoint of step 4 not uploaded to s3://no-such-bucket/runs (rank 0: " \
        "S3UploadFailedError: " in out and "(NoSuchBucket)" in out
    with open(os.path.join(out_dir, "results.json")) as f:
        assert json.load(f)["results"]["checkpoints"]["uploads_failed"] == 2
    assert os.path.exists(os.path.join(out_dir, "ckpt_4.json"))


def test_a_store_that_never_answers_times_out(corpus_dir, tmp_path, monkeypatch, capsys):
    """A store that accepts connections and never answers: each request gives up after
    --checkpoint-uri-timeout; the run goes on and the run directory's checkpoint stands."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{listener.getsockname()[1]}")
    for name, value in (("AWS_ACCESS_KEY_ID", "x"), ("AWS_SECRET_ACCESS_KEY", "x"),
                        ("AWS_DEFAULT_REGION", "us-east-1")):
        monkeypatch.setenv(name, value)
    out_dir = str(tmp_path / "run")
    started = time.monotonic()
    try:
        assert main(pretrain_args(corpus_dir, out_dir, "--checkpoint-uri", f"s3://{BUCKET}/runs/t",
                                  "--checkpoint-uri-timeout", "0.5", steps=2)) == 0
    finally:
        listener.close()
    out = capsys.readouterr().out
    assert "warning: cannot list" in out and "timeout" in out.lower()
    assert "warning: checkpoint of step 2 not uploaded" in out
    assert os.path.exists(os.path.join(out_dir, "ckpt_2.json"))
    assert time.monotonic() - started < 60
