"""Text corpus -> packed causal-LM samples, as neuronx-distributed and NeMo prepare them
(docs/llama.md#data).

Each document is tokenized with a SentencePiece model (Llama's tokenizer format) and followed
by the end-of-sequence token. The documents are concatenated into one stream, which is cut into
samples of exactly --seq-len tokens; the tail that does not fill a sample is dropped.

The tokenizer is trained from the corpus (BPE, the algorithm of Llama's tokenizer), or it is
the user's own `tokenizer.model`. It is copied next to the shards. The shards are HDF5 files
holding `input_ids` [samples, seq_len] int32.
"""

import io
import os
import shutil

import h5py
import numpy as np

from ..errors import DataError, UsageError
from .prepare import check_shard_layout, read_documents, write_summary

TOKENIZER_FILE = "tokenizer.model"


def train_tokenizer(texts, vocab_size):
    """A SentencePiece BPE model trained on `texts` (serialized): Llama's special tokens
    (unk 0, bos 1, eos 2, no pad), one thread so that the same corpus gives the same model."""
    import sentencepiece as spm

    model = io.BytesIO()
    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(texts), model_writer=model, vocab_size=vocab_size,
            model_type="bpe", character_coverage=1.0, unk_id=0, bos_id=1, eos_id=2, pad_id=-1,
            num_threads=1, shuffle_input_sentence=False, hard_vocab_limit=False,
            minloglevel=2)
    except RuntimeError as e:
        raise DataError(f"training a {vocab_size}-token tokenizer on the corpus failed ({e}); "
                        "choose a smaller --vocab-size or a larger corpus") from None
    return model.getvalue()


def load_tokenizer(serialized):
    import sentencepiece as spm

    return spm.SentencePieceProcessor(model_proto=serialized)


def pack(token_lists, eos_id, seq_len):
    """The documents' tokens, each followed by EOS, concatenated and cut into [n, seq_len]."""
    stream = np.fromiter((t for tokens in token_lists for t in (*tokens, eos_id)), dtype=np.int32)
    samples = len(stream) // seq_len
    return stream[:samples * seq_len].reshape(samples, seq_len), len(stream)


def _check(args):
    check_shard_layout(args)
    if not 16 <= args.seq_len <= 32768:
        raise UsageError(f"--seq-len {args.seq_len}: must be between 16 and 32768 (Llama 2 uses 4096)")
    if args.tokenizer is None and not 64 <= args.vocab_size <= 256000:
        raise UsageError(f"--vocab-size {args.vocab_size}: must be between 64 and 256000")
    if args.tokenizer is not None and not os.path.isfile(args.tokenizer):
        raise UsageError(f"--tokenizer {args.tokenizer}: no such file; give a SentencePiece "
                         "tokenizer.model (Llama's) or leave it out to train one from the corpus")
    existing = []
    if os.path.isdir(args.output):
        existing = [n for n in os.listdir(args.output) if n.endswith(".hdf5")]
    if existing and not args.force:
        raise UsageError(f"--output {args.output} already holds {len(existing)} .hdf5 shard(s) "
                         f"(e.g. {existing[0]}); choose an empty folder or pass --force to replace them")
    return existing


def _tokenizer(args, texts):
    if args.tokenizer is None:
        return train_tokenizer(texts, args.vocab_size), "trained from the corpus"
    with open(args.tokenizer, "rb") as f:
        serialized = f.read()
    try:
        load_tokenizer(serialized)
    except RuntimeError:
        raise UsageError(f"--tokenizer {args.tokenizer}: not a SentencePiece model; give Llama's "
                         "tokenizer.model or leave it out to train one from the corpus") from None
    return serialized, os.path.abspath(args.tokenizer)


def _write_shard(path, samples):
    tmp = path + ".tmp"
    with h5py.File(tmp, "w") as f:
        f.create_dataset("input_ids", data=samples, dtype="i4", compression="gzip")
    os.replace(tmp, path)


def prepare_lm(args):
    existing = _check(args)
    texts = [" ".join(sentences) for sentences in read_documents(args.input)]
    serialized, source = _tokenizer(args, texts)
    tokenizer = load_tokenizer(serialized)
    if tokenizer.eos_id() < 0:
        raise UsageError(f"--tokenizer {args.tokenizer}: it has no end-of-sequence token to separate "
                         "documents")
    samples, tokens = pack(tokenizer.encode(texts), tokenizer.eos_id(), args.seq_len)
    n_test = int(round(len(samples) * args.test_fraction))
    n_train = len(samples) - n_test
    if n_train < args.num_shards:
        raise DataError(f"the corpus gives {tokens} tokens, {n_train} training samples of {args.seq_len}: "
                        f"fewer than --num-shards {args.num_shards}; use a shorter --seq-len, fewer shards "
                        "or a larger corpus")
    os.makedirs(args.output, exist_ok=True)
    for name in existing:
        os.remove(os.path.join(args.output, name))
    bounds = np.linspace(0, n_train, args.num_shards + 1).round().astype(int)
    written = []
    for i in range(args.num_shards):
        written.append(f"{args.name}_training_{i}.hdf5")
        _write_shard(os.path.join(args.output, written[-1]), samples[bounds[i]:bounds[i + 1]])
    if n_test:
        written.append(f"{args.name}_test_0.hdf5")
        _write_shard(os.path.join(args.output, written[-1]), samples[n_train:])
    with open(os.path.join(args.output, TOKENIZER_FILE + ".tmp"), "wb") as f:
        f.write(serialized)
    shutil.move(os.path.join(args.output, TOKENIZER_FILE + ".tmp"), os.path.join(args.output, TOKENIZER_FILE))
    summary = {"inputs": [os.path.abspath(p) for p in args.input], "documents": len(texts),
               "tokenizer": source, "vocab_size": tokenizer.vocab_size(), "bos_id": tokenizer.bos_id(),
               "eos_id": tokenizer.eos_id(), "seq_len": args.seq_len, "tokens": tokens,
               "training_samples": n_train, "test_samples": n_test, "shards": written}
    write_summary(os.path.join(args.output, "prepare_lm.json"), summary)
    print(f"prepare-lm: {len(texts)} documents -> {tokens} tokens -> {n_train} training and {n_test} test "
          f"samples of {args.seq_len} tokens in {len(written)} shard(s), vocabulary "
          f"{tokenizer.vocab_size()} ({source}) -> {args.output}", flush=True)
    return summary
