"""What a run trains with, built once its input is checked: device, model, optimizer, learning
rate schedule, gradient reducer and data loader, plus where it stands (step, samples consumed),
restored from the checkpoint it resumes from."""

from . import checkpoint_state
from .data import StepLoader
from .devices import select_device
from .model_choice import build_model
from .optim import WarmupDecay, build_optimizer, warmup_steps
from .reduction import GradientReducer


class TrainingRun:
    def __init__(self, args, inputs, env, say):
        self.device = select_device(args.device, args.dtype, env)
        self.device.init_process_group()
        self.device.manual_seed(args.seed)
        model = build_model(inputs.config, args.model_impl, args.dropout_rng)
        self.model = model.to(self.device.torch_device)
        named = list(self.model.named_parameters())
        self.params = [p for _, p in named]
        self.optimizer = build_optimizer(args.optimizer, named, inputs.lr, args.weight_decay)
        self.schedule = WarmupDecay(inputs.lr, warmup_steps(args.warmup, args.steps), args.steps,
                                    1.0 if args.schedule == "linear" else args.poly_power)
        self.reducer = GradientReducer(self.device, self.params)
        self.step, self.consumed = 0, 0
        if inputs.resume_state is not None:
            checkpoint_state.restore(self, inputs.resume_state)
            say(f"resumed from {inputs.resume_path} (step {self.step}, "
                f"{self.consumed} samples consumed)")
            inputs.resume_state = None  # free the host copy
        self.loader = StepLoader(inputs.shards, args.seed, args.micro_batch, env.world_size,
                                 env.rank, inputs.accumulation, inputs.config.vocab_size)

    def parameter_count(self):
        return sum(p.numel() for p in self.params)
