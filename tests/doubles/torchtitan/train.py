"""`python3 -m torchtitan.train` - TEST DOUBLE of TorchTitan's entry point: the contract between
trn-run and TorchTitan (TorchTitan Neuron 0.2.2 on trn2/trn3), docs/launchers.md#torchtitan.

As the real one (pytorch/torchtitan 0.3.0: torchtitan/train.py, config/manager.py,
components/checkpoint.py):
- `--module M --config C` are required; every other argument is a `--section.field VALUE` of its
  configuration (tyro: an unknown flag or a value of the wrong type is an error, exit 2). Only the
  fields trn-slurm's profile passes are known here; a flag the real trainer lacks fails as there.
- The process world comes from torchrun: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE,
  MASTER_ADDR, MASTER_PORT and TORCHELASTIC_RUN_ID; init_process_group(env://) (gloo here).
- parallelism.data_parallel_shard_degree -1 takes the ranks the other degrees leave; the degrees'
  product must be the world; training.global_batch_size must be local_batch_size x dp x k.
- Checkpoints are folders `<dump_folder>/<checkpoint.folder>/step-<N>` whose `.metadata` (DCP's)
  is written last; at start the newest step folder that has `.metadata` is loaded (load_step -1)
  and training continues from it to training.steps; keep_latest_k purges older ones.
What it "trains" is a scalar all-reduced over the world each step, so every rank must be there.
Each rank records what it saw in `<dump_folder>/titan-double/rank<R>.json`.
"""

import json
import os
import re
import socket
import sys

import torch
import torch.distributed as dist

# --section.field: (type, default) of the fields the double knows (torchtitan 0.3.0's names).
FIELDS = {
    "dump_folder": (str, "./outputs"),
    "training.steps": (int, 10000),
    "training.local_batch_size": (int, 8),
    "training.global_batch_size": (int, -1),
    "training.seq_len": (int, 2048),
    "parallelism.tensor_parallel_degree": (int, 1),
    "parallelism.data_parallel_shard_degree": (int, -1),
    "parallelism.data_parallel_replicate_degree": (int, 1),
    "checkpoint.enable": (bool, False),
    "checkpoint.folder": (str, "checkpoint"),
    "checkpoint.interval": (int, 500),
    "checkpoint.keep_latest_k": (int, 10),
    "checkpoint.load_step": (int, -1),
    "debug.seed": (int, None),
    "compile.enable": (bool, False),
    "compile.backend": (str, "inductor"),
}
TORCHRUN = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
            "TORCHELASTIC_RUN_ID")


def usage_error(text):
    print(f"error: {text}", file=sys.stderr)
    sys.exit(2)


def parse(argv):
    config = {name: default for name, (kind, default) in FIELDS.items()}
    module = name = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        flag, eq, inline = arg.partition("=")
        if not flag.startswith("--"):
            usage_error(f"unrecognized argument {arg!r}")
        key = flag[2:].replace("-", "_")
        if key in ("module", "config"):
            if not eq and i + 1 >= len(argv):
                usage_error(f"{flag} needs a value")
            value = inline if eq else argv[i + 1]
            i += 1 if eq else 2
            module, name = (value, name) if key == "module" else (module, value)
            continue
        section, dot, field = key.rpartition(".")
        plain = section + dot + field[3:]  # tyro's --section.no-flag for a bool
        negated = field.startswith("no_") and FIELDS.get(plain, (None,))[0] is bool
        key = plain if negated else key
        if key not in FIELDS:
            usage_error(f"unrecognized option {flag} (not a field of TorchTitan's configuration)")
        kind = FIELDS[key][0]
        if kind is bool:
            config[key] = not negated
            i += 1
            continue
        if eq:
            text, i = inline, i + 1
        elif i + 1 < len(argv):
            text, i = argv[i + 1], i + 2
        else:
            usage_error(f"{flag} needs a value")
        try:
            config[key] = kind(text)
        except ValueError:
            usage_error(f"{flag} {text!r}: not a {kind.__name__}")
    if not module or not name:
        usage_error("--module and --config are both required")
    return module, name, config


