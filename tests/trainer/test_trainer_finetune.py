"""finetune (docs/finetune.md): BERT for sequence classification on a generated labelled set
whose label is told by two cue words in each sentence. Accuracy per epoch in metrics.jsonl rises
well above chance; CSV and JSON lines (string or whole-number labels) give the same result; two
gloo processes give one process's result at the same global batch; --init-from loads a pretrain
run's checkpoint and Hugging Face BERT weights (a model folder, a bare BertModel's state dict,
a safetensors file); bad input is one clear error naming the file, the line and the fix."""

import json
import os
import re
import sys

import pytest
import torch

from trainer_testlib import HELPERS, read_metrics, run_ranks
from trn_trainer.weights import safetensors_file
from trn_trainer.models.bert_classifier import BertForSequenceClassification
from trn_trainer.cli import main
from trn_trainer.models.bert_config import BertConfig, model_config
from trn_trainer.data.finetune_examples import encode, read_examples
from trn_trainer.models.bert import BertForPreTraining
from trn_trainer.data.wordpiece import WordPieceTokenizer, load_vocab

if HELPERS not in sys.path:
    sys.path.insert(0, HELPERS)
from finetune_dataset import LABELS, examples, write_csv, write_dataset, write_jsonl  # noqa: E402

# 3 epochs of 12 steps, global batch 16: one process accumulates 4 micro-batches of 4.
TRAINING = ["--model", "tiny", "--seq-len", "16", "--micro-batch", "4", "--global-batch", "16",
            "--epochs", "3", "--lr", "2e-3", "--log-every", "100"]
COMPARED = ("epoch", "step", "train_loss", "eval_loss", "eval_accuracy", "lr")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return write_dataset(tmp_path_factory.mktemp("finetune_data"))


def finetune_args(data, output, *extra, train="train.csv", evaluation="eval.csv"):
    return ["finetune", "--train", data[train], "--eval", data[evaluation], "--vocab", data["vocab"],
            "--output", str(output), *extra]


def finetune(data, output, *extra, **files):
    assert main(finetune_args(data, output, *extra, **files)) == 0
    return read_metrics(output)


def compared(rows):
    return [{k: row[k] for k in COMPARED} for row in rows]


def saved(output):
    return torch.load(os.path.join(output, "model.pt"))


def metric(output, name):
    with open(os.path.join(output, "results.json")) as f:
        metrics = json.load(f)["results"]["metrics"]
    return next(m["MeasuredValue"] for m in metrics if m["MetricName"] == name)


@pytest.fixture(scope="module")
def baseline(data, tmp_path_factory):
    """One process, CSV files: the run the others are compared with."""
    out = tmp_path_factory.mktemp("baseline")
    return out, finetune(data, out, *TRAINING)


def accuracy_of_saved_model(output, data):
    """The eval accuracy of model.pt, computed here from the file alone."""
    state = saved(output)
    model = BertForSequenceClassification(BertConfig(**state["model_config"]), len(state["labels"]))
    model.load_state_dict(state["model"])
    model.eval()
    tokenizer = WordPieceTokenizer(load_vocab(data["vocab"]))
    tensors, _ = encode(read_examples(data["eval.csv"], "--eval"), state["labels"], tokenizer,
                        state["seq_len"], data["eval.csv"], "--eval", data["train.csv"])
    with torch.no_grad():
        logits = model(tensors["input_ids"], tensors["segment_ids"], tensors["input_mask"])
    return (logits.argmax(-1) == tensors["labels"]).double().mean().item()


def test_accuracy_per_epoch_rises_well_above_chance(data, baseline):
    out, rows = baseline
    assert [r["epoch"] for r in rows] == [1, 2, 3] and [r["step"] for r in rows] == [12, 24, 36]
    accuracy = [r["eval_accuracy"] for r in rows]
    assert accuracy[-1] >= 0.75 and accuracy[-1] > accuracy[0], accuracy  # chance: 1/3
    assert rows[-1]["eval_loss"] < rows[0]["eval_loss"] and rows[-1]["train_loss"] < rows[0]["train_loss"]
    assert metric(out, "Final accuracy") == accuracy[-1] and metric(out, "Epochs") == 3
    assert metric(out, "Average throughput") > 0
    model = saved(out)
    assert model["labels"] == list(LABELS) and model["model"]["classifier.weight"].shape == (3, 128)
    assert abs(accuracy_of_saved_model(out, data) - accuracy[-1]) < 1e-9


