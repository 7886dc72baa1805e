"""Estimator plumbing: the scikit-learn protocol (base), streaming fits, the fitted-PCA helpers.

Private: nothing here is public API (layer 9 of 9, see tests/test_layers.py)."""
