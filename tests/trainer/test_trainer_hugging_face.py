"""The native models against Hugging Face transformers' own, from the same random weights made here
(no downloads), in fp32: BERT against BertForPreTraining, Llama against LlamaForCausalLM loaded by
from_pretrained from the folder `convert merge` writes."""

import torch
import torch.nn.functional as F
import transformers

from trainer_testlib import bert_inputs
from trn_trainer.cli import main
from trn_trainer.models.bert import BertForPreTraining
from trn_trainer.models.bert_config import model_config
from trn_trainer.models.hf_bert import HfBertForPreTraining
from trn_trainer.models.llama import LlamaForCausalLM
from trn_trainer.models.llama_config import llama_config
from trn_trainer.weights import hf_folder, tp_weights


def test_native_bert_and_hugging_face_bert_give_the_same_outputs():
    cfg = model_config("tiny", 300, 0.0)
    torch.manual_seed(0)
    native = BertForPreTraining(cfg).eval()
    wrapped = HfBertForPreTraining(cfg).eval()
    missing, unexpected = wrapped.load_state_dict(native.state_dict(), strict=False)
    # Buffers and tied aliases differ between transformers versions; parameters must all match.
    assert set(missing) <= {"bert.embeddings.position_ids", "bert.embeddings.token_type_ids"}
    assert set(unexpected) <= {"cls.predictions.decoder.bias"}
    assert set(dict(wrapped.named_parameters())) == set(dict(native.named_parameters()))
    ids, seg, mask, pos = bert_inputs(cfg)
    with torch.no_grad():
        mlm_n, nsp_n = native(ids, seg, mask, pos)
        mlm_h, nsp_h = wrapped(ids, seg, mask, pos)
        # and transformers' whole forward, read at the masked positions
        out = wrapped.hf(input_ids=ids, token_type_ids=seg, attention_mask=mask)
    assert isinstance(wrapped.hf, transformers.BertForPreTraining)
    assert torch.allclose(mlm_n, mlm_h, atol=1e-5) and torch.allclose(nsp_n, nsp_h, atol=1e-5)
    full = torch.gather(out.prediction_logits, 1, pos.unsqueeze(-1).expand(-1, -1, 300))
    assert torch.allclose(full, mlm_n, atol=1e-5)
    assert torch.allclose(out.seq_relationship_logits, nsp_n, atol=1e-5)
    assert F.softmax(nsp_h, -1).shape == (3, 2)


def test_native_llama_and_hugging_face_llama_give_the_same_logits(tmp_path):
    config = llama_config("tiny", 300)  # grouped-query attention: 8 heads, 4 key/value heads
    native = LlamaForCausalLM(config, seed=3).eval()
    # The weights as `convert split` leaves them (tensor parallel 2), merged by `convert merge`
    # into the folder transformers reads.
    split = tmp_path / "split"
    split.mkdir()
    tp_weights.write(split, native.state_dict(), config, hf_folder.hf_config(config, torch.float32), 2,
                     tmp_path)
    assert main(["convert", "merge", "--input", str(split), "--output", str(tmp_path / "hf"),
                 "--dtype", "fp32"]) == 0
    hf = transformers.LlamaForCausalLM.from_pretrained(tmp_path / "hf", dtype=torch.float32).eval()
    assert hf.config.num_key_value_heads == 4 and not hf.config.tie_word_embeddings
    ids = torch.randint(0, 300, (2, 24), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        ours, theirs = native.logits(ids), hf(input_ids=ids).logits
    assert ours.shape == theirs.shape == (2, 24, 300)
    assert torch.allclose(ours, theirs, atol=1e-5), (ours - theirs).abs().max()
