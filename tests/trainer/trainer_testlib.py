"""Helpers shared by the trainer tests (a uniquely named module: tests elsewhere have conftests)."""

import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRAINER = os.path.join(ROOT, "trainer")
HELPERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "helpers")
FORTUNES = "/usr/share/games/fortunes"
PYTHON = sys.executable  # the project's environment (scripts/python), as pytest itself runs in it
DIST_VARS = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
             "NEURON_EXTRACT_GRAPHS_ONLY")

if TRAINER not in sys.path:
    sys.path.insert(0, TRAINER)


def child_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in DIST_VARS}
    env["PYTHONPATH"] = TRAINER + os.pathsep + HELPERS
    env.update(extra)
    return env


def run_cli(args, timeout=300, **env):
    """`python3 -m trn_trainer ARGS` in a child process; returns CompletedProcess."""
    return subprocess.run([PYTHON, "-m", "trn_trainer"] + list(args), env=child_env(**env),
                          capture_output=True, text=True, timeout=timeout)


# Ports the tests hand to a store (MASTER_PORT, torchrun's --master_port, a local S3): below
# trn-slurm's rendezvous block (11000 up, core's rendezvous_ports.hpp, used by the jobs that tests
# run on the local Slurm) and below the kernel's ephemeral range (net.ipv4.ip_local_port_range,
# 32768 up by default). A port the kernel picked for a socket bound to port 0 is free only until
# it hands the same number to the next such socket: gloo's listeners and every outgoing
# connection of a test running beside it. A store's port was taken that way during a CI run.
TEST_PORTS = range(3000, 11000)
_handed_out = set()


def ephemeral_ports():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = (int(v) for v in f.read().split())
        return range(low, high + 1)
    except (OSError, ValueError):
        return range(32768, 61000)


def free_port():
    """A TCP port nothing listens on now, from TEST_PORTS: each pytest-xdist worker draws from its
    own slice, and no port twice in one process, so two tests running at once never share a
    port; a random start keeps separate runs (integration scripts) apart."""
    ephemeral = ephemeral_ports()
    assert TEST_PORTS.stop <= ephemeral.start or TEST_PORTS.start >= ephemeral.stop, (
        f"the kernel's ephemeral ports {ephemeral.start}-{ephemeral.stop - 1} overlap TEST_PORTS")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    index = int(worker[2:]) if worker[2:].isdigit() else 0
    size = len(TEST_PORTS) // max(workers, 1)
    mine = range(TEST_PORTS.start + index * size, TEST_PORTS.start + (index + 1) * size)
    start = random.randrange(len(mine))
    for i in range(len(mine)):
        port = mine[(start + i) % len(mine)]
        if port in _handed_out:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _handed_out.add(port)
        return port
    raise RuntimeError(f"no free TCP port in {mine.start}-{mine.stop - 1}")


def rank_variables(rank, world, port):
    """What torchrun and spank_trn's per-core tasks both give a rank on one host."""
    return dict(RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank),
                LOCAL_WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1", MASTER_PORT=port)


def torchrun(nproc, module_args, timeout=300, module="trn_trainer", **env):
    """The ranks started by torch's own launcher (its agent process and rendezvous): for the
    tests that are about running under torchrun. Others use run_ranks()."""
    # A static rendezvous on a free port: two tests running at once (pytest -n) never share one
    # store, as a fixed port would make them. "-r 1 -t 1": each worker's stdout and stderr
    # come back through torchrun's.
    cmd = [PYTHON, "-m", "torch.distributed.run", "--nnodes", "1", "--node_rank", "0",
           "--master_addr", "127.0.0.1", "--master_port", str(free_port()),
           "--nproc_per_node", str(nproc), "-r", "1", "-t", "1", "-m", module] + list(module_args)
    return subprocess.run(cmd, env=child_env(**env), capture_output=True, text=True, timeout=timeout)


