"""Utilities every layer may use: argument validation, the kind of an input, pandas frames and labelled tables, thread counts, progress lines, label placement.

Private: nothing here is public API (layer 1 of 9, see tests/test_layers.py)."""
