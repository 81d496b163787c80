"""Dense bf16 peak FLOP/s per device (per process): the denominator of MFU."""

# Sources: vendor data sheets.
# Trainium1 chip 190 TFLOP/s over 2 NeuronCores; Trainium2 chip 667 TFLOP/s over 8 physical
# cores (2 per logical core with NEURON_LOGICAL_NC_CONFIG=2, the default); H100/H200 SXM 989.
PEAK_BF16_FLOPS = {
    "trn1": 95e12,
    "trn2-lnc1": 667e12 / 8,
    "trn2-lnc2": 667e12 / 4,
    "H100": 989e12,
    "H200": 989e12,
    "A100": 312e12,
}
