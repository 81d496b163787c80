"""`--model-impl hf`: Hugging Face's BertForPreTraining behind the same forward as bert.py.

Its dropout uses the framework's random generator, so with dropout > 0 the strong-scaling
equivalence holds only for the native implementation.
"""

import torch

from ..errors import UsageError


class HfBertForPreTraining(torch.nn.Module):
    def __init__(self, cfg):
        super().__init__()
        try:
            import transformers
        except ImportError as e:
            raise UsageError(f"--model-impl hf: transformers cannot be imported ({e}); install it "
                             "(requirements.txt) or use --model-impl native") from None

        hf_cfg = transformers.BertConfig(**cfg.to_dict())
        self.config = cfg
        self.hf = transformers.BertForPreTraining(hf_cfg)

    # Same parameter names as the native model: expose the wrapped model's state_dict keys.
    def state_dict(self, *args, **kwargs):
        return self.hf.state_dict(*args, **kwargs)

    def load_state_dict(self, state_dict, strict=True):
        return self.hf.load_state_dict(state_dict, strict=strict)

    def named_parameters(self, *args, **kwargs):
        return self.hf.named_parameters(*args, **kwargs)

    def forward(self, input_ids, segment_ids, input_mask, masked_lm_positions, sample_seeds=None):
        out = self.hf.bert(input_ids=input_ids, token_type_ids=segment_ids, attention_mask=input_mask)
        hidden, pooled = out[0], out[1]
        index = masked_lm_positions.unsqueeze(-1).expand(-1, -1, hidden.shape[-1])
        masked_hidden = torch.gather(hidden, 1, index)
        return self.hf.cls.predictions(masked_hidden), self.hf.cls.seq_relationship(pooled)
