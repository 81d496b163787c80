"""Weight files exchanged with other tools: safetensors files (safetensors_file), Hugging Face
Llama folders (hf_folder) and tensor-parallel weights folders (tp_weights).

May import: the top-level modules, checkpoint, models, parallel.
"""
