"""trn_trainer: BERT pre-training whose results do not depend on how many processes run it.

Entry point: `python3 -m trn_trainer {pretrain,prepare-data,plot} ...` (see cli.py).
"""

__version__ = "0.1.0"
