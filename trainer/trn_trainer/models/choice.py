"""Model selection: which implementation `--model-impl` (native or hf) builds."""

from ..errors import UsageError


def build_model(cfg, impl, dropout_mode):
    if impl == "native":
        from .bert import BertForPreTraining

        return BertForPreTraining(cfg, dropout_mode)
    if impl == "hf":
        from .hf_bert import HfBertForPreTraining

        return HfBertForPreTraining(cfg)
    raise UsageError(f"--model-impl {impl!r}: choose native or hf")
