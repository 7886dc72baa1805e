"""pcalib: the companion library of *PCA, derived and verified*.

Public names are re-exported here; modules mirror the book's chapters.
"""

# Chapter "Centering"
from .centering import center, centering_matrix

# Chapter "Covariance"
from .covariance_matrix import covariance, standardize, total_variance

# Chapters "Maximum variance", "SVD and PCA", "Minimum reconstruction error"
from .pca import PCAResult, pca_eig, pca_gram, pca_svd, reconstruction_error

# Chapters "Eckart-Young", "PCA at scale"
from .lowrank import low_rank_approx, randomized_svd, truncated_svd

# Chapter "Probabilistic PCA"
from .ppca import PPCA

# Chapter "Missing values"
from .imputation import impute_pca

# The estimator
from .estimator import PCA, NotFittedError

# Chapter "Principal coordinates"
from .principal_coordinates import PCoAResult, double_center, pcoa

# Chapter "How many components, and how sure?"
from .selection import broken_stick, choose_k, cv_press, minka_log_evidence
from .noise_rules import (
    BartlettTest,
    MarchenkoPasturEdge,
    ParallelAnalysis,
    bartlett_test,
    marchenko_pastur_edge,
    parallel_analysis,
    velicer_map,
)
from .bootstrap import AndersonIntervals, BootstrapResult, align_axes, anderson_intervals, bootstrap_pca

# Chapter "Outliers and robust PCA"
from .robust import RobustPCA

# Chapter "Kernel PCA"
from .kernel import KernelPCA

# Chapter "Reading the components"
from .reading import promax, row_contributions, row_cos2, variable_contributions, variable_cos2, varimax
from .sparse_pca import SparsePCA
from .supplementary import (
    category_ellipses,
    describe_axes,
    supplementary_categories,
    supplementary_correlations,
)

# Chapter "Categories, counts and compositions"
from .correspondence import CA, MCA
from .compositions import closure, clr, ilr, ilr_inv, multiplicative_replacement, variation_matrix

# Part V, chapter "PCA and prediction"
from .regression import PCR, PCRCrossValidation, cross_validate_pcr

# Part V, chapter "Curves and series"
from .series import SSA, WeightedPCAResult, functional_pca, quadrature_weights, trajectory_matrix, weighted_pca

# Submodules: figures (matplotlib imported lazily) and shipped data sets
from . import datasets, plot

__all__ = [
    "center",
    "centering_matrix",
    "covariance",
    "total_variance",
    "standardize",
    "PCAResult",
    "pca_eig",
    "pca_svd",
    "pca_gram",
    "choose_k",
    "reconstruction_error",
    "truncated_svd",
    "low_rank_approx",
    "randomized_svd",
    "PPCA",
    "impute_pca",
    "PCA",
    "NotFittedError",
    "PCoAResult",
    "double_center",
    "pcoa",
    "broken_stick",
    "minka_log_evidence",
    "ParallelAnalysis",
    "parallel_analysis",
    "cv_press",
    "MarchenkoPasturEdge",
    "marchenko_pastur_edge",
    "BartlettTest",
    "bartlett_test",
    "velicer_map",
    "BootstrapResult",
    "align_axes",
    "bootstrap_pca",
    "AndersonIntervals",
    "anderson_intervals",
    "RobustPCA",
    "KernelPCA",
    "variable_contributions",
    "variable_cos2",
    "row_contributions",
    "row_cos2",
    "varimax",
    "promax",
    "SparsePCA",
    "supplementary_correlations",
    "supplementary_categories",
    "describe_axes",
    "category_ellipses",
    "CA",
    "MCA",
    "closure",
    "clr",
    "ilr",
    "ilr_inv",
    "multiplicative_replacement",
    "variation_matrix",
    "PCR",
    "PCRCrossValidation",
    "cross_validate_pcr",
    "SSA",
    "WeightedPCAResult",
    "weighted_pca",
    "functional_pca",
    "quadrature_weights",
    "trajectory_matrix",
    "datasets",
    "plot",
]
__version__ = "0.1.0"
