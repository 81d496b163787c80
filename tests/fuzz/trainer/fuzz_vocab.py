"""Fuzzes the vocabulary reader (trn_trainer/data/wordpiece.py): load_vocab on a vocab.txt from
the fuzz bytes, then a tokenizer over it as prepare-data and finetune make one.

Contract: every problem is a DataError naming the file; a vocabulary read maps each token to the
line it first appears on.

Usage: PYTHONPATH=trainer python fuzz_vocab.py [libFuzzer flags] [corpus...]"""

import os
import sys

import atheris

import harness_common

with atheris.instrument_imports(include=["trn_trainer"]):
    from trn_trainer.data.wordpiece import WordPieceTokenizer, load_vocab
    from trn_trainer.errors import DataError

WORK = harness_common.scratch()
PATH = os.path.join(WORK, "vocab.txt")


def TestOneInput(data):
    harness_common.write(PATH, data)
    with harness_common.NoLeak():
        try:
            vocab = load_vocab(PATH)
            tokenizer = WordPieceTokenizer(vocab)
        except DataError:
            return
        assert sorted(vocab.values()) == list(vocab.values())
        tokenizer.ids(tokenizer.tokenize("The unaffable [MASK] café, naïve 東京!"))


def main():
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
