"""Array numerics: centering, exact power-of-two units, moments, eigensolvers, the SVD, the sign convention, error certificates, spectra.

Private: nothing here is public API (layer 2 of 9, see tests/test_layers.py)."""
