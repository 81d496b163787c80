import torch

from trn_trainer.models.bert_config import flops_per_sequence, model_config
from trn_trainer.models.dropout import DropoutContext, SampleDropout, sample_seeds
from trn_trainer.models.bert import BertForPreTraining
from trainer_testlib import bert_inputs

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
    ids, seg, mask, pos = bert_inputs(cfg)
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
