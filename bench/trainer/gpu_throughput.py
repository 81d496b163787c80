#!/usr/bin/env python3
"""The trainer on one GPU against plain PyTorch loops of the same models, side by side in one run
(bench/RESULTS.md).

- Llama 1B (llama_config "1b"), bf16 autocast, sequence 2048. Three ways, the same batches:
  `trn_trainer pretrain-lm`, a plain loop over the same model module, and a plain loop over
  Hugging Face's LlamaForCausalLM of the same configuration (attention "sdpa") where
  transformers is importable. Each plain loop does what a hand-written one does per step:
  micro-batches forward/backward under autocast, clip_grad_norm_, AdamW, zero_grad, and a
  read of the loss.
- BERT-Large, sequence 128: `trn_trainer pretrain` with its own model and with
  `--model-impl hf` (Hugging Face's BertForPreTraining behind the same loop).

Reported: the median tokens/s (sequences/s for BERT) of the steps after the first two, and
MFU: model FLOP/s (llama_flops_per_token, bert_config.flops_per_sequence) over the device's dense
bf16 peak (devices/peak_flops.py). Goals (issue 12): the trainer at least the plain loop's tokens/s,
MFU at least 40%.

`--device cpu --llama-model tiny --bert-model tiny --dtype fp32` checks the script on a machine
without a GPU.
Usage: gpu_throughput.py --lm-data DIR --bert-data DIR [--out DIR] [--steps N]
"""

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRAINER = os.path.join(ROOT, "trainer")
sys.path.insert(0, TRAINER)

import torch  # noqa: E402

from trn_trainer.models.bert_config import flops_per_sequence, model_config  # noqa: E402
from trn_trainer.models.llama import LlamaForCausalLM  # noqa: E402
from trn_trainer.models.llama_config import llama_config, llama_flops_per_token  # noqa: E402
from trn_trainer.data.lm_samples import LmData  # noqa: E402
from trn_trainer.devices.peak_flops import PEAK_BF16_FLOPS  # noqa: E402

SKIP = 2  # steps left out of the medians: allocation, autotuning, the first optimizer state


def trainer(args, *command):
    """metrics.jsonl's rows of a trainer run, or None (its output's end printed) when it fails."""
    env = dict(os.environ, PYTHONPATH=TRAINER, PYTHONUNBUFFERED="1")
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TRN_WATCH_DIR"):
        env.pop(name, None)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "trn_trainer", *command, "--device", args.device,
                           "--dtype", args.dtype], env=env, capture_output=True, text=True)
    print(f"  ({' '.join(command[:1])} took {time.perf_counter() - started:.0f} s)", flush=True)
    if done.returncode:
        print(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}", flush=True)
        return None
    output = command[list(command).index("--output") + 1]
    return [json.loads(line) for line in open(os.path.join(output, "metrics.jsonl"))]


class Rows:
    """The results so far, printed and written (--json) as each one comes: a part that fails or
    a run cut off by its time limit still leaves the others."""

    def __init__(self, path):
        self.path, self.rows = path, []

    def add(self, model, seq, how, rate, unit, flops, peak):
        row = {"model": model, "seq": seq, "how": how, "rate": rate, "unit": unit,
               "mfu": rate * flops / peak if peak and rate else None}
        self.rows.append(row)
        mfu = "n/a" if row["mfu"] is None else f"{row['mfu']:.1%}"
        print(f"| {model} | {seq} | {how} | {'failed' if rate is None else f'{rate:,.0f} {unit}'} | {mfu} |",
              flush=True)
        if self.path:
            with open(self.path, "w") as f:
                json.dump(self.rows, f, indent=2)


def plain_loop(model, data, args, steps, hf=False):
    """Seconds of each step of a hand-written loop over `model`, and the losses."""
    device = torch.device(args.device)
    model.to(device).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, betas=(0.9, 0.95), weight_decay=0.1)
    bf16 = args.dtype == "bf16"
    times, losses = [], []
    for step in range(steps):
        began = time.perf_counter()
        total = 0.0
        batches = data.micro_batches(step * args.global_batch, args.global_batch, args.micro_batch, 1, 0)
        for ids in batches:
            ids = ids.to(device, non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16) if bf16 else contextlib.nullcontext():
                loss = (model(input_ids=ids, labels=ids).loss if hf else model(ids, ids)) / len(batches)
            loss.backward()
            total += loss.detach()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(float(total))
        times.append(time.perf_counter() - began)
    model.to("cpu")
    del optimizer
    if args.device == "cuda":
        torch.cuda.empty_cache()
    return times, losses


def hf_llama(config):
    try:
        import transformers
    except ImportError:
        return None
    hf = transformers.LlamaConfig(**config.to_dict(), attn_implementation="sdpa")
    return transformers.LlamaForCausalLM(hf)


