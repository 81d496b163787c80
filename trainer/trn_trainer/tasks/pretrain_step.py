"""One optimizer step: accumulate over the micro-steps, one all-reduce, clip, update. (The
native path's FSDP2/DDP reduce the gradients in the last micro-step's backward instead.)"""

import time

import torch.nn.functional as F


def train_step(run, global_batch, grad_clip, before_update=lambda: None, heartbeat=None):
    """Advance `run` (a TrainingRun) by one optimizer step. before_update() runs right before
    the weights change (a checkpoint snapshot still copying them finishes there); `heartbeat`
    (heartbeat.Heartbeat) hears when the step starts and when it reaches the all-reduce.
    Returns (summed [mlm, nsp] losses, gradient norm or None, learning rate, timing): timing
    holds the seconds in data and, on devices that run each operation when called (CPU, CUDA;
    not XLA, which only traces here), the median-ready seconds of one micro-step, of the
    all-reduce and of the optimizer - what `trn-run --calibrate` reads."""
    if heartbeat:
        heartbeat.step_started()
    t0 = time.perf_counter()
    micro_batches, masked_tokens = run.loader.step(run.consumed)
    timing = {"data_s": time.perf_counter() - t0}
    clock = PhaseClock(run.device)
    run.model.train()
    acc_dtype = run.device.accumulate_dtype()
    # Started by the first micro-step: zeros made before it would be a graph of their own on XLA.
    mlm_total = nsp_total = None
    for i, mb in enumerate(run.device.micro_batches(micro_batches)):
        with run.micro_step(last=i == len(micro_batches) - 1):
            with run.autocast():
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
    clock.lap(timing, "micro_step_s", len(micro_batches))
    if heartbeat:
        heartbeat.all_reduce_started()
    sums = run.reduce([mlm_total, nsp_total])
    clock.lap(timing, "allreduce_s")
    grad_norm = None
    if grad_clip > 0:
        grad_norm = run.clip_gradients(grad_clip)
    lr = run.schedule.apply(run.optimizer, run.step + 1)
    before_update()
    run.optimizer_step()
    run.optimizer.zero_grad(set_to_none=True)
    clock.lap(timing, "optimizer_s")
    run.step += 1
    run.consumed += global_batch
    return sums, grad_norm, lr, timing


class PhaseClock:
    """Seconds between the phases of a step, where the device has finished the phase's work when
    it is timed (synchronize() waits for CUDA; the CPU is done anyway). A device that defers
    its work (XLA) is only tracing here: it times nothing."""

    def __init__(self, device):
        self.device = device
        self.enabled = not device.defers_reads
        self.last = time.perf_counter()

    def lap(self, timing, name, parts=1):
        if not self.enabled:
            return
        self.device.synchronize()
        now = time.perf_counter()
        timing[name] = (now - self.last) / max(parts, 1)
        self.last = now
