"""Probabilistic PCA: the model, its EM, the EM over observed entries and the missing-value fits (arrays and parameters, never an estimator), scoring.

Private: nothing here is public API (layer 5 of 9, see tests/test_layers.py)."""
