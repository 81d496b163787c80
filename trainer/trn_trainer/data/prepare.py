"""Text corpus -> BERT pre-training shards in the NVIDIA/Neuron HDF5 format.

Follows Google's create_pretraining_data: documents -> sentence segments -> sentence pairs
(50% actual next, else a random other document; label 1 = random), 15% of the tokens masked
(80% [MASK], 10% random token, 10% unchanged), at most `max_pred` per sequence.
"""

import json
import os
import random
import re

import h5py
import numpy as np

from ..errors import DataError, UsageError
from ..outside_files import UnreadableFile, output_folder_problem, plain_name
from .wordpiece import WordPieceTokenizer, build_vocab, load_vocab, write_vocab

KEYS_AND_DTYPES = (  # exactly what NVIDIA's DeepLearningExamples writes
    ("input_ids", "i4"),
    ("input_mask", "i1"),
    ("segment_ids", "i1"),
    ("masked_lm_positions", "i4"),
    ("masked_lm_ids", "i4"),
    ("next_sentence_labels", "i1"),
)

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _input_files(paths):
    files = []
    for path in paths:
        if os.path.isdir(path):
            for name in sorted(os.listdir(path)):
                full = os.path.join(path, name)
                # fortune(6) keeps a binary index (*.dat) and *.u8 links next to each text file.
                if os.path.isfile(full) and not os.path.islink(full) and not name.endswith(".dat"):
                    files.append(full)
        elif os.path.isfile(path):
            files.append(path)
        else:
            raise DataError(f"--input {path}: no such file or directory; give text files or folders")
    if not files:
        raise DataError(f"--input {' '.join(paths)}: no text files found")
    return files


def read_documents(paths):
    """A document is a fortune (text between lines holding only '%') or a blank-line-separated
    paragraph; its sentences are split at . ! ? followed by white space."""
    documents = []
    for path in _input_files(paths):
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except UnicodeDecodeError:
            raise DataError(f"--input {path}: not UTF-8 text; convert it or leave it out") from None
        if "\x00" in text:
            raise DataError(f"--input {path}: binary file; give text files only")
        lines = text.splitlines()
        separator_is_percent = any(line.strip() == "%" for line in lines)
        block = []
        for line in lines + ["%" if separator_is_percent else ""]:
            ends_block = line.strip() == "%" if separator_is_percent else not line.strip()
            if ends_block:
                joined = " ".join(part.strip() for part in block if part.strip())
                sentences = [s for s in _SENTENCE_END.split(joined) if s.strip()]
                if sentences:
                    documents.append(sentences)
                block = []
            else:
                block.append(line)
    if not documents:
        raise DataError(f"--input {' '.join(paths)}: the corpus holds no text")
    return documents


def _truncate_pair(a, b, max_tokens, rng):
    while len(a) + len(b) > max_tokens:
        longer = a if len(a) > len(b) else b
        if rng.random() < 0.5:
            del longer[0]
        else:
            longer.pop()


def _instances_from_document(docs, index, seq_len, short_seq_prob, rng):
    doc = docs[index]
    max_tokens = seq_len - 3
    target = max_tokens if rng.random() >= short_seq_prob else rng.randint(2, max_tokens)
    pairs, chunk, length, i = [], [], 0, 0
    while i < len(doc):
        chunk.append(doc[i])
        length += len(doc[i])
        if i == len(doc) - 1 or length >= target:
            if chunk:
                a_end = 1 if len(chunk) < 2 else rng.randint(1, len(chunk) - 1)
                a = [t for seg in chunk[:a_end] for t in seg]
                if len(chunk) == 1 or rng.random() < 0.5:
                    is_random = 1
                    other = index
                    for _ in range(10):
                        other = rng.randrange(len(docs))
                        if other != index:
                            break
                    b = []
                    other_doc = docs[other]
                    for seg in other_doc[rng.randrange(len(other_doc)):]:
                        b.extend(seg)
                        if len(b) >= target - len(a):
                            break
                    i -= len(chunk) - a_end  # the unused segments start the next chunk
                else:
                    is_random = 0
                    b = [t for seg in chunk[a_end:] for t in seg]
                _truncate_pair(a, b, max_tokens, rng)
                if a and b:
                    pairs.append((a, b, is_random))
            chunk, length = [], 0
        i += 1
    return pairs


