"""torch_xla.utils, the part trn_trainer uses (TEST DOUBLE): checkpoint."""