def run_ranks(nproc, module_args, timeout=300, module="trn_trainer", **env):
    """`nproc` ranks of `python -m MODULE ARGS` on this host with the variables torchrun gives its
    workers (RANK, WORLD_SIZE, LOCAL_*, MASTER_*, and OMP_NUM_THREADS=1 unless set), without its
    agent: a second process importing torch, about 3.5 s of CPU per launch. As under torchrun, a
    rank that fails stops the others. A CompletedProcess: returncode 0 when every rank exited 0,
    else the first failure's; stdout and stderr of the ranks in rank order."""
    port = str(free_port())
    procs, outputs = [], []
    try:
        for rank in range(nproc):
            rank_env = child_env(**env)
            rank_env.setdefault("OMP_NUM_THREADS", "1")
            rank_env.update(rank_variables(rank, nproc, port))
            out, err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
            outputs.append((out, err))
            procs.append(subprocess.Popen([PYTHON, "-m", module] + list(module_args), env=rank_env,
                                          stdout=out, stderr=err, text=True))
        deadline = time.monotonic() + timeout
        failed = None
        while failed is None and any(p.poll() is None for p in procs):
            failed = next((p.returncode for p in procs if p.poll() not in (None, 0)), None)
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"{nproc} ranks of {module}", timeout)
            time.sleep(0.05)
        if failed is None:
            failed = next((p.returncode for p in procs if p.returncode != 0), 0)
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    texts = []
    for out, err in outputs:
        out.seek(0)
        err.seek(0)
        texts.append((out.read(), err.read()))
        out.close()
        err.close()
    return subprocess.CompletedProcess(
        [PYTHON, "-m", module] + list(module_args), failed,
        "".join(t[0] for t in texts), "".join(t[1] for t in texts))


def xla_double_env(stats, **extra):
    """The environment of a process on the torch-xla double (tests/doubles/torch_xla), which
    writes what it saw (graphs, cuts, host reads) to STATS/<ordinal>.json."""
    env = child_env(**extra)
    env["PYTHONPATH"] = env["PYTHONPATH"] + os.pathsep + os.path.join(ROOT, "tests", "doubles")
    env["PJRT_DEVICE"] = "NEURON"
    env["TORCH_XLA_DOUBLE_STATS"] = str(stats)
    for name in ("NEURON_PJRT_PROCESS_INDEX", "NEURON_PJRT_WORLD_SIZE", "PJRT_LOCAL_PROCESS_RANK",
                 "NEURON_PJRT_PROCESSES_NUM_DEVICES", "PJRT_LOCAL_PROCESS_COUNT", "TORCHELASTIC_RUN_ID"):
        env.pop(name, None)
    return env


def train_on_xla_double(world, args, stats, launch):
    """`world` trn_trainer processes on the torch-xla double, writing what it saw to STATS,
    started as spank_trn's per-core tasks (launch "per-core") or as torchrun's workers
    ("torchrun"); fails unless every one exits 0."""
    if launch == "torchrun":
        done = torchrun(world, args, timeout=300, **xla_double_env(stats))
        assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
        return
    for proc, stdout, stderr in start_per_core(world, args, lambda rank, **v: xla_double_env(stats, **v)):
        assert proc.returncode == 0, stdout[-2000:] + stderr[-2000:]


def graphs_of_each_step(counts, steps, per_step):
    """The graphs each optimizer step ran on the torch-xla double (numbered in the order the
    compiler first saw them), checked to be the same from the second step on: after the first
    step, which makes the gradients and the optimizer's state, nothing new is compiled."""
    sequence = counts["graph_sequence"]
    runs = [sequence[i * per_step:(i + 1) * per_step] for i in range(steps)]
    assert len(sequence) >= steps * per_step and all(run == runs[1] for run in runs[1:]), runs
    return runs


def start_per_core(world, args, env_of):
    """`world` trn_trainer processes started as spank_trn's per-core tasks (RANK, WORLD_SIZE,
    LOCAL_*, no torchrun), env_of(rank, **dist_vars) making each one's environment; their
    (Popen, stdout, stderr) once all ended."""
    port = str(free_port())
    procs = []
    for rank in range(world):
        env = env_of(rank, **rank_variables(rank, world, port))
        procs.append(subprocess.Popen([PYTHON, "-m", "trn_trainer"] + list(args), env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    return [(p, *p.communicate(timeout=300)) for p in procs]


def read_metrics(output_dir):
    with open(os.path.join(output_dir, "metrics.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def pretrain_args(data, output, *extra, steps=4, micro=2, global_batch=8):
    return ["pretrain", "--data", data, "--output", output, "--model", "tiny", "--micro-batch",
            str(micro), "--global-batch", str(global_batch), "--steps", str(steps), "--log-every", "1",
            "--no-plot"] + list(extra)


def bert_inputs(cfg, batch=3, seq=16, preds=4, seed=0):
    """(ids, segments, attention mask, masked positions) of a small BERT batch: one padded sample."""
    import torch

    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, cfg.vocab_size, (batch, seq), generator=g)
    mask = torch.ones(batch, seq, dtype=torch.long)
    mask[0, 10:] = 0
    seg = torch.zeros(batch, seq, dtype=torch.long)
    seg[:, 8:] = 1
    pos = torch.stack([torch.randperm(seq - 1, generator=g)[:preds] + 1 for _ in range(batch)])
    return ids, seg, mask, pos