def test_csv_and_json_lines_give_the_same_result(data, baseline, tmp_path):
    out, rows = baseline
    jsonl = finetune(data, tmp_path / "jsonl", *TRAINING, train="train.jsonl", evaluation="eval.jsonl")
    assert compared(jsonl) == compared(rows)
    # Whole-number labels 0, 1, 2 sort as the strings did: the same ids, the same run.
    ints = finetune(data, tmp_path / "ints", *TRAINING, train="train_int.jsonl", evaluation="eval_int.jsonl")
    assert compared(ints) == compared(rows) and saved(tmp_path / "ints")["labels"] == [0, 1, 2]
    weights, reference = saved(tmp_path / "jsonl")["model"], saved(out)["model"]
    assert all(torch.equal(weights[k], reference[k]) for k in reference)


def test_two_processes_give_the_result_of_one_at_the_same_global_batch(data, baseline, tmp_path):
    _, rows = baseline
    out = tmp_path / "two"
    done = run_ranks(2, finetune_args(data, out, *TRAINING), timeout=240)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "world 2, micro-batch 4 x accumulation 2 = global batch 16" in done.stdout
    two = read_metrics(out)
    assert [r["step"] for r in two] == [r["step"] for r in rows]
    for key in ("train_loss", "eval_loss", "eval_accuracy"):
        worst = max(abs(a[key] - b[key]) for a, b in zip(rows, two))
        assert worst < 1e-4, (key, rows, two)


def test_init_from_a_pretrain_run_takes_its_encoder(data, tmp_path, capsys):
    shards, run = tmp_path / "shards", tmp_path / "pretrain"
    assert main(["prepare-data", "--input", data["corpus"], "--output", str(shards), "--vocab", data["vocab"],
                 "--seq-len", "32", "--max-pred", "5", "--dupe-factor", "1", "--num-shards", "1"]) == 0
    assert main(["pretrain", "--data", str(shards), "--output", str(run), "--model", "tiny", "--micro-batch",
                 "2", "--global-batch", "4", "--steps", "2", "--lr", "1e-2", "--checkpoint-mode", "sync",
                 "--no-plot", "--no-tensorboard"]) == 0
    checkpoint = torch.load(run / "ckpt_2.pt")
    pretrained = {k: v for k, v in checkpoint["model"].items() if k.startswith("bert.")}
    finetune(data, tmp_path / "random", "--model", "tiny", "--epochs", "0", "--seq-len", "16")
    random_init = saved(tmp_path / "random")["model"]  # what the encoder would be without --init-from
    assert any(not torch.equal(v, random_init[k]) for k, v in pretrained.items())
    for source in (run, run / "ckpt_2.pt"):  # the run's newest checkpoint, or the one named
        out = tmp_path / f"from_{os.path.basename(source)}"
        rows = finetune(data, out, "--init-from", str(source), "--epochs", "0", "--seq-len", "16")
        model = saved(out)
        assert model["model_config"]["num_hidden_layers"] == 2 and model["model_config"]["hidden_size"] == 128
        assert {k for k in model["model"] if k.startswith("bert.")} == set(pretrained)
        assert all(torch.equal(model["model"][k], v) for k, v in pretrained.items())
        assert [r["epoch"] for r in rows] == [0] and rows[0]["train_loss"] is None
    capsys.readouterr()
    assert main(finetune_args(data, tmp_path / "mini", "--init-from", str(run), "--model", "mini")) == 4
    assert (f"--init-from {run} holds another model than --model mini (hidden_size: checkpoint 128 vs "
            "--model 256") in capsys.readouterr().err
    trained = finetune(data, tmp_path / "trained", "--init-from", str(run), *TRAINING[2:])
    assert len(trained) == 3 and trained[-1]["eval_loss"] < trained[0]["eval_loss"]
    # Rank 0's share of a save cut off before its manifest is no whole state (issue 27.1).
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "ckpt_2.pt").write_bytes((run / "ckpt_2.pt").read_bytes())
    (cut / "ckpt_2.shard1.pt").write_bytes(b"rank 1's share")
    capsys.readouterr()
    assert main(finetune_args(data, tmp_path / "from_cut", "--init-from", str(cut / "ckpt_2.pt"))) == 4
    assert "cut off before its manifest" in capsys.readouterr().err


