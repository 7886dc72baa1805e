"""Kernel PCA's engine: kernel functions, the centered kernel algebra, pre-images.

Private: nothing here is public API (layer 6 of 9, see tests/test_layers.py)."""
