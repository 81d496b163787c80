"""Training data: BERT's HDF5 shards (bert_shards) in a world-size-invariant order (sampling),
Llama's packed samples (lm_samples), fine-tuning examples (finetune_examples), WordPiece
tokenization (wordpiece), and the prepare-data and prepare-lm commands that make them (prepare,
prepare_lm).

May import: the top-level modules, models.
"""
