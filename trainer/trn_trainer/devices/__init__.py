"""Where a run computes: the `Device` interface, which is also the CPU device (base), CUDA
(cuda), torch-xla on Trainium (xla, imported only when chosen), the choice among them and the
dtype (choice), and known accelerators' peak FLOP/s (peak_flops).

May import: the top-level modules.
"""
