"""A labelled set for `trn_trainer finetune` (tests/trainer/test_trainer_finetune.py and the
integration test launcher/bert_finetune.sh): each sentence is six filler words and two cue
words of its label (negative, neutral: two more fillers, positive), so BERT-tiny learns it from
random weights in a few epochs while chance is 1/3.

usage: finetune_dataset.py DIR  - writes train.csv, eval.csv (header text,label), the same as
train.jsonl, eval.jsonl, with whole-number labels 0-2 as train_int.jsonl, eval_int.jsonl, the
vocab.txt of their words and corpus.txt (the training sentences as documents of four, for
prepare-data)."""

import csv
import json
import os
import random
import sys

LABELS = ("negative", "neutral", "positive")
FILLER = ["the", "a", "day", "was", "movie", "food", "weather", "room", "really", "quite", "very", "and",
          "it", "felt", "seemed", "today", "our", "trip", "city", "show"]
CUES = {"negative": ["bad", "awful", "sad", "ugly", "poor", "dark"], "neutral": FILLER,
        "positive": ["good", "great", "happy", "lovely", "bright", "kind"]}
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
TRAIN_EXAMPLES, EVAL_EXAMPLES = 192, 60


def examples(count, seed):
    """`count` examples {text, label}, the labels in turn."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        label = LABELS[i % 3]
        words = [rng.choice(FILLER) for _ in range(6)]
        for _ in range(2):
            words.insert(rng.randrange(len(words) + 1), rng.choice(CUES[label]))
        out.append({"text": " ".join(words), "label": label})
    return out


def write_csv(path, rows, header=("text", "label")):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        for row in rows:
            writer.writerow([row[k] for k in header])
    return str(path)


def write_jsonl(path, rows):
    with open(path, "w") as f:
        f.writelines(json.dumps(row) + "\n" for row in rows)
    return str(path)


def write_dataset(folder):
    """The files named in the module's docstring, in `folder`; {name: path}."""
    folder = str(folder)
    path = lambda name: os.path.join(folder, name)  # noqa: E731
    train, evaluation = examples(TRAIN_EXAMPLES, 1), examples(EVAL_EXAMPLES, 2)
    as_ints = lambda rows: [dict(r, label=LABELS.index(r["label"])) for r in rows]  # noqa: E731
    files = {"train.csv": write_csv(path("train.csv"), train),
             "eval.csv": write_csv(path("eval.csv"), evaluation),
             "train.jsonl": write_jsonl(path("train.jsonl"), train),
             "eval.jsonl": write_jsonl(path("eval.jsonl"), evaluation),
             "train_int.jsonl": write_jsonl(path("train_int.jsonl"), as_ints(train)),
             "eval_int.jsonl": write_jsonl(path("eval_int.jsonl"), as_ints(evaluation))}
    words = sorted(set(FILLER) | set(CUES["negative"]) | set(CUES["positive"]) | {"."})
    with open(path("vocab.txt"), "w") as f:
        f.write("\n".join(SPECIAL + words) + "\n")
    documents = ["\n".join(e["text"] + "." for e in train[i:i + 4]) for i in range(0, len(train), 4)]
    with open(path("corpus.txt"), "w") as f:
        f.write("\n\n".join(documents) + "\n")
    files.update(vocab=path("vocab.txt"), corpus=path("corpus.txt"))
    return files


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    write_dataset(sys.argv[1])
