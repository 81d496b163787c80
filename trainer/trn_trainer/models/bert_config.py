"""Named BERT model sizes; field names follow Hugging Face's BertConfig so configs move across."""

import dataclasses

from .hf_config import HfConfig, named_size


@dataclasses.dataclass(frozen=True)
class BertConfig(HfConfig):
    vocab_size: int = 30522
    hidden_size: int = 768
    num_hidden_layers: int = 12
    num_attention_heads: int = 12
    intermediate_size: int = 3072
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12
    initializer_range: float = 0.02
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.1

    def architecture(self):
        """The fields that decide the parameter shapes (dropout may change between runs)."""
        skip = {"hidden_dropout_prob", "attention_probs_dropout_prob", "initializer_range"}
        return {k: v for k, v in self.to_dict().items() if k not in skip}


# (layers, hidden, heads, intermediate): tiny and mini are Google's small BERTs, base and large
# the published ones.
MODEL_SIZES = {
    "tiny": (2, 128, 2, 512),
    "mini": (4, 256, 4, 1024),
    "base": (12, 768, 12, 3072),
    "large": (24, 1024, 16, 4096),
}


def model_config(name, vocab_size, dropout):
    layers, hidden, heads, inter = named_size(MODEL_SIZES, name, "model")
    return BertConfig(
        vocab_size=vocab_size,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=inter,
        hidden_dropout_prob=dropout,
        attention_probs_dropout_prob=dropout,
    )


def flops_per_sequence(config, seq_len):
    """Training FLOPs (forward + backward) of one sequence: 12*L*H*S*(6H+S).

    Source: docs/hardware.md#bert-reference.
    """
    L, H, S = config.num_hidden_layers, config.hidden_size, seq_len
    return 12 * L * H * S * (6 * H + S)
