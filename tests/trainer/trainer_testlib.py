"""Helpers shared by the trainer tests (a uniquely named module: tests elsewhere have conftests)."""

import json
import os
import socket
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRAINER = os.path.join(ROOT, "trainer")
HELPERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "helpers")
FORTUNES = "/usr/share/games/fortunes"
PYTHON = "/usr/bin/python3"
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


def free_port():
    """A TCP port nothing listens on now (the kernel's pick)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun(nproc, module_args, timeout=300, module="trn_trainer", **env):
    # Debian's torch 1.13 on Python 3.11: torchrun's default "-r 0 -t 0" crashes in Std.from_str
    # (IntFlag iteration changed in 3.11), so redirect and tee stdout explicitly. A static
    # rendezvous on a free port: torch 1.13's --standalone always takes port 29400, so two
    # tests running at once (pytest -n) would share one store.
    cmd = [PYTHON, "-m", "torch.distributed.run", "--nnodes", "1", "--node_rank", "0",
           "--master_addr", "127.0.0.1", "--master_port", str(free_port()),
           "--nproc_per_node", str(nproc), "-r", "1", "-t", "1", "-m", module] + list(module_args)
    return subprocess.run(cmd, env=child_env(**env), capture_output=True, text=True, timeout=timeout)


def read_metrics(output_dir):
    with open(os.path.join(output_dir, "metrics.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def pretrain_args(data, output, *extra, steps=4, micro=2, global_batch=8):
    return ["pretrain", "--data", data, "--output", output, "--model", "tiny", "--micro-batch",
            str(micro), "--global-batch", str(global_batch), "--steps", str(steps), "--log-every", "1",
            "--no-plot"] + list(extra)
