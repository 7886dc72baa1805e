"""Input adapters: one per input kind (NumPy, scipy.sparse, Dask), the one place that looks at the kind.

Private: nothing here is public API (layer 3 of 9, see tests/test_layers.py)."""
