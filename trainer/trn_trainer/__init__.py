"""trn_trainer: BERT and Llama training whose results do not depend on how many processes run it.

Entry point: `python3 -m trn_trainer {pretrain,finetune,prepare-data,pretrain-lm,prepare-lm,convert,
plot,plot-sweep} ...` (cli.py). The concerns are packages, each naming in its docstring which
others it may import: devices, models, parallel, checkpoint, weights, data, training and tasks.
The top-level modules are what every package may use - errors (exit statuses), env_names,
environment (rank and world), heartbeat, metrics and outside_files (reading files that come from
outside) - and import only one another; cli.py may
import tasks and data.
"""

__version__ = "0.1.0"
