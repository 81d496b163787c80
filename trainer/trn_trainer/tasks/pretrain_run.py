"""What a run trains with, built once its input is checked: device, model, optimizer, learning
rate schedule, gradient reducer and data loader, plus where it stands (step, samples consumed),
restored from the checkpoint it resumes from."""

import os
import time


from ..checkpoint import bert_state, files
from ..checkpoint.group import agreed_resume_step, coordination
from ..checkpoint.peers import restore_newer
from ..checkpoint.restore import candidate_steps, load_step
from ..data.sampling import StepLoader
from ..devices.choice import select_device
from ..errors import CheckpointError
from ..models.choice import build_model
from ..parallel.reduction import GradientReducer
from ..training.master_weights import TrainedWeights
from ..training.optim import WarmupDecay, build_optimizer, warmup_steps


class TrainingRun:
    def __init__(self, args, inputs, env, say):
        self.device = select_device(args.device, args.dtype, env, native=args.native)
        self.device.init_process_group()
        # The ranks' checkpoint coordination (snapshot_every None: adapts, so snapshots are on).
        self.group = coordination(env, snapshots=inputs.snapshot_every != 0)
        self.device.manual_seed(args.seed)
        model = build_model(inputs.config, args.model_impl, args.dropout_rng)
        self.model = self.device.prepare_model(model)
        self.weights = TrainedWeights(self.model)
        self.params = self.weights.params
        self.optimizer = build_optimizer(args.optimizer, self.weights.stepped, inputs.lr, args.weight_decay)
        self.schedule = WarmupDecay(inputs.lr, warmup_steps(args.warmup, args.steps), args.steps,
                                    1.0 if args.schedule == "linear" else args.poly_power)
        self.reducer = GradientReducer(self.device, self.params)
        self.step, self.consumed = 0, 0
        self._resume(inputs, say)
        self.loader = StepLoader(inputs.shards, args.seed, args.micro_batch, env.world_size,
                                 env.rank, inputs.accumulation, inputs.config.vocab_size)

    def _resume(self, inputs, say):
        """Every rank resumes from the same step: the oldest of the ranks' newest (the others
        read that one); else, with --init-from, from another run's weights."""
        # What reading the state took: before the ranks talked (check_inputs), and here.
        started = time.perf_counter() - (0.0 if inputs.load_checkpoint else inputs.read_seconds)
        if inputs.load_checkpoint is not None and not self._resume_from_peers(inputs):
            inputs.load_checkpoint()  # no newer snapshot on the nodes: the newest checkpoint
        if inputs.resume_enabled and not inputs.from_snapshot:
            step = agreed_resume_step(self.group.resume_steps(inputs.resume_step), inputs.tiers.shared)
            if step != inputs.resume_step:
                try:
                    inputs.resume_state, _ = load_step(inputs.tiers, step)
                except Exception as e:  # noqa: BLE001 - another rank could read it, this one not
                    raise CheckpointError(
                        f"rank {self.group.rank} cannot read checkpoint {step} of {inputs.tiers.shared}, "
                        f"which every rank resumes from ({type(e).__name__}: {e}); check the run "
                        "directory on this node") from None
                inputs.resume_path = inputs.tiers.path(step)
                say(f"resuming from step {step}, the newest checkpoint every rank can read")
        if inputs.resume_state is not None:
            bert_state.restore(self, inputs.resume_state)
            say(f"resumed from {inputs.resume_path} (step {self.step}, "
                f"{self.consumed} samples consumed){inputs.resume_note}; state read in "
                f"{time.perf_counter() - started:.2f} s")
        elif inputs.init_state is not None:
            self.load_model_state(inputs.init_state["model"])
            say(f"initialized from {inputs.init_path} (its model weights; a fresh optimizer and "
                "schedule, step 0)")
        inputs.resume_state = inputs.init_state = None  # free the host copies

    def _resume_from_peers(self, inputs):
        """Whether the run resumes from a peer snapshot newer than the newest checkpoint any rank
        sees, whose every shard some node holds (every rank takes part: they exchange what their
        nodes hold)."""
        newest = max(self.group.all_gather(max(candidate_steps(inputs.tiers), default=-1)))
        found = restore_newer(self.group, inputs.tiers.snapshots, newest)
        if found is None:
            return False
        state, step, remote, total = found
        path = os.path.join(inputs.tiers.snapshots, files.manifest_name(step))
        files.check_compatible(state, path, inputs.config, None)
        inputs.resume_state, inputs.resume_path = state, f"the nodes' snapshot {path}"
        inputs.resume_note = (f"; {remote} of its {total} shard(s) from another node's "
                              "node-local tier, none from the run directory")
        inputs.from_snapshot = True
        return True

    def optimizer_step(self):
        self.weights.optimizer_step(self.optimizer)

    def model_state(self):
        """The weights a checkpoint holds: fp32 (the master copies of a bf16 model)."""
        return self.weights.state()

    def load_model_state(self, state):
        self.weights.load(state)

    def parameter_count(self):
        return sum(p.numel() for p in self.params)
