"""What a run trains with, built once its input is checked: device, model, optimizer, learning
rate schedule, gradient reducer and data loader, plus where it stands (step, samples consumed),
restored from the checkpoint it resumes from."""

import contextlib
import os
import time

import torch

from ..checkpoint import bert_state, files
from ..checkpoint.group import agreed_resume_step, coordination
from ..checkpoint.peers import restore_newer
from ..checkpoint.restore import candidate_steps, load_step
from ..data.sampling import StepLoader
from ..devices.choice import select_device
from ..errors import CheckpointError
from ..models.choice import build_model
from ..parallel.reduction import GradientReducer
from ..training import divergence
from ..training.master_weights import TrainedWeights
from ..training.optim import WarmupDecay, build_optimizer, warmup_steps
from ..training.setting_checks import native_path


class TrainingRun:
    def __init__(self, args, inputs, env, say):
        native = native_path(args)
        self.device = select_device(args.device, args.dtype, env, native=native)
        self.device.init_process_group()
        # The ranks' checkpoint coordination (snapshot_every None: adapts, so snapshots are on).
        self.group = coordination(env, snapshots=inputs.snapshot_every != 0)
        self.device.manual_seed(args.seed)
        model = build_model(inputs.config, args.model_impl, args.dropout_rng)
        model = self.device.prepare_model(model)
        # The native path: PyTorch's FSDP2 or DDP reduce the gradients; the own path: the reducer.
        self.native = None
        if native:  # imported here: the own path (torch-xla's torch too) never loads FSDP2
            from ..parallel.native_data_parallel import NativeDataParallel

            self.native = NativeDataParallel(model, self.device, args.data_parallel, args.compile)
            model = self.native.model
        self.model = model
        self.weights = TrainedWeights(self.model)
        self.params = self.weights.params
        self.optimizer = build_optimizer(args.optimizer, self.weights.stepped, inputs.lr, args.weight_decay)
        self.schedule = WarmupDecay(inputs.lr, warmup_steps(args.warmup, args.steps), args.steps,
                                    1.0 if args.schedule == "linear" else args.poly_power)
        self.reducer = None if self.native else GradientReducer(self.device, self.params)
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

    def describe(self):
        """The device, and on the native path the data parallelism."""
        described = self.device.describe()
        return f"{described}, {self.native.describe()}" if self.native else described

    def micro_step(self, last):
        """The context of one micro-step's forward and backward (`last`: the step's last)."""
        return self.native.micro_step(last) if self.native else contextlib.nullcontext()

    def autocast(self):
        return self.native.autocast() if self.native else self.device.autocast()

    def reduce(self, scalars):
        """The step's gradients and its loss sums `scalars` summed over the ranks (the native
        path's gradients were summed in the backward); returns the summed loss sums."""
        return self.native.reduce_losses(scalars) if self.native else self.reducer.reduce(scalars)

    def clip_gradients(self, max_norm):
        """Clip to the global gradient norm `max_norm`; returns that norm."""
        if self.native:
            return self.native.clip_gradients(self.params, max_norm)
        return torch.nn.utils.clip_grad_norm_(self.params, max_norm)

    def weights_health(self):
        """divergence.weights_health of the whole model."""
        if self.native:  # over each rank's shards, then over the ranks
            shards = self.native.local_shards(self.params)
            return self.native.health_over_ranks(divergence.weights_health(shards))
        return divergence.weights_health(self.params)

    def optimizer_step(self):
        self.weights.optimizer_step(self.optimizer)

    def model_state(self):
        """The weights a checkpoint holds: fp32 (the master copies of a bf16 model), whole."""
        return self.native.model_state() if self.native else self.weights.state()

    def load_model_state(self, state):
        if self.native:
            self.native.load_model_state(state)
        else:
            self.weights.load(state)

    def optimizer_state(self):
        """The optimizer's state as Optimizer.state_dict lays it out, with whole tensors."""
        return self.native.optimizer_state(self.optimizer) if self.native else self.optimizer.state_dict()

    def load_optimizer_state(self, state):
        if self.native:
            self.native.load_optimizer_state(self.optimizer, state)
        else:
            self.optimizer.load_state_dict(state)

    def parameter_count(self):
        return sum(p.numel() for p in self.params)