def _mask(tokens, tokenizer, masked_lm_prob, max_pred, rng, replacement_ids):
    ids = tokenizer.ids(tokens)
    candidates = [i for i, t in enumerate(tokens) if t not in ("[CLS]", "[SEP]")]
    rng.shuffle(candidates)
    count = min(max_pred, max(1, int(round(len(tokens) * masked_lm_prob))))
    chosen = sorted(candidates[:count])
    labels = [ids[i] for i in chosen]
    mask_id = tokenizer.vocab["[MASK]"]
    for pos in chosen:
        r = rng.random()
        if r < 0.8:
            ids[pos] = mask_id
        elif r >= 0.9:
            ids[pos] = replacement_ids[rng.randrange(len(replacement_ids))]
    return ids, chosen, labels


def create_instances(documents, tokenizer, seq_len, max_pred, masked_lm_prob, dupe_factor,
                     short_seq_prob, seed):
    rng = random.Random(seed)
    docs = [[tokenizer.tokenize(s) for s in d] for d in documents]
    docs = [[s for s in d if s] for d in docs]
    docs = [d for d in docs if d]
    if len(docs) < 2:
        raise DataError("the corpus has fewer than 2 non-empty documents; next-sentence pairs need more")
    replacement_ids = sorted(i for t, i in tokenizer.vocab.items() if i not in tokenizer.special_ids)
    features = {k: [] for k, _ in KEYS_AND_DTYPES}
    for _ in range(dupe_factor):
        for index in range(len(docs)):
            for a, b, is_random in _instances_from_document(docs, index, seq_len, short_seq_prob, rng):
                tokens = ["[CLS]"] + a + ["[SEP]"] + b + ["[SEP]"]
                segments = [0] * (len(a) + 2) + [1] * (len(b) + 1)
                ids, positions, labels = _mask(tokens, tokenizer, masked_lm_prob, max_pred, rng,
                                               replacement_ids)
                pad = seq_len - len(ids)
                features["input_ids"].append(ids + [0] * pad)
                features["input_mask"].append([1] * len(ids) + [0] * pad)
                features["segment_ids"].append(segments + [0] * pad)
                features["masked_lm_positions"].append(positions + [0] * (max_pred - len(positions)))
                features["masked_lm_ids"].append(labels + [0] * (max_pred - len(labels)))
                features["next_sentence_labels"].append(is_random)
    arrays = {k: np.asarray(features[k], dtype=dt) for k, dt in KEYS_AND_DTYPES}
    order = np.random.RandomState(seed % (2**32)).permutation(len(arrays["input_ids"]))
    return {k: v[order] for k, v in arrays.items()}


def write_shard(path, arrays, start, stop):
    tmp = path + ".tmp"
    with h5py.File(tmp, "w") as f:
        for key, dtype in KEYS_AND_DTYPES:
            f.create_dataset(key, data=arrays[key][start:stop], dtype=dtype, compression="gzip")
    os.replace(tmp, path)


def write_summary(path, summary):
    """What a data preparation made, beside its shards (JSON)."""
    with open(path, "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")


def check_shard_layout(args):
    """What prepare-data and prepare-lm both take: shards named --name inside --output, and how
    many."""
    try:
        plain_name(args.name, "--name")
    except UnreadableFile:
        raise UsageError(f"--name {args.name!r}: the shards' name prefix, written inside --output: give "
                         "a plain name (no '/', not . or ..)") from None
    if args.num_shards < 1:
        raise UsageError(f"--num-shards {args.num_shards}: must be at least 1")
    if not 0.0 <= args.test_fraction < 1.0:
        raise UsageError(f"--test-fraction {args.test_fraction}: must be in [0, 1)")
    what = output_folder_problem(args.output)
    if what:
        raise UsageError(f"--output {args.output}: {what}, not a folder; give a folder for the shards "
                         "(it is created when missing)")


