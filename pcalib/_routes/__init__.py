"""The PCA engine: the routes that decompose centered data (dense skeletons, scatter, block Krylov, implicit centering).

Private: nothing here is public API (layer 4 of 9, see tests/test_layers.py)."""