def hf_state_dict(data, seed):
    """What Hugging Face's BertForPreTraining.state_dict() holds for BERT-tiny: models/bert.py's names,
    plus the position_ids buffer."""
    torch.manual_seed(seed)
    state = BertForPreTraining(model_config("tiny", len(load_vocab(data["vocab"])), 0.1)).state_dict()
    state["bert.embeddings.position_ids"] = torch.arange(512).unsqueeze(0)
    return state


def tf_name(name):
    """LayerNorm weight and bias named gamma and beta, as TensorFlow's BERT names them."""
    name = re.sub(r"LayerNorm\.weight$", "LayerNorm.gamma", name)
    return re.sub(r"LayerNorm\.bias$", "LayerNorm.beta", name)


def test_init_from_hugging_face_state_dicts(data, tmp_path):
    state = hf_state_dict(data, 7)
    encoder = {k: v for k, v in state.items() if k.startswith("bert.") and "position_ids" not in k}
    folder = tmp_path / "hf"
    folder.mkdir()
    torch.save(state, folder / "pytorch_model.bin")
    # The heads come from config.json where there is one (4 here), else from the named size (2).
    (folder / "config.json").write_text(json.dumps({"num_attention_heads": 4, "hidden_size": 128}))
    # A bare BertModel's names, LayerNorm gamma/beta as in checkpoints converted from TensorFlow.
    bare = {tf_name(k[len("bert."):]): v for k, v in state.items() if k.startswith("bert.")}
    torch.save(bare, tmp_path / "bert_model.bin")
    safetensors_file.save({k: v for k, v in state.items() if k.startswith("bert.")},
                          str(tmp_path / "bert.safetensors"))
    for source, heads in ((folder, 4), (tmp_path / "bert_model.bin", 2), (tmp_path / "bert.safetensors", 2)):
        out = tmp_path / f"from_{os.path.basename(source)}"
        finetune(data, out, "--init-from", str(source), "--epochs", "0", "--seq-len", "16")
        model = saved(out)
        assert model["model_config"]["num_attention_heads"] == heads
        assert all(torch.equal(model["model"][k], v) for k, v in encoder.items())
        head = {k for k in model["model"] if not k.startswith("bert.")}
        assert head == {"classifier.weight", "classifier.bias"}


def _bad_csv(tmp, data):
    rows = [{"text": e["text"], "sentiment": e["label"]} for e in examples(6, 3)]
    return {"--train": write_csv(tmp / "t.csv", rows, header=("text", "sentiment"))}


def _unseen_label(tmp, data):
    rows = examples(6, 3)
    rows[1]["label"] = "angry"
    return {"--eval": write_csv(tmp / "e.csv", rows)}


def _bad_json(tmp, data):
    path = tmp / "t.jsonl"
    path.write_text('{"text": "good day", "label": "positive"}\n\n{"text": "bad day", "label": }\n')
    return {"--train": str(path)}


def _fields(tmp, data):
    path = tmp / "t.csv"
    path.write_text("text,label\na good day,positive,extra\n")
    return {"--train": str(path)}


def _empty(tmp, data):
    (tmp / "t.csv").write_text("")
    return {"--train": str(tmp / "t.csv")}


def _one_label(tmp, data):
    return {"--train": write_jsonl(tmp / "t.jsonl", [dict(e, label="neutral") for e in examples(6, 3)])}


def _not_weights(tmp, data):
    (tmp / "w.bin").write_bytes(b"not a state dict")
    return {"--init-from": str(tmp / "w.bin"), "--model": None}


