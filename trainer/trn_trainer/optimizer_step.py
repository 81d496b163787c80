"""One optimizer step: accumulate over the micro-steps, one all-reduce, clip, update."""

import time

import torch
import torch.nn.functional as F


def train_step(run, global_batch, grad_clip, before_update=lambda: None, heartbeat=None):
    """Advance `run` (a TrainingRun) by one optimizer step. before_update() runs right before
    the weights change (a checkpoint snapshot still copying them finishes there); `heartbeat`
    (heartbeat.Heartbeat) hears when the step starts and when it reaches the all-reduce.
    Returns (summed [mlm, nsp] losses, gradient norm or None, learning rate, seconds in data)."""
    if heartbeat:
        heartbeat.step_started()
    t0 = time.perf_counter()
    micro_batches, masked_tokens = run.loader.step(run.consumed)
    data_s = time.perf_counter() - t0
    run.model.train()
    acc_dtype = run.device.accumulate_dtype()
    # Started by the first micro-step: zeros made before it would be a graph of their own on XLA.
    mlm_total = nsp_total = None
    for mb in run.device.micro_batches(micro_batches):
        with run.device.autocast():
            mlm_logits, nsp_logits = run.model(mb["input_ids"], mb["segment_ids"], mb["input_mask"],
                                               mb["masked_lm_positions"], mb["sample_seeds"])
        mlm = F.cross_entropy(mlm_logits.float().reshape(-1, mlm_logits.shape[-1]),
                              mb["masked_lm_labels"].reshape(-1), ignore_index=-1, reduction="sum")
        nsp = F.cross_entropy(nsp_logits.float(), mb["next_sentence_labels"], reduction="sum")
        # Normalised by the GLOBAL batch, so summing over micro-steps and processes gives the
        # global mean exactly, whatever the split.
        mlm = mlm / masked_tokens
        nsp = nsp / global_batch
        (mlm + nsp).backward()
        mlm_step, nsp_step = mlm.detach().to(acc_dtype), nsp.detach().to(acc_dtype)
        mlm_total = mlm_step if mlm_total is None else mlm_total + mlm_step
        nsp_total = nsp_step if nsp_total is None else nsp_total + nsp_step
    if heartbeat:
        heartbeat.all_reduce_started()
    sums = run.reducer.reduce([mlm_total, nsp_total])
    grad_norm = None
    if grad_clip > 0:
        grad_norm = torch.nn.utils.clip_grad_norm_(run.params, grad_clip)
    lr = run.schedule.apply(run.optimizer, run.step + 1)
    before_update()
    run.optimizer_step()
    run.optimizer.zero_grad(set_to_none=True)
    run.step += 1
    run.consumed += global_batch
    return sums, grad_norm, lr, data_s
