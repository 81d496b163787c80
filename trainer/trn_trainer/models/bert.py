"""BERT for pre-training (MLM + NSP) with the module and parameter names of Hugging Face's
BertForPreTraining, so a state_dict moves between the two unchanged.

Differences that do not change the parameters: the MLM decoder runs only at the masked
positions (as the NVIDIA and Neuron scripts do; about 3x faster on CPU,
docs/hardware.md#cpu-openblas), and dropout draws its masks per sample (dropout.py).
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .dropout import DropoutContext, SampleDropout

_HAS_SDPA = hasattr(F, "scaled_dot_product_attention")


def init_bert_weights(module, std):
    """Hugging Face's BERT initialisation of one module (apply it with Module.apply)."""
    if isinstance(module, nn.Linear):
        module.weight.data.normal_(mean=0.0, std=std)
        if module.bias is not None:
            module.bias.data.zero_()
    elif isinstance(module, nn.Embedding):
        module.weight.data.normal_(mean=0.0, std=std)
        if module.padding_idx is not None:
            module.weight.data[module.padding_idx].zero_()
    elif isinstance(module, nn.LayerNorm):
        module.weight.data.fill_(1.0)
        module.bias.data.zero_()


class BertEmbeddings(nn.Module):
    def __init__(self, cfg, dctx):
        super().__init__()
        self.word_embeddings = nn.Embedding(cfg.vocab_size, cfg.hidden_size, padding_idx=0)
        self.position_embeddings = nn.Embedding(cfg.max_position_embeddings, cfg.hidden_size)
        self.token_type_embeddings = nn.Embedding(cfg.type_vocab_size, cfg.hidden_size)
        self.LayerNorm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)
        self.dropout = SampleDropout(cfg.hidden_dropout_prob, dctx)

    def forward(self, input_ids, token_type_ids):
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)
        x = (
            self.word_embeddings(input_ids)
            + self.position_embeddings(positions).unsqueeze(0)
            + self.token_type_embeddings(token_type_ids)
        )
        return self.dropout(self.LayerNorm(x))


class BertSelfAttention(nn.Module):
    def __init__(self, cfg, dctx):
        super().__init__()
        self.num_heads = cfg.num_attention_heads
        self.head_dim = cfg.hidden_size // cfg.num_attention_heads
        self.query = nn.Linear(cfg.hidden_size, cfg.hidden_size)
        self.key = nn.Linear(cfg.hidden_size, cfg.hidden_size)
        self.value = nn.Linear(cfg.hidden_size, cfg.hidden_size)
        self.dropout = SampleDropout(cfg.attention_probs_dropout_prob, dctx)

    def _heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, hidden, mask_bias):
        q, k, v = self._heads(self.query(hidden)), self._heads(self.key(hidden)), self._heads(
            self.value(hidden)
        )
        drop = self.dropout
        per_sample_dropout = (
            drop.training and drop.p > 0 and drop.context.mode == "sample" and drop.context.seeds is not None
        )
        if _HAS_SDPA and not per_sample_dropout:
            p = drop.p if drop.training else 0.0
            ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=mask_bias.to(q.dtype), dropout_p=p)
        else:
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
            probs = drop(torch.softmax(scores + mask_bias.to(scores.dtype), dim=-1))
            ctx = torch.matmul(probs, v)
        b, _, s, _ = ctx.shape
        return ctx.transpose(1, 2).reshape(b, s, self.num_heads * self.head_dim)


class BertResidualOutput(nn.Module):
    """Dense to hidden_size, dropout, residual add, LayerNorm: how both the attention block
    (Hugging Face's BertSelfOutput) and the feed-forward block (BertOutput) end."""

    def __init__(self, in_features, cfg, dctx):
        super().__init__()
        self.dense = nn.Linear(in_features, cfg.hidden_size)
        self.LayerNorm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)
        self.dropout = SampleDropout(cfg.hidden_dropout_prob, dctx)

    def forward(self, hidden, residual):
        return self.LayerNorm(self.dropout(self.dense(hidden)) + residual)


