"""A bf16 model's gradients summed over the micro-steps in fp32 (training/fp32_gradients.py):
over 64 micro-steps autograd's own bf16 sum drifts from the exact one, the fp32 sums do not; an
fp32 model's gradients are its own."""

import torch

from trn_trainer.training.fp32_gradients import StepGradients

MICRO_STEPS = 64


def _micro_step_gradients():
    generator = torch.Generator().manual_seed(5)
    return [(1 + torch.rand(4096, generator=generator) * 1e-2).to(torch.bfloat16) for _ in range(MICRO_STEPS)]


def _train(weight, accumulate):
    for x in _micro_step_gradients():
        (weight * x).sum().backward()  # the gradient is x
        accumulate()


def test_a_bf16_models_gradients_are_summed_in_fp32():
    exact = sum(x.double() for x in _micro_step_gradients())
    plain = torch.zeros(4096, dtype=torch.bfloat16, requires_grad=True)
    _train(plain, lambda: None)  # autograd adds each into the bf16 .grad
    summed = torch.zeros(4096, dtype=torch.bfloat16, requires_grad=True)
    gradients = StepGradients([summed])
    _train(summed, gradients.micro_step_done)
    (total,) = gradients.gradients()
    assert total.dtype == torch.float32 and summed.grad is None
    bf16_error = ((plain.grad.double() - exact).abs() / exact).max().item()
    fp32_error = ((total.double() - exact).abs() / exact).max().item()
    assert fp32_error < 1e-6, fp32_error
    assert bf16_error > 1e-3, bf16_error  # what the sums are for: 64 additions at 8 mantissa bits
    gradients.step_done()
    _train(summed, gradients.micro_step_done)
    assert torch.equal(gradients.gradients()[0], total)  # the next step sums anew


def test_an_fp32_models_gradients_are_its_own():
    weight = torch.zeros(8, requires_grad=True)
    gradients = StepGradients([weight])
    (weight * 2).sum().backward()
    gradients.micro_step_done()
    assert gradients.gradients()[0] is weight.grad
