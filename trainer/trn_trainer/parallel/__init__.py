"""How ranks share the work: tensor-parallel layers (tensor_parallel) and which Llama tensors
they split (llama_shards), a Llama run's tensor- and data-parallel groups (lm_groups) and its
ZeRO-1 optimizer step (lm_optim), and the BERT trainers' one all-reduce per step (reduction)
or, on the native path, PyTorch's FSDP2 or DDP around BERT (native_data_parallel).

May import: the top-level modules.
"""
