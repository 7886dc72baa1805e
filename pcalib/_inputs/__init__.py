"""Input adapters: one per input kind (NumPy, scipy.sparse, Dask), each with its route table; the kind itself is
decided by pcalib._utils.kinds.input_kind, the one place that looks at it.

Private: nothing here is public API (layer 3 of 9, see tests/test_layers.py)."""
