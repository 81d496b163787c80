"""The Llama model and its tensor parallelism (docs/llama.md): Hugging Face's parameter names,
rotary and grouped-query attention behaving as defined, sharding that round-trips, and tensor
parallel 2 and 4 computing the loss and gradients of tensor parallel 1 (real gloo processes)."""

import os

import pytest
import torch

from trainer_testlib import run_ranks
from trn_trainer.errors import UsageError
from trn_trainer.models.llama import LlamaForCausalLM, apply_rotary, rotary_tables
from trn_trainer.models.llama_config import LlamaConfig, llama_config
from trn_trainer.parallel.llama_shards import merge_states, shard_state


def hf_names(layers):
    """LlamaForCausalLM's state_dict keys in Hugging Face transformers (modeling_llama.py)."""
    names = ["model.embed_tokens.weight"]
    for i in range(layers):
        prefix = f"model.layers.{i}."
        names += [prefix + f"self_attn.{p}_proj.weight" for p in "qkvo"]
        names += [prefix + f"mlp.{p}_proj.weight" for p in ("gate", "up", "down")]
        names += [prefix + "input_layernorm.weight", prefix + "post_attention_layernorm.weight"]
    return names + ["model.norm.weight", "lm_head.weight"]


def test_parameter_names_and_shapes_are_hugging_faces():
    config = llama_config("tiny", vocab_size=96)
    state = LlamaForCausalLM(config).state_dict()
    assert sorted(state) == sorted(hf_names(config.num_hidden_layers))
    kv = config.num_key_value_heads * config.head_dim
    assert state["model.layers.0.self_attn.k_proj.weight"].shape == (kv, config.hidden_size)
    down = state["model.layers.0.mlp.down_proj.weight"]
    assert down.shape == (config.hidden_size, config.intermediate_size)
    assert state["lm_head.weight"].shape == (96, config.hidden_size)


def test_seven_b_has_llama_2_7b_parameter_count():
    config = llama_config("7b", vocab_size=32000)
    c = config
    per_layer = 4 * c.hidden_size ** 2 + 3 * c.hidden_size * c.intermediate_size + 2 * c.hidden_size
    total = c.num_hidden_layers * per_layer + 2 * c.vocab_size * c.hidden_size + c.hidden_size
    assert total == 6_738_415_616  # Llama-2-7b-hf's published parameter count


def test_rotary_scores_depend_on_relative_position_only():
    config = LlamaConfig(hidden_size=32, num_attention_heads=2, num_key_value_heads=2)
    cos, sin = rotary_tables(config, 40, "cpu")
    q, k = torch.randn(1, 1, 1, 16), torch.randn(1, 1, 1, 16)

    def score(m, n):
        qm = apply_rotary(q, cos[m:m + 1], sin[m:m + 1])
        kn = apply_rotary(k, cos[n:n + 1], sin[n:n + 1])
        return (qm * kn).sum().item()

    assert score(3, 1) == pytest.approx(score(30, 28), rel=1e-5)
    assert score(3, 1) != pytest.approx(score(3, 2), rel=1e-3)


def test_grouped_query_attention_is_attention_with_shared_key_value_heads():
    gqa = LlamaConfig(vocab_size=32, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=16)
    mha = LlamaConfig(**{**gqa.to_dict(), "num_key_value_heads": 4})
    torch.manual_seed(0)
    grouped = LlamaForCausalLM(gqa)
    state = grouped.state_dict()
    head = gqa.head_dim
    for proj in ("k_proj", "v_proj"):  # each key/value head serves two query heads in turn
        name = f"model.layers.0.self_attn.{proj}.weight"
        state[name] = state[name].view(2, head, -1).repeat_interleave(2, dim=0).reshape(4 * head, -1)
    full = LlamaForCausalLM(mha)
    full.load_state_dict(state)
    ids = torch.randint(0, 32, (2, 9))
    assert grouped(ids, ids).item() == pytest.approx(full(ids, ids).item(), rel=1e-6)