class BertAttention(nn.Module):
    def __init__(self, cfg, dctx):
        super().__init__()
        self.self = BertSelfAttention(cfg, dctx)
        self.output = BertResidualOutput(cfg.hidden_size, cfg, dctx)

    def forward(self, hidden, mask_bias):
        return self.output(self.self(hidden, mask_bias), hidden)


class BertIntermediate(nn.Module):
    """Dense, then GELU: the feed-forward block's first half (to intermediate_size), and the
    start of the MLM head's transform (BertPredictionHeadTransform)."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.dense = nn.Linear(in_features, out_features)

    def forward(self, hidden):
        return F.gelu(self.dense(hidden))


class BertLayer(nn.Module):
    def __init__(self, cfg, dctx):
        super().__init__()
        self.attention = BertAttention(cfg, dctx)
        self.intermediate = BertIntermediate(cfg.hidden_size, cfg.intermediate_size)
        self.output = BertResidualOutput(cfg.intermediate_size, cfg, dctx)

    def forward(self, hidden, mask_bias):
        attn = self.attention(hidden, mask_bias)
        return self.output(self.intermediate(attn), attn)


class BertEncoder(nn.Module):
    def __init__(self, cfg, dctx):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(cfg, dctx) for _ in range(cfg.num_hidden_layers)])

    def forward(self, hidden, mask_bias):
        for layer in self.layer:
            hidden = layer(hidden, mask_bias)
        return hidden


class BertPooler(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.dense = nn.Linear(cfg.hidden_size, cfg.hidden_size)

    def forward(self, hidden):
        return torch.tanh(self.dense(hidden[:, 0]))


class BertModel(nn.Module):
    def __init__(self, cfg, dctx):
        super().__init__()
        self.embeddings = BertEmbeddings(cfg, dctx)
        self.encoder = BertEncoder(cfg, dctx)
        self.pooler = BertPooler(cfg)

    def forward(self, input_ids, token_type_ids, attention_mask):
        # Additive mask as in the reference implementation: 0 keeps, -10000 drops a key position.
        mask_bias = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        hidden = self.encoder(self.embeddings(input_ids, token_type_ids), mask_bias)
        return hidden, self.pooler(hidden)


class BertPredictionHeadTransform(BertIntermediate):
    def __init__(self, cfg):
        super().__init__(cfg.hidden_size, cfg.hidden_size)
        self.LayerNorm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)

    def forward(self, hidden):
        return self.LayerNorm(super().forward(hidden))


class BertLMPredictionHead(nn.Module):
    def __init__(self, cfg, word_embeddings):
        super().__init__()
        self.transform = BertPredictionHeadTransform(cfg)
        self.decoder = nn.Linear(cfg.hidden_size, cfg.vocab_size, bias=False)
        self.bias = nn.Parameter(torch.zeros(cfg.vocab_size))
        self.decoder.weight = word_embeddings.weight  # tied, as in Hugging Face
        self.decoder.bias = self.bias

    def forward(self, hidden):
        return self.decoder(self.transform(hidden))


class BertPreTrainingHeads(nn.Module):
    def __init__(self, cfg, word_embeddings):
        super().__init__()
        self.predictions = BertLMPredictionHead(cfg, word_embeddings)
        self.seq_relationship = nn.Linear(cfg.hidden_size, 2)


class BertForPreTraining(nn.Module):
    """forward -> (MLM logits at the masked positions [B, P, V], NSP logits [B, 2])."""

    def __init__(self, cfg, dropout_mode="sample"):
        super().__init__()
        self.config = cfg
        self.dropout_context = DropoutContext(dropout_mode)
        self.bert = BertModel(cfg, self.dropout_context)
        self.cls = BertPreTrainingHeads(cfg, self.bert.embeddings.word_embeddings)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        init_bert_weights(module, self.config.initializer_range)

    def forward(self, input_ids, segment_ids, input_mask, masked_lm_positions, sample_seeds=None):
        self.dropout_context.seeds = sample_seeds
        try:
            hidden, pooled = self.bert(input_ids, segment_ids, input_mask)
        finally:
            self.dropout_context.seeds = None
        index = masked_lm_positions.unsqueeze(-1).expand(-1, -1, hidden.shape[-1])
        masked_hidden = torch.gather(hidden, 1, index)
        return self.cls.predictions(masked_hidden), self.cls.seq_relationship(pooled)
