"""The pre-training loop: check the input, set up, then train, checkpoint and report.

The pieces live in their own modules: pretrain_inputs (checks, before anything is written),
pretrain_run (device, model, optimizer, loader, resume), pretrain_step (one step),
pretrain_log (metrics and progress), checkpoint/bert_state.py (what a checkpoint holds) and
pretrain_report (results.json at the end).
"""

import time
from functools import partial

from ..checkpoint import bert_state
from ..checkpoint.peers import ring
from ..checkpoint.shards import share_of
from ..checkpoint.snapshot_schedule import SnapshotSchedule
from ..checkpoint.tiers import TierWriter
from ..checkpoint.writer import CheckpointWriter
from ..environment import compile_run_variable, extracting_graphs_only, read_dist_env
from ..errors import CheckpointError
from ..heartbeat import Heartbeat, failure_text
from ..models.bert_config import flops_per_sequence
from ..training import divergence
from .pretrain_inputs import check_inputs
from .pretrain_log import StepLog
from .pretrain_report import parameters_record, write_report
from .pretrain_run import TrainingRun
from .pretrain_step import train_step


class Trainer:
    def __init__(self, args, heartbeat):
        self.args = args
        self.heartbeat = heartbeat
        self.started = time.time()
        self.extract_only = extracting_graphs_only()
        self.env = read_dist_env()
        self.is_main = self.env.is_main
        resume = not self.extract_only and not args.no_resume
        self.inputs = check_inputs(args, self.env.world_size, resume, self.say, self.env.local_rank,
                                   init=not self.extract_only)

    def say(self, message):
        if self.is_main:
            print(message, flush=True)

    def setup(self):
        args, inputs = self.args, self.inputs
        self.run_state = TrainingRun(args, inputs, self.env, self.say)
        # Under NEURON_EXTRACT_GRAPHS_ONLY too: the compile phase's --steps is the profile's
        # compile_steps, the one owner of how many steps produce every graph.
        self.last_step = args.steps
        self.flops_per_seq = flops_per_sequence(inputs.config, inputs.shards.seq_len)
        if args.peak_tflops:
            self.peak_flops, self.peak_note = args.peak_tflops * 1e12, f"--peak-tflops {args.peak_tflops}"
        else:
            self.peak_flops, self.peak_note = self.run_state.device.peak_flops()
        self.log = StepLog(args, self.run_state.step, self.last_step, inputs.global_batch, self.started,
                           self.is_main and not self.extract_only, self.say)
        run = self.run_state
        self.tier_writer = TierWriter(self.inputs.tiers, run.group, self.env.local_rank, self.say)
        self.writer = CheckpointWriter(self.tier_writer.persist, self.say, run.group,
                                       args.checkpoint_mode, overlap=run.device.snapshot_overlaps)
        self._setup_snapshots()

    def _setup_snapshots(self):
        """Peer snapshots have a writer of their own: a slow checkpoint write to the shared file
        system never makes one skip (it costs one more host copy of the rank's share)."""
        run, env = self.run_state, self.env
        group = run.group.for_snapshots()
        self.snapshots = SnapshotSchedule(self.inputs.snapshot_every, self.say)
        self.snapshot_tiers = TierWriter(self.inputs.tiers, group, env.local_rank, self.say,
                                         peers=ring(env.rank, env.world_size, env.local_world_size))
        persist = partial(self.snapshot_tiers.persist, snapshot=True)
        self.snapshot_writer = CheckpointWriter(persist, self.say, group, what="snapshot",
                                                overlap=run.device.snapshot_overlaps)

    def save_checkpoint(self, snapshot=False):
        """Every rank writes its share: the step pays for a snapshot into host memory, the writer
        persists it (the run's last checkpoint is never skipped). `snapshot`: a peer snapshot
        (node-local tiers only: checkpoint/peers.py)."""
        if self.extract_only:
            return
        run, env = self.run_state, self.env

        def capture():
            state = bert_state.capture(run, self.args, self.inputs.config, self.inputs.global_batch)
            return share_of(state, env.rank, env.world_size)

        with self.heartbeat.checkpointing():
            if not snapshot:
                if self.writer.submit(run.step, capture, must=run.step == self.last_step):
                    self.saved_step = run.step
                    self.log.checkpoint_saved(run.step, self.writer.stalls[-1])
            else:  # never skipped: waiting for the previous one is part of what a snapshot costs
                self.snapshot_writer.submit(run.step, capture, must=True)
                self.snapshots.after_snapshot(self.snapshot_writer.stalls, run.group.any_rank)
                self.log.checkpoint_saved(run.step, self.snapshot_writer.stalls[-1])

    def resume_hint(self):
        """Where a rerun with the same --output starts, for the advice after a divergence."""
        if self.saved_step is None:
            return "no checkpoint of sane weights was saved, so it starts from step 0"
        return (f"it resumes from the newest checkpoint, step {self.saved_step}, whose weights were "
                "checked sane before it was saved")

    def fence(self):
        """Before the optimizer changes the weights: copies of them still being made are done."""
        self.writer.fence()
        self.snapshot_writer.fence()

    def checkpoint_report(self):
        report = self.writer.report()
        report.update(uploads_failed=self.tier_writer.uploads_failed,
                      local_failed=self.tier_writer.local_failed, tiers=self.inputs.tiers.names(),
                      shards=self.env.world_size)
        snapshots = self.snapshot_writer.report()
        report["snapshots"] = {"every": self.snapshots.every, "adaptive": self.snapshots.adaptive,
                               "peer_copies": self.snapshot_tiers.peers is not None,
                               "taken": snapshots["saves"],
                               "stall_median_s": snapshots["stall_median_s"],
                               "write_median_s": snapshots["write_median_s"],
                               "failed": snapshots["failed"],
                               "host_buffer_bytes": snapshots["host_buffer_bytes"]}
        return report

    def start(self):
        self.setup()
        a, inputs, run = self.args, self.inputs, self.run_state
        self.say(f"trn_trainer: {a.model} ({run.parameter_count():,} parameters, "
                 f"{a.model_impl}) on {run.describe()}, world {self.env.world_size}, "
                 f"micro-batch {a.micro_batch} x accumulation {inputs.accumulation} = global batch "
                 f"{inputs.global_batch}, {len(inputs.shards.paths)} shard(s) of seq {inputs.shards.seq_len}")
        if self.extract_only:
            self.say(f"{compile_run_variable()} is set: running {self.last_step - run.step} steps to "
                     "produce every graph and writing nothing")
        self.first = True
        # The newest checkpoint this run saved (its weights were judged sane), else the one it
        # resumed from: where a rerun after a divergence starts.
        self.saved_step = run.step if run.step > 0 else None
        self.unread = []  # steps whose values are not read yet (see read_due)
        self.heartbeat.step_done(run.step)  # where it starts: the step it resumed from
        self.log.restart_clock()

    def record_steps(self, steps):
        """Log the steps (step, sums, grad_norm, lr, timing, first), then stop the run if one
        diverged: the loss is checked where the log has already read it on the host, so no
        extra device sync."""
        for (step, _, _, lr, _, _), (loss, norm) in zip(steps, self.log.record_many(steps)):
            if not self.extract_only:  # graph extraction runs nothing: its values mean nothing
                divergence.check_step(step, loss, norm, lr, self.resume_hint)

    def read_due(self, step, checkpoint_due):
        """Whether this step's values are read now. Each read waits for the device, so a device
        that defers reads (XLA) reads them for --log-every steps at once, and always before a
        checkpoint; the others read every step."""
        if not self.run_state.device.defers_reads:
            return True
        return checkpoint_due or step % self.args.log_every == 0 or step == self.last_step

    def one_step(self):
        """Train, record and (when due) checkpoint or snapshot one optimizer step."""
        run = self.run_state
        began = time.perf_counter()
        sums, grad_norm, lr, timing = train_step(run, self.inputs.global_batch, self.args.grad_clip,
                                                 before_update=self.fence, heartbeat=self.heartbeat)
        every = self.args.checkpoint_every
        checkpoint_due = (every and run.step % every == 0) or run.step == self.last_step
        self.unread.append((run.step, sums, grad_norm, lr, timing, self.first))
        if self.read_due(run.step, checkpoint_due):
            run.device.after_step(self.record_steps, self.unread)
            self.unread = []
        # Part of the step's graph, read once it ran: no host read in the middle of a graph. A device
        # that traces the step (XLA) computes it in every step, read or not, so that a checkpoint
        # step runs the same graph as the others instead of compiling one of its own (the compile
        # phase, which extracts the graphs, would not have it).
        health = run.weights_health() if checkpoint_due or run.device.defers_reads else None
        if checkpoint_due and not self.extract_only:  # on every rank, so that all stop together
            run.device.after_step(divergence.check_weights, run.step, health, lr, self.resume_hint)
        run.device.step_end()  # XLA: cut and run the graph; the closures follow
        self.heartbeat.step_done(run.step)
        self.first = False
        self.snapshots.observe_step(time.perf_counter() - began)
        if checkpoint_due:
            self.save_checkpoint()
            self.log.restart_clock()
        elif self.snapshots.due(run.step):
            self.save_checkpoint(snapshot=True)

    def finish(self, completed):
        run = self.run_state
        self.writer.wait()  # a checkpoint being written is finished before the process ends
        if completed:  # after a failure a snapshot may wait on a dead peer's copy: left behind
            self.snapshot_writer.wait()
        try:
            if completed:
                run.device.synchronize()
                run.device.barrier()
        finally:
            run.loader.close()
            self.log.close()
        summary = {}
        if completed and self.is_main and not self.extract_only:
            parameters = parameters_record(self.args, self.inputs, run, self.env.world_size,
                                           self.flops_per_seq, self.peak_flops, self.peak_note)
            summary = write_report(self.args.output, parameters, self.started, self.args.no_plot,
                                   self.say, checkpoints=self.checkpoint_report())
        run.device.shutdown()
        if completed and self.last_step in self.writer.failed_steps:
            raise CheckpointError(
                f"the run's last checkpoint (step {self.last_step}) could not be written to "
                f"{self.args.output} (see the warning above); the newest one stands - make room or "
                "fix the folder and run the same command again: it resumes from there")
        return summary

    def train(self):
        self.start()
        completed = False
        try:
            while self.run_state.step < self.last_step:
                self.one_step()
            completed = True
        except BaseException as e:
            # The watchdog hears of it at once: the clean-up below may wait on peers.
            self.heartbeat.stopped(failure_text(e))
            raise
        finally:
            summary = self.finish(completed)
        return summary


def pretrain(args):
    """Train; the rank's heartbeat says how it ended (trn-run's watchdog reads it)."""
    heartbeat = Heartbeat(read_dist_env().rank)
    try:
        summary = Trainer(args, heartbeat).train()
    except BaseException as e:
        heartbeat.stopped(failure_text(e))
        raise
    heartbeat.stopped()
    return summary