def test_selective_checkpointing_keeps_no_seq_squared_activation_and_the_same_gradients():
    """With the core attention checkpointed (Device.checkpoint), nothing [.., seq, seq] is kept
    for the backward, where attention computed as written (the math kernel, as on torch-xla)
    keeps its probabilities; the loss and every gradient are the same."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from trn_trainer.devices.base import Device
    from trn_trainer.environment import DistEnv

    config = llama_config("tiny", vocab_size=96)
    seq = 37  # a length no other dimension has
    ids = torch.randint(0, 96, (2, seq), generator=torch.Generator().manual_seed(3))
    device = Device(DistEnv(), "fp32")
    results = []
    for recompute in (None, device.checkpoint):
        model = LlamaForCausalLM(config, seed=5, recompute=recompute)
        kept = []

        def keep(t):
            kept.append(tuple(t.shape))
            return t

        with sdpa_kernel(SDPBackend.MATH):  # the recompute in the backward too
            with torch.autograd.graph.saved_tensors_hooks(keep, lambda t: t):
                loss = model(ids, ids)
            loss.backward()
        results.append((loss.item(), {n: p.grad for n, p in model.named_parameters()}, kept))
    (loss, grads, kept), (loss_ac, grads_ac, kept_ac) = results
    assert any(shape[-2:] == (seq, seq) for shape in kept), kept
    assert not any(shape[-2:] == (seq, seq) for shape in kept_ac), kept_ac
    assert loss_ac == pytest.approx(loss, abs=1e-6)
    for name, grad in grads.items():
        assert torch.allclose(grads_ac[name], grad, atol=1e-6, rtol=1e-5), name


def test_sharding_round_trips_and_refuses_an_uneven_split():
    config = llama_config("tiny", vocab_size=96)
    state = LlamaForCausalLM(config).state_dict()
    for tp in (2, 4):
        merged = merge_states([shard_state(state, tp, r) for r in range(tp)])
        assert all(torch.equal(merged[k], state[k]) for k in state)
    shard = shard_state(state, 4, 1)
    assert shard["model.layers.0.self_attn.o_proj.weight"].shape == (64, 16)  # input features / 4
    assert shard["model.norm.weight"].shape == (64,)
    with pytest.raises(ValueError, match="does not split over tensor parallel 3"):
        shard_state(state, 3, 0)
    with pytest.raises(UsageError, match="tensor parallel 3 does not divide num_key_value_heads 4"):
        LlamaForCausalLM(config, type("TP", (), {"size": 3, "rank": 0})())


def test_tensor_parallel_degrees_compute_the_same_loss_and_gradients(tmp_path):
    results = {}
    for tp in (1, 2, 4):
        out = str(tmp_path / f"tp{tp}.pt")
        done = run_ranks(tp, [out], module="llama_tp_step", timeout=180)
        assert done.returncode == 0, done.stderr[-3000:]
        results[tp] = torch.load(out)
    base = results[1]
    for tp in (2, 4):
        assert results[tp]["loss"] == pytest.approx(base["loss"], abs=1e-5)
        for name, grad in base["grads"].items():
            other = results[tp]["grads"][name]
            assert other.shape == grad.shape, name
            assert torch.allclose(other, grad, atol=1e-6, rtol=1e-4), (tp, name, (other - grad).abs().max())
    assert os.path.getsize(tmp_path / "tp4.pt") > 0


def test_a_layer_all_reduces_its_activations_four_times(monkeypatch):
    """Megatron's split of a layer at tensor parallel 2: forward, after the attention's output
    projection and after the MLP's down projection; backward, once for the input that q, k and v
    share and once for the one gate and up share (not once per projection: 7). Counted in torch's
    fake process group, as the difference between a 2-layer and a 1-layer model."""
    import torch.distributed as dist
    from torch.testing._internal.distributed.fake_pg import FakeStore

    from trn_trainer.parallel.tensor_parallel import TensorParallel

    calls = []
    real = dist.all_reduce
    monkeypatch.setattr(dist, "all_reduce", lambda *a, **k: (calls.append(1), real(*a, **k))[1])
    dist.init_process_group("fake", rank=0, world_size=2, store=FakeStore())
    try:
        tp = TensorParallel(2, 0, dist.group.WORLD)
        per_model = {}
        for layers in (1, 2):
            config = LlamaConfig(vocab_size=32, hidden_size=32, intermediate_size=64,
                                 num_hidden_layers=layers, num_attention_heads=4, num_key_value_heads=4,
                                 max_position_embeddings=16)
            model = LlamaForCausalLM(config, tp)
            ids = torch.randint(0, 32, (2, 9), generator=torch.Generator().manual_seed(1))
            calls.clear()
            model(ids, ids).backward()
            per_model[layers] = len(calls)
    finally:
        dist.destroy_process_group()
    assert per_model[2] - per_model[1] == 4, per_model
