"""The tensors a Llama configuration has, by Hugging Face name and shape, whole or as one
tensor-parallel rank's slice (parallel/llama_shards.py), and the check that a state_dict read from a file
holds exactly those: a converted or loaded checkpoint fails here with its file named, not later
inside the model."""

from ..errors import CheckpointError
from ..parallel.llama_shards import split_dim


def parameter_shapes(config, tp_size=1):
    """{name: shape} of LlamaForCausalLM's state_dict, each split tensor's slice for `tp_size`."""
    c = config
    kv = c.num_key_value_heads * c.head_dim
    layer = {"self_attn.q_proj.weight": (c.hidden_size, c.hidden_size),
             "self_attn.k_proj.weight": (kv, c.hidden_size),
             "self_attn.v_proj.weight": (kv, c.hidden_size),
             "self_attn.o_proj.weight": (c.hidden_size, c.hidden_size),
             "mlp.gate_proj.weight": (c.intermediate_size, c.hidden_size),
             "mlp.up_proj.weight": (c.intermediate_size, c.hidden_size),
             "mlp.down_proj.weight": (c.hidden_size, c.intermediate_size),
             "input_layernorm.weight": (c.hidden_size,),
             "post_attention_layernorm.weight": (c.hidden_size,)}
    shapes = {"model.embed_tokens.weight": (c.vocab_size, c.hidden_size)}
    for i in range(c.num_hidden_layers):
        shapes.update({f"model.layers.{i}.{name}": shape for name, shape in layer.items()})
    shapes.update({"model.norm.weight": (c.hidden_size,), "lm_head.weight": (c.vocab_size, c.hidden_size)})
    for name, shape in shapes.items():
        dim = split_dim(name)
        if dim is not None:
            shapes[name] = tuple(n // tp_size if d == dim else n for d, n in enumerate(shape))
    return shapes


def check_state(state, config, where, fix, tp_size=1):
    """CheckpointError naming `where` and saying `fix` unless `state` has exactly the tensors
    (names and shapes) of `config` at `tp_size`, all floating point."""
    want = parameter_shapes(config, tp_size)
    problems = [f"missing {name}" for name in want if name not in state]
    problems += [f"unexpected {name}" for name in state if name not in want]
    problems += [f"{name} is {tuple(state[name].shape)}, not {shape}" for name, shape in want.items()
                 if name in state and tuple(state[name].shape) != shape]
    problems += [f"{name} is {t.dtype}" for name, t in state.items() if not t.is_floating_point()]
    if problems:
        more = f" and {len(problems) - 3} more" if len(problems) > 3 else ""
        raise CheckpointError(f"{where}: the tensors do not match the model (hidden_size "
                              f"{config.hidden_size}, {config.num_hidden_layers} layers, vocabulary "
                              f"{config.vocab_size}, tensor parallel {tp_size}): "
                              f"{'; '.join(problems[:3])}{more}; {fix}")
