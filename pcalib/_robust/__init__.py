"""Robust PCA's engine: MCD, robust scales, the ROBPCA, spherical and grid fits, projection pursuit.

Private: nothing here is public API (layer 7 of 9, see tests/test_layers.py)."""
