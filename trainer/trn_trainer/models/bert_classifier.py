"""BERT for sequence classification with the module and parameter names of Hugging Face's
BertForSequenceClassification: `bert.*` (bert.py's BertModel, its pooler included), then
dropout and the linear `classifier` on the pooled [CLS] vector. A state_dict moves between the
two unchanged. Dropout draws its masks per sample (dropout.py), so the result does not depend on
how many processes share a batch.
"""

import torch.nn as nn

from .bert import BertModel, init_bert_weights
from .dropout import DropoutContext, SampleDropout


class BertForSequenceClassification(nn.Module):
    """forward -> logits [B, num_labels]."""

    def __init__(self, cfg, num_labels, dropout_mode="sample"):
        super().__init__()
        self.config = cfg
        self.num_labels = num_labels
        self.dropout_context = DropoutContext(dropout_mode)
        self.bert = BertModel(cfg, self.dropout_context)
        self.dropout = SampleDropout(cfg.hidden_dropout_prob, self.dropout_context)
        self.classifier = nn.Linear(cfg.hidden_size, num_labels)
        self.apply(lambda module: init_bert_weights(module, cfg.initializer_range))

    def forward(self, input_ids, segment_ids, input_mask, sample_seeds=None):
        self.dropout_context.seeds = sample_seeds
        try:
            _, pooled = self.bert(input_ids, segment_ids, input_mask)
            return self.classifier(self.dropout(pooled))
        finally:
            self.dropout_context.seeds = None
