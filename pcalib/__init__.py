"""pcalib: the companion library of *PCA, derived and verified*.

Public names are re-exported here; modules mirror the book's chapters.
"""

# Chapter "Centering"
from .centering import center, centering_matrix

__all__ = [
    "center",
    "centering_matrix",
]
__version__ = "0.1.0"
