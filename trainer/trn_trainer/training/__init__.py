"""What the training loops share: AdamW, LAMB and the learning-rate schedule (optim), fp32
master weights of a bf16 model (master_weights), the stop of a diverged run (divergence) and
range checks of the settings (setting_checks).

May import: the top-level modules.
"""
