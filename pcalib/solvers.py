r"""Which route fits which data: the policy of ``PCA(solver="auto")``.

:class:`pcalib.PCA` asks :func:`dense_route` (NumPy arrays) or :func:`implicit_route`
(sparse and Dask data) which route to run, and :func:`fit_by_route` runs it with the
accuracy guard of "auto". What a kind of data runs (its routes, the rule of "auto", the
routes the guard checks) is the route table of its input adapter
(``pcalib._inputs.route_table.RouteTable``); the policy asks the table, never the kind.
The functions that choose are pure functions of the shape, the number of components and
(for sparse data) the stored entries per row and column; no data are read there. The
routes themselves live in ``pcalib._routes.dense`` (the skeletons that ``pca_eig``,
``pca_svd`` and ``pca_gram`` run too). Every constant is a measurement on the 2-core
machine the book is built on (the comments in the source say which), so the policy can
be re-measured with
``python -m tests.benchmarks`` (timings against scikit-learn) without reading the
estimator. To see which route "auto" takes for a shape::

    >>> from pcalib.solvers import dense_route
    >>> dense_route("auto", 100_000, 50, 5, every_component=False)
    'eig'
    >>> dense_route("auto", 6000, 2500, 10, every_component=False)
    'krylov'

**The routes.** "eig": eigendecomposition of the p x p covariance (LAPACK; for k < p
above order 512 with :math:`40k \le p`, ARPACK's Lanczos method on the formed matrix
first, ``pcalib._linalg.eigen.top_eigh``); "gram": of the n x n Gram matrix
:math:`X_c X_c^\top` (the same solver); "svd": LAPACK SVD of :math:`X_c`; "krylov": the
Lanczos method with single vectors (block Krylov when named, or with a tolerance) on
:math:`X_c^\top X_c` (or :math:`X_c X_c^\top` if n < p), never formed, stopped by a
residual test (below; an integer `n_components` only);
"randomized": :func:`pcalib.randomized_svd` of :math:`X_c` (approximate: a
fixed number of steps, no residual test).

**Dense data: the rules of "auto".** With m = min(n, p), "auto" takes a direct route
(an eigensolver or an SVD) under rules 1 and 2; under rule 3 it may take "krylov",
iterative, accepted only at the residual test below (each eigenvalue within
:math:`10^{-12}\lambda_1`; its check for a missed copy of a repeated eigenvalue is a
probe, a likelihood rather than a proof). The rules:

1. "svd" if :math:`n p m \le 10^6`: small problems, where the most
   accurate route costs at most a few milliseconds.
2. Every component (`n_components` None, a fraction of variance, "mle" or
   m): "eig" if :math:`n \ge 4p`, "gram" if :math:`p \ge 4n`, "svd"
   otherwise. "eig" and "gram" form the smaller of :math:`X_c^\top X_c`
   and :math:`X_c X_c^\top` with one BLAS call (``syrk``, half the flops
   of a general product; "eig" by blocks of rows in one pass with the
   column sums, without a centered copy of X: :math:`X^\top X - n \bar x
   \bar x^\top` when every column's mean is at most its spread, checked
   per column, shifted blocks otherwise) and solve for every eigenpair
   (LAPACK ``syevd``; ``syevr`` for k < m, and ARPACK's Lanczos method above
   order 512 for :math:`40k \le m`, belong to rule 3): 3 to 10
   times faster than the SVD at every shape measured, and exact at any
   offset (unlike scikit-learn's ``covariance_eigh``, which forms
   :math:`X^\top X - n \bar x \bar x^\top` at every offset). The price
   is the squared condition number: eigenvalues are accurate to about
   :math:`\varepsilon \lambda_1` in absolute terms. The factor 4 is where
   that price stays small for noise-like data: by the Marchenko-Pastur law,
   the covariance of pure noise with :math:`c = p/n` has condition number
   about :math:`\big((1+\sqrt c)/(1-\sqrt c)\big)^2`, at most 9 for
   :math:`c \le 1/4` but unbounded as :math:`c \to 1`, and every component
   includes the smallest. It is not small for every matrix of that shape: a
   covariance can have any condition number at any n and p (chapter 7
   builds data with :math:`n \ge 4p` and :math:`\kappa(S) = 10^{18}`), and
   for those the accuracy guard below takes over. The SVD has no squared
   condition number, at 3 to 10 times the time and more memory (LAPACK's SVD
   holds all its factors: peak extra memory measured at 5.5 copies of X for
   2000 x 1000, against 2.0 for "eig"; the eig and gram routes stay within
   about one copy of X from n >= 4p or p >= 4n on, 0.25 copies at
   20000 x 2000).
3. k < m components (an integer `n_components`): only
   :math:`\lambda_1, \dots, \lambda_k` matter, whose accuracy the guard
   below checks, whatever the shape. Above 1024 features, "krylov" when a cost
   model leaves it room. With n and p within a factor 4 of each other, it is tried
   when half the estimated cost of the exact route (the ``syrk``, then ARPACK's
   Lanczos method on the formed matrix),
   :math:`t_\text{exact} = n p m + v\,(8k + 40)\, m^2` flops of the
   ``syrk``, which fills one triangle with :math:`n p m / 2` multiply-adds
   (:math:`n p m + e\, m^3` where LAPACK solves it: order 512 or less, or
   :math:`k > m/40`; :math:`e = 40/11`), at :math:`t_\text{block} = 4 c\, n p b` per block of
   :math:`b = k + 2` columns, allows 4
   blocks (:math:`v = 12` per :math:`m^2` of a Lanczos product, one ``dsymv``
   that is bound by memory, and :math:`c = 3` per flop of the thin products and
   their share of the orthogonalization: the ratios of their times to the
   ``syrk``'s, measured on one core; counts, not timings, so that a shape
   takes the same route on every machine and at every call). Tall data
   (:math:`n \ge 4p`) keep their one ``syrk`` for block Krylov (measured at 20000 x
   2000 and 2000 x 20000: a block Krylov attempt that gave up cost 0.2-0.5 s more than
   that route), but take "krylov" when the whole estimated cost pays for
   :math:`5k + 20` single-vector products (``lanczos_room``, which square-ish data
   must pass too, and which implies their 4 blocks: it needs at least 15 run blocks,
   so at least 7 in half the cost); wide data keep
   the ``syrk`` of "gram" (Lanczos needed 165 products at 2000 x 20000, k = 10,
   against 35 at 20000 x 2000).
   The route runs Lanczos with single vectors (``pcalib._linalg.lanczos``), whose
   products :math:`X_c^\top (X_c q)` are two ``gemv`` calls, :math:`2 g\, n p` with
   :math:`g = 17` (``constants.VECTOR_PRODUCT_COST``), within the whole estimated cost
   (:func:`krylov_run_blocks` blocks, :math:`t_\text{exact} / (2 g\, n p)` products):
   the products spent are sunk, and a run that converges within that cost is
   cheaper to finish than to abandon. It stops early when the decay of its
   residual predicts a failure (a flat spectrum near :math:`\lambda_k`): past half
   the budget, when even four times the fastest decay seen so far would not reach the
   test within it. If it stops, or if its probe finds a missed copy of a repeated
   eigenvalue, the k leading eigenpairs of the formed matrix take over
   (``solver_`` "eig" if n >= p, "gram" otherwise), so a failure costs at most about
   twice the exact route's cost in the model's units (g is the smallest ratio
   measured, 17 against up to 41 on large matrices, so there the run may take up to
   41/17, about 2.4 times, the exact route's time, and a failure about 3.4). Otherwise "eig"
   if n >= p, or if p <= 1024 and
   p < 4n (the eig route keeps the scatter matrix for a later
   :meth:`pcalib.PCA.partial_fit`); "gram" for wider data.

**The Krylov route.** Each step of the "krylov" route of "auto" costs the product
:math:`X_c^\top (X_c q)` with one vector (or :math:`X_c (X_c^\top q)` if n < p),
two passes over the data by ``gemv``: measured on 2 cores at 5000 x 5000, 13 ms,
against 41-49 ms for a block of 2 to 12 columns by ``dgemm``, so single-vector
Lanczos without restarts beats block Krylov wherever the spectrum leaves a gap near
:math:`\lambda_k` (55 products against 35 blocks of 12 at 5000 x 5000, k = 10), and
ARPACK's restarted Lanczos (scikit-learn's ``svd_solver="arpack"``), which needed
77-81 products there. When X is float64 (C or F
order) and every varying column has :math:`n \bar x_j^2 \le \sum_i (x_{ij} - \bar
x_j)^2` (its mean at most its spread, found in one pass of column moments, as the eig
route checks it), :math:`X_c` is never formed: :math:`X_c q = Xq - \mathbf 1
(\bar x^\top q)` and :math:`X_c^\top z = X^\top z - \bar x (\mathbf 1^\top z)` (with
:math:`D^{-1}` on either side when standardizing), which cancel at most one bit; this
saves the copy of X and 0.07-0.16 s (measured on 2 cores at 5000 x 5000 to
10000 x 4000). Otherwise the route works on one centered copy of X. It
accepts the Ritz pairs when every residual
:math:`\|M v_j - \theta_j v_j\| \le 10^{-12}\theta_1` (the a-posteriori
test of the sparse and Dask routes, a hundred times tighter, computed from the
stored products) and a probe of the deflated matrix finds no eigenvalue above
:math:`\theta_k` that the run missed: each eigenvalue is then within
:math:`10^{-12}\lambda_1` (and
within the square of that over its gap), each axis within an angle of
about :math:`10^{-12}\lambda_1/\delta_j` of its eigenvector,
:math:`\delta_j` its spectral gap (measured on the benchmark's spectra:
axes within 9.4e-11 of the SVD's). Passed explicitly (``solver="krylov"``), the route
is block Krylov with blocks of :math:`\max(2k, k + 10)` columns, as on sparse and
Dask data, and refuses to run past 40 blocks (RuntimeError).

**The accuracy guard.** The rules look only at the shape, so "auto" adds an accuracy guard:
when the eig, gram or krylov route finds
:math:`\lambda_k / \lambda_1 < \sqrt{\varepsilon}` (k capped at
n - 1), the k-th eigenvalue has kept fewer than half its digits, and
the fit is recomputed by the "svd" route (accurate to about
:math:`\varepsilon \sigma_1` in each singular value). ``solver_``
records the route that finally ran. The guard never replaces a solver
passed explicitly; a forced "krylov" runs the eig route only on data with
n >= p whose varying columns are at most k, where a Krylov space has
nothing to find.

**Sparse and Dask data.** Sparse (``scipy.sparse``, never densified) and Dask input (chunked by rows,
out of core or distributed; Dask is imported only when such an array comes
in): "auto" and "eig" form the p x p covariance in one pass (each block or
chunk reduced to its count, mean and scatter, merged exactly by the update of
Chan, Golub and LeVeque) up to 4096 features, and beyond take the
"randomized" route: the k leading eigenpairs of :math:`X_c^\top X_c` with
implicit centering (:math:`X_c` never formed), by the Lanczos method
(ARPACK) for sparse data, whose products are cheap, and by block Krylov
for Dask (one pass per block); both stopped by a residual test of
:math:`10^{-10}\lambda_1` (each eigenvalue then within
:math:`10^{-10}\lambda_1`, each axis within an angle of about
:math:`10^{-10}\lambda_1 / \delta_j`, :math:`\delta_j` its spectral gap),
and deterministic (the sparse one deflates the pairs found and probes for
missed copies of a repeated eigenvalue); "krylov" is the same route. Past 4096
features, where no exact route fits a Dask array, the guard of "auto" warns when the
block Krylov route finds :math:`\lambda_k / \lambda_1 < \sqrt{\varepsilon}` (its
smallest eigenvalues are then round-off). "svd" is
TSQR for Dask (the accuracy guard of "auto" there) and, for sparse data, Householder QR of
dense blocks (:math:`R^\top R` is :math:`Y_c^\top Y_c` if n >= p, :math:`Y_c
Y_c^\top` if n < p; the singular values of R are those of :math:`Y_c`); "gram"
(sparse only) the n x n matrix :math:`Y_c Y_c^\top` from the sparse product
:math:`X X^\top`, with the axes :math:`Y_c^\top u_j / \sigma_j`. Both keep a
:math:`\min(n, p)^2` dense matrix and are refused beyond 4096. Dense
columns of sparse data whose mean exceeds their spread are shifted by it
first (stored in full), so no route cancels at large offsets.
"randomized" without an integer `n_components` (all components, or a
fraction of variance) takes the one-pass covariance route up to 4096
features (``solver_`` says "eig").

For sparse data "auto" takes the route of least estimated time, a cost
model that counts the stored entries :math:`r_i` of each row and
:math:`c_j` of each column (nnz in all):

.. math::

    t_\text{eig} &= a \Big(\sum_i r_i^2 + p^2\Big) + e\, p^3, \qquad
    t_\text{gram} = a \Big(\sum_j c_j^2 + n^2\Big) + e\, n^3
    + b\, \mathrm{nnz}\, k, \\
    t_\text{Lanczos} &= (16 k + 20)\,\big(b\, \mathrm{nnz}
    + v\, p \max(2k + 1, 30)\big),

in multiplications of the sparse product :math:`X^\top X` or :math:`X X^\top`
(a = 1 per multiplication and per entry of its dense result), with the weights
:math:`e = 1/150` per :math:`m^3` of a dense eigensolve, :math:`b = 0.08` per
stored entry of a Lanczos product and :math:`v = 7/150` per entry of ARPACK's
Lanczos vectors (the ratios of their times, measured on 2 cores, 1e-10, 1.2e-9 and
7e-10 s, to the sparse product's 1.5e-8 s); "eig" only up to 4096 features, "gram" up to 4096
samples, Lanczos (an integer k < p only) when estimated at least twice as
fast as the better exact route. For example, 1000 x 200,000 with 200,000
stored entries: "gram", 1.6 s at k = 100 and 3.7 s at k = 300, where
Lanczos took 45 s and 209 s. Its accuracy guard: when the eig, gram or
Lanczos route finds :math:`\lambda_k / \lambda_1 < \sqrt{\varepsilon}` and
:math:`\min(n, p) \le 4096`, the fit is recomputed by the QR route
("svd"); beyond, a ``RuntimeWarning`` says that the smallest eigenvalues
are round-off.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ._estimator.n_components import SOLVERS, components_to_compute, cut_to_request
from ._linalg import constants
from ._linalg.certificate import certify, probe_generator
from ._linalg.rounding import product_rounding
from ._routes.decomposition import Decomposition
from ._routes.dense import decompose_matrix
from ._routes.dense_krylov import dense_krylov_block, lanczos_products
from ._utils.validation import check_random_state, warn_outside_pcalib

__all__ = [
    "SOLVERS",
    "certified",
    "components_to_compute",
    "cut_to_request",
    "dense_route",
    "fit_by_route",
    "implicit_route",
    "krylov_budget",
    "krylov_run_blocks",
    "sparse_route_costs",
    "tol_blocks",
]


def sparse_route_costs(n: int, p: int, k: int, rows: np.ndarray, columns: np.ndarray) -> dict[str, float]:
    r"""Estimated cost of each route for a sparse n x p matrix with ``rows[i]``
    entries stored in row i and ``columns[j]`` in column j (nnz in all), k components:

    .. math::

        t_\text{eig} &= a \Big(\sum_i r_i^2 + p^2\Big) + e\, p^3, \qquad
        t_\text{gram} = a \Big(\sum_j c_j^2 + n^2\Big) + e\, n^3 + b\, \mathrm{nnz}\, k, \\
        t_\text{Lanczos} &= (16 k + 20)\, \big(b\, \mathrm{nnz} + v\, p\, \max(2k + 1, 30)\big)

    in units of a = 1 per multiplication of the sparse product :math:`X^\top X` or
    :math:`X X^\top` and per entry of its dense result, with the weights e per
    :math:`m^3` of the eigensolver (``constants.EIGH_COST``), b per stored entry of a
    Lanczos product (``constants.LANCZOS_ENTRY_COST``) and v per entry of ARPACK's
    Lanczos vectors (``constants.LANCZOS_VECTOR_COST``), about 16 products per
    component as measured. "eig" only up to
    ``constants.SCATTER_MAX_FEATURES`` features, "gram" up to as many samples (their dense
    matrices), Lanczos for k < p."""
    costs = {}
    nnz = float(rows.sum())
    if p <= constants.SCATTER_MAX_FEATURES:
        costs["eig"] = float(rows @ rows) + p * p + constants.EIGH_COST * p**3
    if n <= constants.SCATTER_MAX_FEATURES:
        costs["gram"] = (float(columns @ columns) + n * n + constants.EIGH_COST * n**3
                         + constants.LANCZOS_ENTRY_COST * nnz * k)
    if k < p:
        vectors = p * max(2 * k + 1, 30)
        costs["randomized"] = (16 * k + 20) * (constants.LANCZOS_ENTRY_COST * nnz + constants.LANCZOS_VECTOR_COST * vectors)
    return costs


def krylov_budget(n: int, p: int, k: int, keep_moments: bool = True) -> int:
    r"""The budget of the dense "krylov" route of "auto" on an n x p matrix for k
    components, in the cost model's unit, blocks of b = k + 2 columns (the route itself
    spends it on single-vector products, :func:`krylov_run_blocks`):
    :math:`\lfloor s\, t_\text{exact} / t_\text{block} \rfloor` with

    .. math::

        t_\text{exact} = a\, n p m + v\, (8k + 40)\, m^2, \qquad t_\text{block} = 4 c\, n p b,

    m = min(n, p), b = k + 2 the block width, in flops of the syrk
    (a = 1; its triangle is n p m / 2 multiply-adds),
    v and c the weights of one Lanczos product with the formed matrix per :math:`m^2`
    (``pcalib._linalg.eigen.top_eigh`` above order ``constants.NUMPY_MAX_M`` for
    :math:`40k \le m`; 8k + 40 products, more than the benchmark's fits need; where
    LAPACK solves it instead, :math:`e\, m^3`) and of a flop of a thin product relative
    to one of those (``constants.FORMED_PRODUCT_COST``, ``constants.EIGENSOLVER_COST``,
    ``constants.THIN_PRODUCT_COST``), and :math:`s = 1/2` (``constants.KRYLOV_SHARE``;
    1 with `keep_moments` False, ``PCA(tol=...)``, whose tolerance stops it early): on
    square-ish data the route is tried when half of what the exact route would cost
    allows ``constants.KRYLOV_MIN_BLOCKS`` blocks (then it may spend all of it,
    :func:`krylov_run_blocks`), and a run that will not converge is stopped as soon as
    the decay of its residual predicts it (``pcalib._linalg.lanczos``), so that a
    failure costs at most about twice the exact route.
    0 when p <= ``constants.KEPT_MOMENTS_MAX_FEATURES`` and `keep_moments`: there the eig route
    keeps the scatter matrix for a later ``partial_fit``, and costs little (with
    ``PCA(tol=...)`` the fit is not exact, and keeps no moments)."""
    m = min(n, p)
    if p <= constants.KEPT_MOMENTS_MAX_FEATURES and keep_moments:
        return 0
    if m > constants.NUMPY_MAX_M and 40 * k <= m:  # the formed matrix solved by Lanczos
        solve = constants.FORMED_PRODUCT_COST * (8 * k + 40) * m**2
    else:  # by LAPACK
        solve = constants.EIGENSOLVER_COST * m**3
    exact = n * p * m + solve
    block = constants.THIN_PRODUCT_COST * 4 * n * p * dense_krylov_block(k, m)
    share = constants.KRYLOV_SHARE if keep_moments else 1.0  # a tolerance stops it early
    return int(share * exact / block)


def krylov_run_blocks(n: int, p: int, k: int) -> int:
    r"""What a Krylov run of "auto" may spend on an n x p array for k components once
    it is tried: the whole estimated cost of the exact route, :math:`\lfloor t_\text{exact}
    / t_\text{block} \rfloor` blocks (:func:`krylov_budget` with s = 1), twice the
    budget that decides whether to try on square-ish data. The run is single-vector
    Lanczos, which spends it as ``pcalib._routes.dense_krylov.lanczos_products``
    products of the same cost, and gives up as soon as the decay of its residual
    predicts it will not converge within them (``pcalib._linalg.lanczos``): the products
    it has spent are sunk, and a run forecast to converge within the exact route's cost
    is cheaper to finish than to abandon. Measured when block Krylov ran this budget, at
    5000 x 5000, k = 10 (tests/benchmarks.py's decaying spectrum, one thread, CPU):
    with half the cost as its limit the run gave up after 10 of 20 blocks (a forecast of
    35) and the formed matrix took over, 2.96 s; with the whole cost it converged after
    35 of the 44 blocks allowed, 2.07 s. Lanczos needs 53 products there, of the 186
    allowed. A run that does not converge costs at most about twice the exact route."""
    return krylov_budget(n, p, k, keep_moments=False)


def lanczos_room(n: int, p: int, k: int) -> bool:
    r"""Whether the run budget of "auto" (:func:`krylov_run_blocks`), spent on
    single-vector Lanczos products (``pcalib._routes.dense_krylov.lanczos_products``),
    allows :math:`5k + 20` of them, the least that the route needed on
    tests/benchmarks.py's spectra (20000 x 2000, decaying: 20 products for k = 5, 35
    for k = 10, 425 for k = 50; flat: 80, 95, 160; 2500 x 2500 to 10000 x 4000, k = 50:
    155-480). Below it the route is not tried: at 2500 x 2500, flat spectrum, k = 50
    (220 products allowed), Lanczos converged after 196 products and its probe, but took
    0.82 s against about 0.5 s for the formed matrix (its Ritz solves and
    reorthogonalization grow with k and the space, which the model does not count);
    at 10000 x 4000, k = 50 (165 allowed) it gave up after 85. At 20000 x 2000 it
    allows 59 products at k = 5 and 10, so only k = 5 enters."""
    products = lanczos_products(krylov_run_blocks(n, p, k), dense_krylov_block(k, min(n, p)))
    return products >= 5 * k + 20


def tol_blocks(n: int, p: int, k: int) -> int:
    r"""The budget of the Krylov stage for ``PCA(k, tol=...)`` with solver "auto" on an
    n x p array: the run budget of an exact fit, :func:`krylov_run_blocks` (the whole
    estimated cost, without the moments' exception: a fit with a tolerance keeps none),
    when it allows at least ``constants.KRYLOV_MIN_BLOCKS`` blocks, else 0. With 0 no
    Krylov product is taken: the formed matrix
    (:math:`Y_c^\top Y_c` if n >= p, else :math:`Y_c Y_c^\top`) is solved at once,
    which the cost model predicts cheaper than a Krylov attempt that would mostly give
    up (at 10000 x 1000, k = 50, the budget is two blocks, and both were spent before
    the formed matrix took over). With a budget, the stage (block Krylov, whose few
    blocks hold every pair at a loose tolerance, where an exact fit runs single-vector
    Lanczos: ``pcalib._routes.dense_krylov.krylov_stage``) stops as soon as the
    decay of its residual predicts that it will not reach the tolerance within it
    (``pcalib._linalg.eigen.krylov_top_operator``)."""
    blocks = krylov_run_blocks(n, p, k)
    return blocks if blocks >= constants.KRYLOV_MIN_BLOCKS else 0


def dense_route(solver: str, n: int, p: int, k: int, every_component: bool, tol: float | None = None) -> str:
    """The route for a NumPy array of n samples and p features, k components
    (`every_component`: all of them are wanted, or as many as a fraction of variance
    needs): `solver` itself unless it is "auto", else rules 1 to 3 above. With a
    tolerance `tol` (``PCA(tol=...)``) and k < min(n, p), beyond the small shapes:
    "krylov" for n and p within a factor 4 of each other (its budget,
    :func:`tol_blocks`, decides whether the Krylov stage runs at all; a stage that
    gives up leaves the formed matrix, which certifies the fit without random
    probes); on tall and wide data, the exact fit's route: the one ``syrk`` of "eig"
    or "gram", which costs less than a Krylov stage at any tolerance there
    (tests/benchmarks.py, 1000 x 10000, 10000 x 1000 and 100 x 50000: the Krylov
    attempts took 1.3 to 2.3 times the exact fit's time, one thread), or "krylov"
    where the exact fit runs Lanczos on tall data above
    ``constants.KEPT_MOMENTS_MAX_FEATURES`` features (forming the p x p matrix there
    instead doubled the time: 8000 x 2000, k = 5, decaying spectrum, one thread, CPU:
    exact "krylov" 0.43 s, tol = 1e-2 "eig" 0.84 s, "krylov" 0.51 s; 20000 x 2000:
    1.03, 1.78 and 1.38 s)."""
    if solver != "auto":
        return solver
    m = min(n, p)
    if n * p * m <= constants.SMALL_WORK:
        return "svd"
    if every_component or k == m:
        return "eig" if n >= constants.ASPECT * p else "gram" if p >= constants.ASPECT * n else "svd"
    square_ish = n < constants.ASPECT * p and p < constants.ASPECT * n  # tall and wide data keep their one syrk
    if tol is not None and square_ish:
        return "krylov"  # its stage within tol_blocks
    tall = n >= constants.ASPECT * p and p > constants.KEPT_MOMENTS_MAX_FEATURES  # Lanczos only
    if (tall or square_ish and krylov_budget(n, p, k) >= constants.KRYLOV_MIN_BLOCKS) and lanczos_room(n, p, k):
        return "krylov"
    return "eig" if n >= p or (p <= constants.KEPT_MOMENTS_MAX_FEATURES and p < constants.ASPECT * n) else "gram"


def implicit_route(solver: str, n: int, p: int, k: int, every_component: bool, data: Any) -> str:
    """The route for sparse or Dask data (`data`, ``pcalib._inputs.matrix``), as its route
    table (``data.routes``, a ``pcalib._inputs.route_table.RouteTable``) allows: the
    covariance from the one-pass moments up to ``constants.SCATTER_MAX_FEATURES`` features,
    the implicit Krylov route beyond (and for solver="randomized" or "krylov" with an
    integer k); "auto" by the table's rule: "least_cost" (sparse data) takes the route of
    least estimated cost (:func:`sparse_route_costs`), "one_pass" (Dask) the covariance
    route wherever it fits.

    Raises
    ------
    ValueError
        For a solver the table does not run ("gram" on Dask data), one that keeps a
        dense min(n, p) x min(n, p) matrix ("gram" or "svd" on sparse data) with min(n, p)
        above ``constants.SCATTER_MAX_FEATURES``, and every component beyond that many
        features.
    """
    table = data.routes
    if solver != "auto" and solver not in table.runs:
        raise ValueError(f"solver={solver!r} {table.refusal}")
    if solver in table.square and min(n, p) > constants.SCATTER_MAX_FEATURES:
        raise ValueError(
            f"solver={solver!r} on {table.label} data keeps a {min(n, p)} x {min(n, p)} dense "
            f"matrix (at most {constants.SCATTER_MAX_FEATURES} allowed): {table.square_instead}"
        )
    route = solver
    if solver == "auto" and table.auto == "least_cost":
        costs = sparse_route_costs(n, p, k, *data.stored_per_row_and_column())
        exact = {name: cost for name, cost in costs.items() if name != "randomized"}
        route = min(exact, key=lambda name: exact[name]) if exact else "randomized"
        if not every_component and k < p and (not exact or constants.SPARSE_EXACT_PREMIUM * costs["randomized"] < exact[route]):
            route = "randomized"
    elif solver in ("auto", "eig"):
        route = "eig" if p <= constants.SCATTER_MAX_FEATURES else "randomized"
    if route in ("randomized", "krylov") and every_component:
        # the Krylov route finds k leading components; all of them, or as many as a
        # fraction of variance needs, come exactly from the one-pass covariance
        if p <= constants.SCATTER_MAX_FEATURES:
            return "eig"
        raise ValueError(
            f"the {table.label} route for p = {p} > {constants.SCATTER_MAX_FEATURES} features computes only "
            "the k leading components: pass an integer n_components"
        )
    return route


def fit_by_route(
    data: Any,
    k: int,
    solver: str,
    *,
    every_component: bool,
    ddof: int,
    standardize: bool,
    need_scores: bool,
    random_state: int | np.random.Generator | None,
    truncate: Callable[[Decomposition], Decomposition],
    tol: float | None = None,
) -> tuple[Decomposition, str]:
    """The principal axes of `data` (``pcalib._inputs.matrix.as_matrix``) by the route that
    `solver` names, or for "auto" by the one :func:`dense_route` or :func:`implicit_route`
    chooses (as the rule of the data's route table, ``data.routes.auto``, says), then cut
    by `truncate` (a fraction of variance or Minka's rule), then, for "auto", checked by the accuracy guard above and recomputed by the "svd" route when
    it fails. Returns the decomposition and the route that computed it (for dense
    "auto", "krylov" only when it converged within :func:`krylov_run_blocks`, else the
    eig or gram route that finished). With `tol`, the Krylov routes stop at the
    residual test ``tol * theta_1`` and the decomposition carries the error bounds it
    certifies (``certified``)."""
    n, p = data.shape
    table = data.routes  # what the kind of data runs (pcalib._inputs.route_table.RouteTable)
    if table.auto == "shape":
        route = dense_route(solver, n, p, k, every_component, tol)
    else:
        route = implicit_route(solver, n, p, k, every_component, data)
    budget = {}
    if solver == "auto":
        budget["max_blocks"] = krylov_run_blocks(n, p, k) if tol is None else tol_blocks(n, p, k)

    def run(route: str) -> Decomposition:
        rng = check_random_state(random_state) if route == "randomized" else None
        found = truncate(decompose_matrix(data, k, route, ddof=ddof, standardize=standardize, tol=tol,
                                          need_scores=need_scores, random_state=rng, **budget))
        return found if tol is None else certified(data, found)

    found = run(route)
    if table.reports_route:
        route = found.route
    # the accuracy guard (TSQR for a Dask array, QR of dense blocks for a sparse one)
    if solver == "auto" and route in table.guarded and found.lost_digits(n):
        order, named = (p, "p") if table.svd_order == "features" else (min(n, p), "min(n, p)")
        if order <= constants.SCATTER_MAX_FEATURES or route != "randomized":
            return run("svd"), "svd"
        warn_outside_pcalib(
            f"lambda_{min(k, n - 1)} / lambda_1 < sqrt(eps): the {table.krylov_name} route resolves "
            "eigenvalues to 1e-10 lambda_1 only, so the smallest of these are round-off "
            f"({named} = {order} is too large for the exact route); ask for fewer "
            f"components, or {table.exact_instead}"
        )
    return found, route


def certified(data: Any, found: Decomposition) -> Decomposition:
    r"""`found` with the error bounds of :func:`pcalib._linalg.certificate.certify` on its axes,
    as eigenvectors of :math:`Y_c^\top Y_c` (Y the decomposed matrix, in the frame units
    of `found`), from the route's own products where it kept them
    (``found.copy_products``, then dropped: with its centered copy, or with the data and
    the mean's correction on the implicit Krylov route, each with its rounding bound,
    :meth:`pcalib._routes.decomposition.CenteredProducts.rounding`), else with the data
    (``data.gram_times``, centered exactly, block by block). Where the route formed and solved that matrix
    (or :math:`Y_c Y_c^\top`) whole (``found.formed``), its computed spectrum bounds
    the eigenvalues beyond the axes, at the cost of one product; otherwise random
    vectors do, from a fixed stream of their own
    (:func:`pcalib._linalg.certificate.probe_generator`: the bounds are deterministic,
    and the probes independent of the start vectors that found the axes)."""
    n, p = data.shape
    if found.copy_products is not None:
        times = found.copy_products.scatter_times
        rounding = found.copy_products.rounding(found.total_ss)
    else:
        divisor = found.divisor()

        def times(Q: np.ndarray) -> np.ndarray:
            return data.gram_times(Q, found.center, divisor)

        rounding = product_rounding(found.total_ss, n, p)
    certificate = certify(times, np.ascontiguousarray(found.components.T), probe_generator(), found.formed,
                          rounding)
    return replace(found, certificate=certificate, copy_products=None)
