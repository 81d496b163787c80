"""pretrain-lm's checkpoints through the checkpoint engine (docs/llama.md#checkpoints): written
in the background (the step pays for a copy into host memory), to the node-local tier, the run
directory and the object store the run names, and resumed from the newest one every rank can
read. What a checkpoint holds is checkpoint/llama_state.py's."""

import os

from ..checkpoint import llama_state
from ..checkpoint.group import agreed_resume_step
from ..checkpoint.restore import every_rank_says
from ..checkpoint.tiers import TierWriter
from ..checkpoint.writer import CheckpointWriter
from ..errors import CheckpointError
from .pretrain_inputs import checkpoint_tiers


class LmSaves:
    def __init__(self, args, env, groups, coordination, overlap, stepped, say, layout=None):
        """coordination: checkpoint/group.py's for the ranks; overlap: the device lets the copy into
        host memory run beside the next step; stepped: the (name, parameter) pairs the optimizer
        steps. layout: where the tensors sit (the native path's, llama_native_state.py), else
        the own path's from groups and stepped."""
        self.args, self.group, self.say = args, coordination, say
        self.zero1 = bool(args.zero1 and groups.dp_size > 1)
        self.layout = layout or llama_state.LmLayout.of(groups, self.zero1, stepped)
        self.tiers = checkpoint_tiers(args, say)
        self.tier_writer = TierWriter(self.tiers, coordination, env.local_rank, say)
        self.writer = CheckpointWriter(self._persist, say, coordination, args.checkpoint_mode,
                                       overlap=overlap)

    def _persist(self, step, captured):
        """In the writer thread: DCP's plan of this rank's shard, then the engine's tiers."""
        share = llama_state.share_of(captured, self.layout, self.group.rank,
                                     self.group.writer_process_group())
        return self.tier_writer.persist(step, share)

    def resume(self, run, model_state, optimizer):
        """The state every rank resumes from (None: start at step 0): the newest checkpoint
        this rank can load, or the oldest of the ranks' newest when they differ (a node whose
        local tier lost one), at this run's layout whatever the layout that wrote it. run: the
        settings a checkpoint must have been written with; model_state, optimizer: this run's."""
        if self.args.no_resume:
            return None
        if self.tiers.store is not None:  # a newer checkpoint in the store comes into --output first
            self.tiers.store.restore_newer(self.args.output, self.say)
        load = (self.layout, run, model_state, optimizer)
        state, step = llama_state.load_newest(self.tiers, *load, every_rank_says)
        agreed = agreed_resume_step(self.group.resume_steps(step), self.args.output)
        if agreed != step:
            try:
                state = llama_state.load_step(self.tiers, agreed, *load)
            except ValueError as e:
                raise CheckpointError(
                    f"rank {self.group.rank} cannot read checkpoint {agreed} of {self.tiers.shared}, "
                    f"which every rank resumes from ({e}); check the run directory on this node") from None
        if state is not None:
            self.say(f"resumed from {self.tiers.path(agreed)} (step {state['step']}, "
                     f"{state['consumed_samples']} samples consumed)")
        return state

    def restore_optimizer(self, optimizer, state):
        if self.zero1:  # this rank's partition (parallel/zero1.py keeps it as ZeroRedundancyOptimizer did)
            optimizer.optim.load_state_dict(state[llama_state.ZERO1_PARTITION])
        else:
            optimizer.load_state_dict(state["optimizer"])

    def save(self, step, capture, last):
        """capture() -> (model state, optimizer, progress, run) of the step just taken. Returns what
        the step paid for the save (seconds), None when it was skipped."""
        def share():
            model_state, optimizer, progress, run = capture()
            return llama_state.capture(model_state, optimizer, self.layout, progress, run)

        return self.writer.stalls[-1] if self.writer.submit(step, share, must=last) else None

    def fence(self):
        """Before the optimizer changes the weights: a copy of them still being made is done."""
        self.writer.fence()

    def finish(self):
        self.writer.wait()

    def report(self):
        report = self.writer.report()
        report.update(uploads_failed=self.tier_writer.uploads_failed,
                      local_failed=self.tier_writer.local_failed, tiers=self.tiers.names(),
                      shards=self.group.world_size, zero1_partitions=self.zero1,
                      run_directory=os.path.abspath(self.tiers.shared))
        return report