# (case, exit status, what stderr says; {path} is the file the case wrote)
BAD_INPUT = [
    (_bad_csv, 3, "--train {path} line 1: the header names the columns text,sentiment, without text and "
     "label; the first line must name them: text,label"),
    (_unseen_label, 3, "--eval {path} line 3: the label 'angry' does not occur in --train"),
    (_bad_json, 3, "--train {path} line 3: not valid JSON"),
    (_fields, 3, "--train {path} line 2: 3 fields where the header has 2; put a text holding commas in"),
    (_empty, 3, "--train {path}: the file is empty"),
    (_one_label, 3, "--train {path}: every example has the label 'neutral'"),
    (lambda tmp, data: {"--seq-len": "4"}, 2, "--seq-len 4: too short; give at least 8"),
    (lambda tmp, data: {"--seq-len": "1024"}, 2, "--seq-len 1024: the model has 512 positions"),
    (lambda tmp, data: {"--micro-batch": "3"}, 2, "--global-batch 16 is not divisible by --micro-batch 3"),
    (lambda tmp, data: {"--init-from": str(tmp / "nowhere")}, 2,
     "--init-from {path}: no such file or folder"),
    (_not_weights, 4, "--init-from {path}: cannot be read"),
    (lambda tmp, data: {"--model": None}, 2, "give --init-from (a pretrain run"),
]


@pytest.mark.parametrize("case, status, message", BAD_INPUT, ids=[str(i) for i in range(len(BAD_INPUT))])
def test_bad_input_is_one_error_naming_it(data, tmp_path, capsys, case, status, message):
    options = {"--model": "tiny", "--seq-len": "16", "--micro-batch": "4", "--global-batch": "16",
               "--train": data["train.csv"], "--eval": data["eval.csv"], "--vocab": data["vocab"],
               "--output": str(tmp_path / "out")}
    changed = case(tmp_path, data)
    options.update(changed)
    argv = ["finetune"] + [w for k, v in options.items() if v is not None for w in (k, v)]
    assert main(argv) == status
    path = next((v for v in changed.values() if v and os.sep in v), "")
    assert message.format(path=path) in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "out")  # nothing written


def test_a_diverging_run_stops_with_its_own_status(data, tmp_path, capsys):
    argv = finetune_args(data, tmp_path / "out", *TRAINING, "--lr", "1e30", "--grad-clip", "0")
    assert main(argv) == 6
    err = capsys.readouterr().err
    assert "the loss is nan, not finite" in err and "training diverged; lower --lr" in err
    assert not os.path.exists(tmp_path / "out" / "model.pt")


def test_sentence_pairs_become_cls_a_sep_b_sep_cut_longest_first(data, tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text('label,text,text_b\n1,"good day, really",bad movie\n'
                    "0,the weather was quite very really good and kind,sad\n")
    pairs = read_examples(str(path), "--train")
    assert [(e.text_b, e.label, e.line) for e in pairs] == [("bad movie", 1, 2), ("sad", 0, 3)]
    tokenizer = WordPieceTokenizer(load_vocab(data["vocab"]))
    tensors, cut = encode(pairs, [0, 1], tokenizer, 10, str(path), "--train", str(path))
    ids = lambda words: tokenizer.ids(words.split())  # noqa: E731
    cls, sep, pad = ids("[CLS] [SEP] [PAD]")
    first = [cls] + ids("good day [UNK] really") + [sep] + ids("bad movie") + [sep, pad]  # no "," in vocab
    assert tensors["input_ids"][0].tolist() == first
    assert tensors["segment_ids"][0].tolist() == [0] * 6 + [1] * 3 + [0]
    assert tensors["input_mask"][0].tolist() == [1] * 9 + [0]
    # 9 + 1 tokens for 7 places: the longer text loses its last three.
    assert tensors["input_ids"][1].tolist() == [cls] + ids("the weather was quite very really") + [sep] + \
        ids("sad") + [sep]
    assert cut == 1 and tensors["labels"].tolist() == [1, 0]


def test_graph_extraction_runs_two_steps_and_an_evaluation_and_writes_nothing(
        data, tmp_path, monkeypatch, capsys):
    """Under trn-run's compile phase (NEURON_EXTRACT_GRAPHS_ONLY) the epochs are not trained:
    two steps and one evaluation give every graph, and the run directory stays untouched."""
    monkeypatch.setenv("NEURON_EXTRACT_GRAPHS_ONLY", "1")
    out = tmp_path / "compile"
    assert main(finetune_args(data, out, *TRAINING[:-2], "--log-every", "1")) == 0
    stdout = capsys.readouterr().out
    assert [line.split()[3] for line in stdout.splitlines() if line.startswith("epoch 1 step")] == \
        ["1/12", "2/12"], stdout
    assert "accuracy" in stdout and not out.exists()
