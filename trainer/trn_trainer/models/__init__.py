"""The networks: BERT for pre-training (bert, or Hugging Face's through hf_bert; choice picks
one) and for sequence classification (bert_classifier), its sizes (bert_config), dropout drawn per
sample (dropout); Llama (llama), its sizes (llama_config) and the tensors a size has
(llama_weights).

May import: the top-level modules, parallel.
"""
