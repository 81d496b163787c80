"""Fuzzes the fine-tuning input reader (trn_trainer/data/finetune_examples.py): read_examples on
a CSV or JSON-lines file from the fuzz bytes, then label_list and encode as finetune_setup.py
calls them.

Contract: every problem is a DataError naming the file (and line); what is read is a non-empty
list of examples with string texts and labels all strings or all whole numbers.

Usage: PYTHONPATH=trainer python fuzz_finetune_examples.py [libFuzzer flags] [corpus...]"""

import os
import sys

import atheris
import torch  # noqa: F401 - imported before the instrumented ones: only trn_trainer is instrumented

import harness_common

with atheris.instrument_imports(include=["trn_trainer"]):
    from trn_trainer.data.finetune_examples import encode, label_list, read_examples
    from trn_trainer.data.wordpiece import SPECIAL_TOKENS, WordPieceTokenizer
    from trn_trainer.errors import DataError

WORK = harness_common.scratch()
# By the suffix, or (any other) by a first "{".
NAMES = ("train.csv", "train.jsonl", "train.txt")
VOCAB = {token: i for i, token in enumerate(list(SPECIAL_TOKENS) + ["a", "b", "##s", "the", "é"])}
TOKENIZER = WordPieceTokenizer(VOCAB, lower_case=True)


def TestOneInput(data):
    if not data:
        return
    path = os.path.join(WORK, NAMES[data[0] % len(NAMES)])
    harness_common.write(path, data[1:])
    with harness_common.NoLeak():
        try:
            examples = read_examples(path, "--train")
        except DataError:
            return
        assert examples
        assert all(isinstance(e.text, str) and (e.text_b is None or isinstance(e.text_b, str))
                   for e in examples)
        kinds = {type(e.label) for e in examples}
        assert kinds in ({str}, {int}), kinds
        try:
            labels = label_list(examples, path)
        except DataError:
            return
        encode(examples, labels, TOKENIZER, 16, path, "--train", path)


def main():
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
