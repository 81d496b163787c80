"""Stands in for a Python without transformers (first on PYTHONPATH): importing it fails as a
missing package does."""
raise ModuleNotFoundError("No module named 'transformers'", name="transformers")
