"""The commands that train, convert and plot, a module or a few each: pretrain (BERT; with
pretrain_inputs, pretrain_run, pretrain_step, pretrain_log, pretrain_report), finetune (with
finetune_setup, finetune_init, finetune_output), pretrain-lm (Llama; pretrain_lm,
pretrain_lm_saves), convert, plot and plot-sweep (plot, plot_sweep); and every command's options
(options).

May import: the top-level modules, checkpoint, data, devices, models, parallel, training, weights.
"""
