"""Writes the seed corpora tests/fuzz/corpus/<harness>/ from the trainer's own writers (the
HDF5 shards, checkpoint shards and manifests, configs), each with the leading bytes its harness
reads as the mode. Run it again after a format changes, and commit what it writes:

  PYTHONPATH=trainer scripts/python tests/fuzz/trainer/make_seeds.py"""

import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "trainer"))

from trn_trainer.checkpoint import files  # noqa: E402
from trn_trainer.data import prepare, prepare_lm  # noqa: E402
from trn_trainer.models.llama_config import llama_config  # noqa: E402
from trn_trainer.weights import hf_folder  # noqa: E402

CORPUS = os.path.join(HERE, "..", "corpus")


def seed(harness, name, data):
    folder = os.path.join(CORPUS, harness)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def read(path):
    with open(path, "rb") as f:
        return f.read()


def checkpoint_seeds(tmp):
    entry = files.write_shard(tmp, 7, 0, {"step": 7, "model": {"w": np.zeros(2, "f4").tolist()}})
    two = files.make_manifest(7, [entry, {**entry, "file": files.shard_name(7, 1), "rank": 1}])
    seed("fuzz_checkpoint_manifest", "manifest_v2", b"\0" + json.dumps(two, indent=1).encode())
    one = {"format": 1, "step": 7, "shards": [{k: entry[k] for k in ("file", "bytes", "sha256")}]}
    seed("fuzz_checkpoint_manifest", "manifest_v1", b"\0" + json.dumps(one).encode())
    seed("fuzz_checkpoint_manifest", "shard", b"\1" + read(os.path.join(tmp, entry["file"])))
    seed("fuzz_checkpoint_manifest", "shard_truncated", b"\3" + read(os.path.join(tmp, entry["file"])))
    seed("fuzz_checkpoint_manifest", "name", b"\2" + b"ckpt_7.shard3.pt" + bytes(range(40)))


def bert_seeds(tmp):
    rng = np.random.RandomState(0)
    n, s, p = 3, 8, 2
    arrays = {"input_ids": rng.randint(0, 30, (n, s)), "input_mask": np.ones((n, s)),
              "segment_ids": np.zeros((n, s)), "masked_lm_positions": rng.randint(1, s, (n, p)),
              "masked_lm_ids": rng.randint(0, 30, (n, p)), "next_sentence_labels": rng.randint(0, 2, n)}
    path = os.path.join(tmp, "bert.hdf5")
    prepare.write_shard(path, arrays, 0, n)
    seed("fuzz_bert_shards", "prepare_data_shard", b"\1" + read(path))
    seed("fuzz_bert_shards", "built", b"\0" + bytes(range(256)))


def lm_seeds(tmp):
    path = os.path.join(tmp, "lm.hdf5")
    prepare_lm._write_shard(path, np.arange(40, dtype="i4").reshape(5, 8))
    summary = json.dumps({"vocab_size": 64, "eos_id": 2, "seq_len": 8}).encode()
    seed("fuzz_lm_samples", "prepare_lm_shard", bytes([3, len(summary)]) + summary + read(path))
    seed("fuzz_lm_samples", "shard_no_summary", b"\2\0" + read(path))
    seed("fuzz_lm_samples", "two_shards", bytes([7, len(summary)]) + summary + read(path))
    seed("fuzz_lm_samples", "built", bytes([1, len(summary)]) + summary + bytes(range(128)))


def finetune_seeds():
    seed("fuzz_finetune_examples", "csv", '\0text,label\nthe a,1\n"b, the",0\n')
    seed("fuzz_finetune_examples", "csv_pairs", '\0text,text_b,label\na,b,pos\nthe,a,neg\n')
    seed("fuzz_finetune_examples", "jsonl",
         '\1{"text": "a b", "label": "x"}\n\n{"text": "the", "text_b": "b", "label": "y"}\n')
    seed("fuzz_finetune_examples", "jsonl_by_brace",
         '\2{"text": "a", "label": 3}\n{"text": "b", "label": -1}\n')


def metrics_seeds():
    rows = [{"step": i, "loss": 9.5 - i, "sequences": 8, "step_time_s": 0.5, "seq_per_s": 16.0,
             "first_of_run": i == 1} for i in (1, 2)]
    lines = "".join(json.dumps(r) + "\n" for r in rows)
    seed("fuzz_metrics", "metrics_jsonl", "\0" + lines + '{"step": 3, "lo')  # the last one cut short
    sweep = {"profile": "p", "steps": 10, "rows": [
        {"nodes": 1, "step": {}, "efficiency": 1.0, "cost_on_demand_usd": 5.0, "cost_reserved_usd": 3.0},
        {"nodes": 3, "infeasible": "no whole accumulation"}]}
    seed("fuzz_metrics", "sweep", "\1" + json.dumps(sweep))
    config = hf_folder.hf_config(llama_config("tiny", 64), None)
    seed("fuzz_metrics", "hf_config", "\2" + json.dumps(config))
    index = {"tensor_parallel": 2, "shards": ["model.tp0.safetensors", "model.tp1.safetensors"],
             "model": "tiny", "source": "/m", "config": config}
    seed("fuzz_metrics", "tp_index", "\3" + json.dumps(index))


def vocab_seeds():
    seed("fuzz_vocab", "vocab", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\n##s\nun\n##aff\n##able\ncafé\n")
    seed("fuzz_vocab", "repeated", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n[UNK]\n\n東\n")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        checkpoint_seeds(tmp)
        bert_seeds(tmp)
        lm_seeds(tmp)
    finetune_seeds()
    metrics_seeds()
    vocab_seeds()


if __name__ == "__main__":
    main()
