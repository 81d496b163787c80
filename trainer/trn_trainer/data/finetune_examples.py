"""Fine-tuning input (docs/finetune.md#input): labelled examples from a CSV file (a header naming
the columns text and label, text_b for sentence pairs) or a JSON-lines file (one object
{"text": ..., "label": ...} per line), tokenized with BERT's WordPiece into fixed-length tensors.

Labels are strings or whole numbers (a CSV column of whole numbers reads as numbers); the ids
are the training file's labels in sorted order. Every problem is a DataError naming the file,
the line and the fix.
"""

import csv
import io
import json
import os
import re
from dataclasses import dataclass
from typing import Optional

import torch

from ..errors import DataError
from ..outside_files import json_loads

JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson")
_WHOLE_NUMBER = re.compile(r"^-?\d+$")


@dataclass
class Example:
    text: str
    text_b: Optional[str]
    label: object
    line: int


def _read_text(path, flag):
    if not os.path.isfile(path):
        raise DataError(f"{flag} {path}: no such file; give a CSV (text,label) or JSON-lines file")
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:  # -sig: a BOM is no header
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(f"{flag} {path}: cannot be read ({e}); give a UTF-8 CSV or JSON-lines file") from None
    if not text.strip():
        raise DataError(f"{flag} {path}: the file is empty; it needs a header line text,label and one "
                        "example per line (or one JSON object per line)")
    return text


def _csv_examples(text, path, flag):
    reader = csv.reader(io.StringIO(text))
    try:
        header = [name.strip().lower() for name in next(reader)]
        if "text" not in header or "label" not in header:
            raise DataError(f"{flag} {path} line 1: the header names the columns {','.join(header)}, "
                            "without text and label; the first line must name them: text,label "
                            "(and text_b for sentence pairs)")
        col = {name: header.index(name) for name in ("text", "label", "text_b") if name in header}
        examples, line = [], reader.line_num + 1
        for row in reader:
            if row:
                if len(row) != len(header):
                    raise DataError(f"{flag} {path} line {line}: {len(row)} fields where the header has "
                                    f"{len(header)}; put a text holding commas in double quotes")
                label = row[col["label"]].strip()
                if not label:
                    raise DataError(f"{flag} {path} line {line}: the label is empty; give every example one")
                text_b = row[col["text_b"]] if "text_b" in col else None
                examples.append(Example(row[col["text"]], text_b, label, line))
            line = reader.line_num + 1
    except csv.Error as e:
        raise DataError(f"{flag} {path} line {reader.line_num}: not valid CSV ({e}); quote fields with "
                        "double quotes") from None
    # Whole-number labels sort as numbers; one past int64 (Python refuses to read 4,300 digits and
    # more) keeps them all names.
    if all(_WHOLE_NUMBER.match(e.label) and len(e.label) <= 18 for e in examples):
        for e in examples:
            e.label = int(e.label)
    return examples


def _jsonl_examples(text, path, flag):
    examples = []
    for line, raw in enumerate(text.split("\n"), 1):
        if not raw.strip():
            continue
        where = f"{flag} {path} line {line}"
        try:
            obj = json_loads(raw)
        except json.JSONDecodeError as e:
            raise DataError(f"{where}: not valid JSON ({e.msg} at column {e.colno}); each line must be one "
                            'object such as {"text": "...", "label": "..."}') from None
        except ValueError as e:  # nested too deeply, a number of more digits than Python reads
            raise DataError(f"{where}: not JSON this reader takes ({e}); each line must be one object "
                            'such as {"text": "...", "label": "..."}') from None
        if not isinstance(obj, dict) or "text" not in obj or "label" not in obj:
            raise DataError(f'{where}: not an object with "text" and "label"; each line must be one object '
                            'such as {"text": "...", "label": "..."}')
        text_b, label = obj.get("text_b"), obj["label"]
        if not isinstance(obj["text"], str) or not (text_b is None or isinstance(text_b, str)):
            raise DataError(f'{where}: "text" (and "text_b") must be strings')
        if isinstance(label, bool) or not isinstance(label, (str, int)):
            raise DataError(f"{where}: the label {label!r} is neither a string nor a whole number")
        examples.append(Example(obj["text"], text_b, label, line))
    first = examples[0] if examples else None
    odd = next((e for e in examples if isinstance(e.label, str) != isinstance(first.label, str)), None)
    if odd is not None:
        raise DataError(f"{flag} {path} line {odd.line}: the label {odd.label!r} is not of the kind of line "
                        f"{first.line}'s {first.label!r}; use strings or whole numbers throughout")
    return examples


def read_examples(path, flag):
    """The examples of `path` (CSV, or JSON lines: by the suffix, else by a first '{')."""
    text = _read_text(path, flag)
    jsonl = path.lower().endswith(JSONL_SUFFIXES) or text.lstrip().startswith("{")
    examples = (_jsonl_examples if jsonl else _csv_examples)(text, path, flag)
    if not examples:
        raise DataError(f"{flag} {path}: holds no examples, only a header; add one example per line")
    return examples


def label_list(examples, path):
    """The training file's labels in sorted order: label id i is the i-th."""
    labels = sorted({e.label for e in examples})
    if len(labels) < 2:
        raise DataError(f"--train {path}: every example has the label {labels[0]!r}; classification needs "
                        "examples of at least two labels")
    return labels


def _truncate_pair(a, b, budget):
    """BERT's rule: drop tokens from the end of the longer text until both fit."""
    while len(a) + len(b) > budget:
        (a if len(a) >= len(b) else b).pop()


def encode(examples, labels, tokenizer, seq_len, path, flag, train_path):
    """{input_ids, segment_ids, input_mask: [N, seq_len], labels: [N]} (int64) and how many
    examples were cut to seq_len: [CLS] text [SEP] (text_b [SEP]), padded with [PAD]."""
    ids = {label: i for i, label in enumerate(labels)}
    pad, cls, sep = (tokenizer.vocab[t] for t in ("[PAD]", "[CLS]", "[SEP]"))
    n = len(examples)
    out = {k: torch.full((n, seq_len), pad if k == "input_ids" else 0, dtype=torch.int64)
           for k in ("input_ids", "segment_ids", "input_mask")}
    targets = torch.empty(n, dtype=torch.int64)
    truncated = 0
    for i, e in enumerate(examples):
        if e.label not in ids:
            raise DataError(f"{flag} {path} line {e.line}: the label {e.label!r} does not occur in --train "
                            f"{train_path}, whose labels are {', '.join(map(repr, labels))}; correct it, or "
                            "add training examples of it")
        a = tokenizer.ids(tokenizer.tokenize(e.text))
        b = tokenizer.ids(tokenizer.tokenize(e.text_b)) if e.text_b is not None else []
        budget = seq_len - (3 if e.text_b is not None else 2)
        truncated += len(a) + len(b) > budget
        _truncate_pair(a, b, budget)
        tokens = [cls] + a + [sep] + (b + [sep] if e.text_b is not None else [])
        out["input_ids"][i, :len(tokens)] = torch.tensor(tokens)
        out["segment_ids"][i, len(a) + 2:len(tokens)] = 1
        out["input_mask"][i, :len(tokens)] = 1
        targets[i] = ids[e.label]
    out["labels"] = targets
    return out, truncated
