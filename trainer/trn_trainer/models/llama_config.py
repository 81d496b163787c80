"""Llama model sizes. Field names follow Hugging Face's LlamaConfig, so a config.json moves
across both ways. The 7B, 13B and 70B rows are Llama 2's published configurations
(docs/llama.md#sizes); llama3-8b and llama3-70b are Meta Llama 3's, whose vocabulary and rotary
base are part of the size."""

import dataclasses

from ..errors import UsageError
from .hf_config import HfConfig, named_size


@dataclasses.dataclass(frozen=True)
class LlamaConfig(HfConfig):
    vocab_size: int = 32000
    hidden_size: int = 4096
    intermediate_size: int = 11008
    num_hidden_layers: int = 32
    num_attention_heads: int = 32
    num_key_value_heads: int = 32
    max_position_embeddings: int = 4096
    rms_norm_eps: float = 1e-5
    rope_theta: float = 10000.0
    initializer_range: float = 0.02
    tie_word_embeddings: bool = False

    @property
    def head_dim(self):
        return self.hidden_size // self.num_attention_heads

    def check(self, tensor_parallel=1):
        """A clear error for a shape the model or the tensor-parallel split cannot take."""
        for name, most in SIZE_LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
                raise UsageError(f"{name} {value} is not a Llama's: give a whole number from 1 to {most}")
        if self.hidden_size % self.num_attention_heads:
            raise UsageError(f"hidden_size {self.hidden_size} is not a multiple of "
                             f"num_attention_heads {self.num_attention_heads}")
        if self.num_attention_heads % self.num_key_value_heads:
            raise UsageError(f"num_attention_heads {self.num_attention_heads} is not a multiple of "
                             f"num_key_value_heads {self.num_key_value_heads}")
        for name in ("num_key_value_heads", "intermediate_size", "vocab_size"):
            value = getattr(self, name)
            if value % tensor_parallel:
                raise UsageError(f"tensor parallel {tensor_parallel} does not divide {name} {value}: "
                                 "choose a tensor-parallel degree that divides it")
        return self


# Far beyond every published Llama (70B: 80 layers, hidden 8192): a config past them is a mistake,
# refused before anything is allocated for it.
SIZE_LIMITS = {"num_hidden_layers": 1024, "hidden_size": 65536, "intermediate_size": 1 << 20,
               "num_attention_heads": 1024, "num_key_value_heads": 1024, "vocab_size": 10_000_000,
               "max_position_embeddings": 1 << 20}

# (layers, hidden, heads, kv heads, intermediate, max positions)
LLAMA_SIZES = {
    "tiny": (2, 64, 8, 4, 128, 512),
    "tiny-mha": (2, 64, 8, 8, 128, 512),  # a key-value head per query head: tp up to 8
    "100m": (12, 768, 12, 12, 2048, 2048),
    "1b": (16, 2048, 32, 8, 5632, 2048),
    "7b": (32, 4096, 32, 32, 11008, 4096),
    "13b": (40, 5120, 40, 40, 13824, 4096),
    "70b": (80, 8192, 64, 8, 28672, 4096),
    "llama3-8b": (32, 4096, 32, 8, 14336, 8192),
    "llama3-70b": (80, 8192, 64, 8, 28672, 8192),
}

# Settings a size fixes whatever the data's vocabulary: Meta's Llama 3 config.json values (its
# 128,256-token tokenizer, rope_theta 500,000).
_LLAMA3 = {"vocab_size": 128256, "rope_theta": 500000.0}
SIZE_SETTINGS = {"llama3-8b": _LLAMA3, "llama3-70b": _LLAMA3}


def llama_config(name, vocab_size):
    """Size `name`'s configuration; vocab_size: the data's, unless the size fixes its own."""
    layers, hidden, heads, kv_heads, inter, positions = named_size(LLAMA_SIZES, name, "Llama")
    settings = {"vocab_size": vocab_size, **SIZE_SETTINGS.get(name, {})}
    return LlamaConfig(hidden_size=hidden, intermediate_size=inter, num_hidden_layers=layers,
                       num_attention_heads=heads, num_key_value_heads=kv_heads,
                       max_position_embeddings=positions, **settings)


def _multiplied_weights(c):
    """The weights a token multiplies: every layer's projections and the output head."""
    kv = c.num_key_value_heads * c.head_dim
    per_layer = c.hidden_size * (2 * c.hidden_size + 2 * kv) + 3 * c.hidden_size * c.intermediate_size
    return c.num_hidden_layers * per_layer + c.vocab_size * c.hidden_size


def llama_parameter_count(config):
    """Every parameter: the multiplied weights, the embedding and the RMSNorm scales."""
    c = config
    return (_multiplied_weights(c) + c.vocab_size * c.hidden_size
            + (2 * c.num_hidden_layers + 1) * c.hidden_size)


def llama_flops_per_token(config, seq_len):
    """Training FLOPs (forward + backward) of one token: 6 x the weights it multiplies, plus
    attention's 12 x layers x hidden x sequence length (the PaLM appendix B count)."""
    c = config
    return 6 * _multiplied_weights(c) + 12 * c.num_hidden_layers * c.hidden_size * seq_len
