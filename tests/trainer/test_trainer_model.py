import importlib.util

import pytest
import torch
import torch.nn.functional as F

from trn_trainer.models.bert_config import flops_per_sequence, model_config
from trn_trainer.models.dropout import DropoutContext, SampleDropout, sample_seeds
from trn_trainer.models.bert import BertForPreTraining

# Parameter names of Hugging Face's BertForPreTraining for one encoder layer and the heads.
HF_LAYER = [
    "attention.self.query.weight", "attention.self.query.bias", "attention.self.key.weight",
    "attention.self.key.bias", "attention.self.value.weight", "attention.self.value.bias",
    "attention.output.dense.weight", "attention.output.dense.bias", "attention.output.LayerNorm.weight",
    "attention.output.LayerNorm.bias", "intermediate.dense.weight", "intermediate.dense.bias",
    "output.dense.weight", "output.dense.bias", "output.LayerNorm.weight", "output.LayerNorm.bias",
]
HF_OTHER = [
    "bert.embeddings.word_embeddings.weight", "bert.embeddings.position_embeddings.weight",
    "bert.embeddings.token_type_embeddings.weight", "bert.embeddings.LayerNorm.weight",
    "bert.embeddings.LayerNorm.bias", "bert.pooler.dense.weight", "bert.pooler.dense.bias",
    "cls.predictions.bias", "cls.predictions.transform.dense.weight",
    "cls.predictions.transform.dense.bias", "cls.predictions.transform.LayerNorm.weight",
    "cls.predictions.transform.LayerNorm.bias", "cls.predictions.decoder.weight",
    "cls.predictions.decoder.bias", "cls.seq_relationship.weight", "cls.seq_relationship.bias",
]


def _inputs(cfg, batch=3, seq=16, preds=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, cfg.vocab_size, (batch, seq), generator=g)
    mask = torch.ones(batch, seq, dtype=torch.long)
    mask[0, 10:] = 0
    seg = torch.zeros(batch, seq, dtype=torch.long)
    seg[:, 8:] = 1
    pos = torch.stack([torch.randperm(seq - 1, generator=g)[:preds] + 1 for _ in range(batch)])
    return ids, seg, mask, pos


def test_state_dict_uses_hugging_face_names_and_tied_weights():
    cfg = model_config("tiny", 300, 0.1)
    model = BertForPreTraining(cfg)
    expected = set(HF_OTHER) | {f"bert.encoder.layer.{i}.{n}" for i in range(2) for n in HF_LAYER}
    assert set(model.state_dict()) == expected
    assert model.cls.predictions.decoder.weight is model.bert.embeddings.word_embeddings.weight
    assert model.cls.predictions.decoder.bias is model.cls.predictions.bias
    shapes = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    assert shapes["bert.encoder.layer.1.intermediate.dense.weight"] == (512, 128)
    assert shapes["cls.predictions.decoder.weight"] == (300, 128)


def test_masked_position_head_equals_full_sequence_head():
    cfg = model_config("tiny", 300, 0.0)
    torch.manual_seed(0)
    model = BertForPreTraining(cfg).eval()
    ids, seg, mask, pos = _inputs(cfg)
    mlm, nsp = model(ids, seg, mask, pos)
    hidden, _ = model.bert(ids, seg, mask)
    full = model.cls.predictions(hidden)  # every position, as Hugging Face computes it
    expected = torch.gather(full, 1, pos.unsqueeze(-1).expand(-1, -1, cfg.vocab_size))
    assert mlm.shape == (3, 4, 300) and nsp.shape == (3, 2)
    assert torch.allclose(mlm, expected, atol=1e-5)


def test_per_sample_dropout_ignores_batch_composition():
    ctx = DropoutContext("sample")
    drop = SampleDropout(0.25, ctx).train()
    seeds = sample_seeds(5, torch.arange(100, 108))
    x = torch.ones(8, 16, 32)
    ctx.seeds = seeds
    whole = drop(x)
    ctx.seeds = seeds[[6, 2]]
    part = drop(x[:2])
    assert torch.equal(part[0], whole[6]) and torch.equal(part[1], whole[2])
    kept = (whole != 0).float().mean().item()
    assert abs(kept - 0.75) < 0.03
    assert torch.allclose(whole[whole != 0], torch.full_like(whole[whole != 0], 1 / 0.75))
    assert not torch.equal(whole[0], whole[1]), "samples get different masks"
    other_site = SampleDropout(0.25, ctx).train()
    ctx.seeds = seeds
    assert not torch.equal(other_site(x), whole), "sites get different masks"


def test_mfu_flops_formula():
    cfg = model_config("large", 30522, 0.1)
    assert flops_per_sequence(cfg, 128) == 12 * 24 * 1024 * 128 * (6 * 1024 + 128)


@pytest.mark.skipif(importlib.util.find_spec("transformers") is None,
                    reason="transformers is not installed on this machine (Debian has no package); "
                           "runs where it is, e.g. the GPU machine")
def test_native_and_hugging_face_models_give_the_same_outputs():
    import transformers

    from trn_trainer.models.hf_bert import HfBertForPreTraining

    cfg = model_config("tiny", 300, 0.0)
    torch.manual_seed(0)
    native = BertForPreTraining(cfg).eval()
    wrapped = HfBertForPreTraining(cfg).eval()
    missing, unexpected = wrapped.load_state_dict(native.state_dict(), strict=False)
    # Buffers and tied aliases differ between transformers versions; parameters must all match.
    assert set(missing) <= {"bert.embeddings.position_ids", "bert.embeddings.token_type_ids"}
    assert set(unexpected) <= {"cls.predictions.decoder.bias"}
    hf_params = dict(wrapped.named_parameters())
    assert set(hf_params) == set(dict(native.named_parameters()))
    ids, seg, mask, pos = _inputs(cfg)
    mlm_n, nsp_n = native(ids, seg, mask, pos)
    mlm_h, nsp_h = wrapped(ids, seg, mask, pos)
    assert torch.allclose(mlm_n, mlm_h, atol=1e-5) and torch.allclose(nsp_n, nsp_h, atol=1e-5)
    # and the full Hugging Face forward agrees at the masked positions
    out = wrapped.hf(input_ids=ids, token_type_ids=seg, attention_mask=mask)
    full = torch.gather(out.prediction_logits, 1, pos.unsqueeze(-1).expand(-1, -1, 300))
    assert torch.allclose(full, mlm_n, atol=1e-5)
    assert isinstance(wrapped.hf, transformers.BertForPreTraining)
    assert F.softmax(nsp_h, -1).shape == (3, 2)
