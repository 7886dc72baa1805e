"""Correspondence analysis and MCA's engine: contingency tables, the CA solver, indicator coding, the MCA fit.

Private: nothing here is public API (layer 8 of 9, see tests/test_layers.py)."""