def prepare_data(args):
    check_shard_layout(args)
    if not 0.0 < args.masked_lm_prob < 1.0:
        raise UsageError(f"--masked-lm-prob {args.masked_lm_prob}: must be above 0 and below 1 "
                         "(BERT masks 0.15 of the tokens)")
    if args.vocab is None and not 16 <= args.vocab_size <= 1_000_000:
        raise UsageError(f"--vocab-size {args.vocab_size}: must be from 16 to 1000000 (BERT's is 30522)")
    if args.seq_len < 16 or args.seq_len > 512:
        raise UsageError(f"--seq-len {args.seq_len}: must be between 16 and 512 (BERT uses 128 or 512)")
    if not 1 <= args.max_pred < args.seq_len:
        raise UsageError(f"--max-pred {args.max_pred}: must be at least 1 and below --seq-len")
    existing = []
    if os.path.isdir(args.output):
        existing = [n for n in os.listdir(args.output) if n.endswith(".hdf5")]
    if existing and not args.force:
        raise UsageError(
            f"--output {args.output} already holds {len(existing)} .hdf5 shard(s) (e.g. {existing[0]}); "
            "choose an empty folder or pass --force to replace them"
        )
    documents = read_documents(args.input)
    lower = not args.cased
    if args.vocab:
        vocab = load_vocab(args.vocab)
        vocab_tokens = list(vocab)
    else:
        vocab_tokens = build_vocab((" ".join(d) for d in documents), args.vocab_size, lower)
        vocab = {t: i for i, t in enumerate(vocab_tokens)}
    tokenizer = WordPieceTokenizer(vocab, lower_case=lower)
    arrays = create_instances(documents, tokenizer, args.seq_len, args.max_pred, args.masked_lm_prob,
                              args.dupe_factor, args.short_seq_prob, args.seed)
    total = len(arrays["input_ids"])
    n_test = int(round(total * args.test_fraction))
    n_train = total - n_test
    if n_train < args.num_shards:
        raise DataError(f"the corpus gives {n_train} training sequences, fewer than --num-shards "
                        f"{args.num_shards}; use fewer shards, a larger corpus or a larger --dupe-factor")
    os.makedirs(args.output, exist_ok=True)
    for name in existing:
        os.remove(os.path.join(args.output, name))
    written = []
    bounds = np.linspace(0, n_train, args.num_shards + 1).round().astype(int)
    for i in range(args.num_shards):
        path = os.path.join(args.output, f"{args.name}_training_{i}.hdf5")
        write_shard(path, arrays, bounds[i], bounds[i + 1])
        written.append(path)
    if n_test:
        path = os.path.join(args.output, f"{args.name}_test_0.hdf5")
        write_shard(path, arrays, n_train, total)
        written.append(path)
    if args.vocab:
        with open(args.vocab, encoding="utf-8") as src:
            text = src.read()
        with open(os.path.join(args.output, "vocab.txt"), "w", encoding="utf-8") as dst:
            dst.write(text)
    else:
        write_vocab(vocab_tokens, os.path.join(args.output, "vocab.txt"))
    summary = {
        "inputs": [os.path.abspath(p) for p in args.input],
        "documents": len(documents),
        "vocab": os.path.abspath(args.vocab) if args.vocab else "built from the corpus",
        "vocab_size": max(vocab.values()) + 1,
        "lower_case": lower,
        "seq_len": args.seq_len,
        "max_pred": args.max_pred,
        "masked_lm_prob": args.masked_lm_prob,
        "dupe_factor": args.dupe_factor,
        "short_seq_prob": args.short_seq_prob,
        "seed": args.seed,
        "training_sequences": n_train,
        "test_sequences": n_test,
        "shards": [os.path.basename(p) for p in written],
    }
    write_summary(os.path.join(args.output, "prepare_data.json"), summary)
    print(f"prepare-data: {len(documents)} documents -> {n_train} training and {n_test} test "
          f"sequences of {args.seq_len} tokens in {len(written)} shard(s), vocabulary "
          f"{len(vocab_tokens)} tokens -> {args.output}", flush=True)
    return summary