def newest_loadable(folder):
    """The newest step folder with its .metadata (the real loader's _find_load_step)."""
    steps = []
    if os.path.isdir(folder):
        for entry in os.listdir(folder):
            match = re.fullmatch(r"step-(0|[1-9]\d*)", entry)
            if match and os.path.isfile(os.path.join(folder, entry, ".metadata")):
                steps.append(int(match.group(1)))
    return max(steps, default=0)


def write_atomically(path, text):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def main():
    module, name, config = parse(sys.argv[1:])
    missing = [v for v in TORCHRUN if not os.environ.get(v)]
    if missing:
        raise RuntimeError(f"not started by torchrun: {', '.join(missing)} unset")
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    tp = config["parallelism.tensor_parallel_degree"]
    replicate = config["parallelism.data_parallel_replicate_degree"]
    shard = config["parallelism.data_parallel_shard_degree"]
    if shard == -1:
        shard = world // (tp * replicate)
    if tp * replicate * shard != world:
        raise ValueError(f"Invalid parallel dims: dp_replicate({replicate}) * dp_shard({shard}) * tp({tp}) "
                         f"!= WORLD_SIZE({world})")
    dp = replicate * shard
    local, global_batch = config["training.local_batch_size"], config["training.global_batch_size"]
    if global_batch > 0 and global_batch % (local * dp):
        raise ValueError(f"global batch size {global_batch} must be a multiple of local batch size x dp "
                         f"({local} x {dp})")
    if config["checkpoint.enable"] and config["checkpoint.keep_latest_k"] == 1:
        raise ValueError("We need to maintain at least 2 checkpoint replicas, as the last one may be in "
                         "the process of being saved.")
    if config["checkpoint.enable"] and config["checkpoint.interval"] < 1:
        raise ValueError(f"checkpoint.interval {config['checkpoint.interval']}: must be at least 1")
    dist.init_process_group(backend="gloo", init_method="env://")
    folder = os.path.join(config["dump_folder"], config["checkpoint.folder"])
    start = newest_loadable(folder) if config["checkpoint.enable"] else 0
    value = torch.tensor([float(start)])
    for step in range(start + 1, config["training.steps"] + 1):
        total = torch.tensor([1.0])
        dist.all_reduce(total)  # every rank takes part in every step
        value += total / world
        if config["checkpoint.enable"] and (step % config["checkpoint.interval"] == 0
                                            or step == config["training.steps"]):
            save(folder, step, value, rank, world, config["checkpoint.keep_latest_k"])
    record = {"rank": rank, "world_size": world, "local_rank": int(os.environ["LOCAL_RANK"]),
              "local_world_size": int(os.environ["LOCAL_WORLD_SIZE"]), "node": socket.gethostname(),
              "master": f"{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}", "module": module,
              "config": name, "tp": tp, "dp": dp, "loaded_step": start, "last_step": config["training.steps"],
              "dump_folder": os.path.abspath(config["dump_folder"]), "steps_seen": float(value)}
    out = os.path.join(config["dump_folder"], "titan-double")
    os.makedirs(out, exist_ok=True)
    write_atomically(os.path.join(out, f"rank{rank}.json"), json.dumps(record))
    dist.destroy_process_group()


def save(folder, step, value, rank, world, keep):
    path = os.path.join(folder, f"step-{step}")
    os.makedirs(path, exist_ok=True)
    write_atomically(os.path.join(path, f"__{rank}_0.distcp"), str(float(value)))
    dist.barrier()  # DCP writes .metadata after every rank's data
    if rank == 0:
        write_atomically(os.path.join(path, ".metadata"), json.dumps({"world": world}))
        if keep > 0:
            steps = sorted(int(e[5:]) for e in os.listdir(folder) if re.fullmatch(r"step-\d+", e))
            for old in steps[:-keep]:
                for entry in os.listdir(os.path.join(folder, f"step-{old}")):
                    os.remove(os.path.join(folder, f"step-{old}", entry))
                os.rmdir(os.path.join(folder, f"step-{old}"))
    dist.barrier()


if __name__ == "__main__":
    main()
