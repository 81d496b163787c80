"""Checkpoints (docs/checkpoints.md): the files of one directory and their manifests (files),
each rank's share of the state (shards, tensor_tree), the tiers it goes to - node-local,
run directory, object store (tiers, s3) - written in the background (writer), what the ranks
agree on (group), peer snapshots (peers, snapshot_schedule), resume (restore, load_slots), and
what a BERT or a Llama checkpoint holds (bert_state, llama_state; llama_legacy for Llama
checkpoints before resharding), the latter through torch.distributed.checkpoint (dcp_share),
which needs parallel's word on which dimension tensor parallelism splits.

May import: the top-level modules, parallel.
"""