def llama_part(args, peak, rows):
    data = LmData(args.lm_data, 12345)
    config = llama_config(args.llama_model, data.vocab_size)
    flops = llama_flops_per_token(config, data.seq_len)
    tokens_per_step = args.global_batch * data.seq_len
    name = f"Llama {args.llama_model} (vocabulary {config.vocab_size}), micro-batch {args.micro_batch}"
    for variant in args.trainer_variants.split(","):
        metrics = trainer(args, "pretrain-lm", "--data", args.lm_data,
                          "--output", os.path.join(args.out, f"llama-{variant}"), "--model", args.llama_model,
                          "--micro-batch", str(args.micro_batch), "--global-batch", str(args.global_batch),
                          "--steps", str(args.steps), "--lr", "1e-4", "--log-every", "1", "--no-resume",
                          "--checkpoint-mode", "sync", *(["--compile"] if variant == "compile" else []))
        rate = statistics.median(m["tokens_per_s"] for m in metrics[SKIP:]) if metrics else None
        how = "trn_trainer pretrain-lm" + (" --compile" if variant == "compile" else "")
        rows.add(name, data.seq_len, how, rate, "tokens/s", flops, peak)
    ours = LlamaForCausalLM(config, seed=12345)
    print(f"  {sum(p.numel() for p in ours.parameters()):,} parameters", flush=True)
    times, _ = plain_loop(ours, data, args, args.steps)
    rows.add(name, data.seq_len, "plain loop, the same model",
             tokens_per_step / statistics.median(times[SKIP:]), "tokens/s", flops, peak)
    del ours
    hf = hf_llama(config) if args.hf_llama else None
    if hf is not None:
        times, _ = plain_loop(hf, data, args, args.steps, hf=True)
        rows.add(name, data.seq_len, "plain loop, transformers LlamaForCausalLM",
                 tokens_per_step / statistics.median(times[SKIP:]), "tokens/s", flops, peak)


def bert_part(args, peak, rows):
    import importlib.util

    from trn_trainer.data.wordpiece import vocab_size_of

    config = model_config(args.bert_model, vocab_size_of(os.path.join(args.bert_data, "vocab.txt")), 0.1)
    flops = flops_per_sequence(config, 128)
    have_hf = importlib.util.find_spec("transformers") is not None
    impls = [i for i in args.bert_impls.split(",") if i == "native" or have_hf]
    for impl in impls:
        metrics = trainer(args, "pretrain", "--data", args.bert_data, "--output",
                          os.path.join(args.out, f"bert-{impl}"), "--model", args.bert_model,
                          "--micro-batch", str(args.bert_micro_batch), "--global-batch",
                          str(args.bert_micro_batch * 2), "--steps", str(args.steps), "--log-every", "1",
                          "--no-resume", "--no-plot", "--no-tensorboard", "--model-impl", impl,
                          "--checkpoint-mode", "sync", "--dropout-rng", args.bert_dropout_rng)
        rate = statistics.median(m["seq_per_s"] for m in metrics[SKIP:]) if metrics else None
        rows.add(f"BERT {args.bert_model}", 128,
                 f"trn_trainer pretrain --model-impl {impl} --dropout-rng {args.bert_dropout_rng}", rate,
                 "sequences/s", flops, peak)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lm-data", required=True)
    p.add_argument("--bert-data", required=True)
    p.add_argument("--out", default="/dev/shm/trn-gpu-bench")
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--device", default="cuda")
    p.add_argument("--dtype", default="bf16")
    p.add_argument("--llama-model", default="1b")
    p.add_argument("--micro-batch", type=int, default=4)
    p.add_argument("--global-batch", type=int, default=16)
    p.add_argument("--bert-model", default="large")
    p.add_argument("--bert-micro-batch", type=int, default=64)
    p.add_argument("--trainer-variants", default="eager", help="eager and/or compile (pretrain-lm --compile)")
    p.add_argument("--no-hf-llama", dest="hf_llama", action="store_false",
                   help="leave out the plain loop over transformers' LlamaForCausalLM")
    p.add_argument("--bert-impls", default="native,hf")
    p.add_argument("--bert-dropout-rng", choices=("sample", "device"), default="sample",
                   help="sample: the trainer's per-sample masks; device: the framework's generator")
    p.add_argument("--parts", default="llama,bert")
    p.add_argument("--json", default=None, help="also write the rows here")
    args = p.parse_args()
    peak = None
    if args.device == "cuda":
        name = torch.cuda.get_device_name()
        peak = next((v for k, v in PEAK_BF16_FLOPS.items() if k in name), None)
        print(f"device: {name}, torch {torch.__version__}, peak {peak and peak / 1e12} TFLOP/s", flush=True)
    rows = Rows(args.json)
    print("| model | seq | how | throughput | MFU |\n|---|---|---|---|---|", flush=True)
    for part in (p for p in (llama_part, bert_part) if p.__name__.split("_")[0] in args.parts.split(",")):
        try:
            part(args, peak, rows)
        except Exception as e:  # noqa: BLE001 - one part failing leaves the other's rows
            import traceback

            traceback.print_exc()
            print(f"{part.__name__} failed: {type(e).__name__}: {e}", flush=True)


if __name__ == "__main__":
    main()
