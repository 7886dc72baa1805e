"""The tuning constants of pcalib: the module-level numbers that steer routes and sizes
(thresholds between routes, fractions, block and stack sizes, the weights of the cost
models), in one place, each with where and how it was measured.

The cost models count operations, each weighted by its cost relative to the model's
unit operation (``*_COST``: ratios of times, not times, so that the route of a shape
is the same on every machine and at every call). Those ratios and the break-even points
were measured on the 2-core machine the book is built on; ``python -m tests.benchmarks`` re-measures the
policy of ``PCA(solver="auto")`` (timings against scikit-learn). A constant whose note
says "not re-measured since <commit>" was set for memory or by a rule, not timed, or
its timing is no longer known; its value dates from that commit.

Rule: every module reads these at call time as ``constants.NAME`` (``from .._linalg
import constants``) and never imports a name from here, so that a test's
``monkeypatch.setattr(constants, "NAME", value)`` changes what every user of the
constant reads (an imported name would be a copy the patch does not reach).

Not here: tolerances that are accuracy contracts (``KRYLOV_RTOL``, ``CA_RTOL``, ...),
parameters that define an algorithm's result (MCD's starts, the robust directions,
oversampling and block widths of the randomized and Krylov routes, the median
heuristic's rows), the ranges of the exact power-of-two units, and the internal stopping
rules of the Krylov solver (``pcalib._linalg.eigen``): they stay beside the code they
define.
"""

# -- The routes of PCA(solver="auto") (pcalib.solvers) -----------------------------------
#: [SMALL_WORK, read by pcalib.solvers: measured as said here; value since caf9984 (2026-11-22), not re-measured since.]
#: [ASPECT, read by pcalib.solvers: measured as said here; value since caf9984 (2026-11-22), not re-measured since.]
#: Thresholds of the "auto" rule (pcalib.solvers' docstring), measured on 2 cores with
#: tests/benchmarks.py data, k = 10:
#: - full SVD of n x p with n * p * min(n, p) = 1.2e6 (500 x 50): 4 ms; at 2e7
#:   (2000 x 100): 50 ms, against 3 ms for the covariance route;
#: - n >= 4p: Marchenko-Pastur bound on the conditioning of pure noise (pcalib.solvers' docstring);
#: - 20000 x 3000: exact covariance route 2.5 s, randomized 2.5 s; 20000 x 5000:
#:   7.5 s against 4.8 s. Exact while it costs at most about 1.6 times the randomized.
SMALL_WORK = 1e6
ASPECT = 4

#: [EIGENSOLVER_COST, read by pcalib.solvers: a ratio of the times measured as said here; times since 8215fef (2026-11-26), not re-measured since.]
#: [FORMED_PRODUCT_COST, read by pcalib.solvers: a ratio of the times measured as said here; times since 32b16cc (2026-11-29), not re-measured since.]
#: [THIN_PRODUCT_COST, read by pcalib.solvers: a ratio of the times measured as said here; times since 85255df (2026-11-26), not re-measured since.]
#: [KRYLOV_SHARE, read by pcalib.solvers: measured as said here; value since 32b16cc (2026-11-29), not re-measured since.]
#: [KRYLOV_MIN_BLOCKS, read by pcalib.solvers: measured as said here; value since 85255df (2026-11-26), not re-measured since.]
#: The dense Krylov route of "auto" (rule 3 of pcalib.solvers' docstring) is costed in
#: operations, not in seconds: in flops of the syrk that forms X_c^T X_c or X_c X_c^T
#: (the unit: n p m of them, as it fills one triangle with n p m / 2 multiply-adds),
#: each other operation weighted by what it costs relative to one
#: of those. The choice depends only on ratios of costs, so a count chooses the same
#: route on every machine and at every call; a timing taken at first use would make the
#: route, and with it the last digits of a result, depend on the machine's load at that
#: moment. The weights are ratios of times measured on one core (OpenBLAS; CPU times,
#: which a shared machine's load moves less than wall times): the syrk, about 3.5e-11 s
#: per unit (0.61 s at 2500 x 2500, 0.67 s at 5000 x 2000); a Lanczos product
#: with the formed m x m matrix (top_eigh), one dsymv bound by memory, 1.7 ms at
#: m = 2000 and 2.9 ms at 2500, so FORMED_PRODUCT_COST = 12 per m^2, with 8k + 40
#: products (ARPACK needed 21 to 200 on the benchmark's spectra, k = 5 to 50, its
#: deflation probe included); a Krylov block, the two products X_c^T (X_c Q) and the
#: block's share of the orthogonalization and Rayleigh-Ritz steps, about 3 syrk
#: units per flop of 4 n p b (b = k + 3 columns then, k + 2 now: at 2500 x 2500,
#: 25 ms for the products of 13 columns and 40% more for the rest), so THIN_PRODUCT_COST = 3.
#: Where LAPACK solves the formed matrix (order 512 or less, or k > m / 40), its solve
#: costs EIGENSOLVER_COST per m^3 (measured on 2 cores: 4e-11 s per m^3 against 1.1e-11 s
#: per unit of the syrk, 0.5 s at m = 2500).
#: A machine whose memory is slower than its arithmetic has a larger FORMED_PRODUCT_COST;
#: the weights are what to re-measure there.
#: The Krylov route is tried on square-ish data only when KRYLOV_SHARE of the exact
#: route's estimated cost allows KRYLOV_MIN_BLOCKS blocks; once tried, it may spend the
#: whole estimated cost (pcalib.solvers.krylov_run_blocks). Half for the decision: once
#: the formed matrix is solved by Lanczos instead of LAPACK's O(m^3) solve, the exact
#: route costs little more than its syrk, and block Krylov saved time only where it
#: converged in few blocks (measured on one core, when block Krylov ran the route:
#: 2500 x 2500, k = 5, 0.39 s against 0.89 s for the eig route; k = 10, 32 blocks,
#: 1.59 s against 1.05 s). Tall and wide data keep their syrk for block Krylov
#: (measured at 20000 x 2000 and 2000 x 20000 before the Lanczos solve came in: block
#: Krylov saved 0.1-0.3 s at k = 5 and cost 0.3-0.7 s more where it gave up); tall data
#: enter by the rule of VECTOR_PRODUCT_COST below, since single-vector Lanczos runs
#: the route.
EIGENSOLVER_COST = 40 / 11
FORMED_PRODUCT_COST = 12.0
THIN_PRODUCT_COST = 3.0
#: [VECTOR_PRODUCT_COST, read by pcalib._routes.dense_krylov: a ratio of the times measured as said here; times since issue 35 (2026-11-29), not re-measured since.]
#: The dense Krylov route of "auto" runs Lanczos with single vectors first
#: (pcalib._linalg.lanczos), within the cost of its block budget: a product X_c^T (X_c q)
#: is two gemv's, VECTOR_PRODUCT_COST units per multiply-add of the gemv's (2 n p of
#: them). Measured
#: on one core against 1.4e-11 to 1.7e-11 s per unit of the syrk (2.4e-11 s at
#: 2500 x 2500): 4.0e-10 s at 2500 x 2500 (a ratio of 17), 3.4e-10 to 3.8e-10 s at
#: 10000 x 1000 and 5000 x 2000 (23 and 26), 5.5e-10 s from 200 MB on (5000 x 5000 to
#: 20000 x 2000: 33 to 41). 17, the smallest: the model underestimates the exact route
#: where it is cheap (2500 x 2500, k = 10: its 2.5e10 units are 81 products at
#: 24, but the route took the time of 145 products on 2 cores, and Lanczos needed 100 on
#: a flat spectrum), so a run is never stopped before the exact route's time is spent;
#: on the larger matrices it allows about twice the products of their cost, and the
#: forecast stops a run that will not converge.
#: The route is tried only when this budget allows 5k + 20 products
#: (pcalib.solvers.lanczos_room); tall data (n >= ASPECT p, p above
#: KEPT_MOMENTS_MAX_FEATURES), which keep their syrk for block Krylov, need only that.
VECTOR_PRODUCT_COST = 17.0
KRYLOV_SHARE = 0.5
KRYLOV_MIN_BLOCKS = 4

#: [SCATTER_MAX_FEATURES, read by pcalib.solvers: a size or rule set without a timing; not re-measured since e9a947d (2026-11-23).]
#: Sparse and Dask data: the p x p covariance from one pass up to this many features
#: (134 MB per p x p matrix, one per chunk being reduced), the implicit route beyond
#: (Lanczos for sparse data, block Krylov for Dask).
SCATTER_MAX_FEATURES = 4096

#: [EIGH_COST, read by pcalib.solvers: a ratio of the times measured as said here; times since 3bb5d1b (2026-11-24), not re-measured since.]
#: [LANCZOS_ENTRY_COST, read by pcalib.solvers: a ratio of the times measured as said here; times since 3bb5d1b (2026-11-24), not re-measured since.]
#: [LANCZOS_VECTOR_COST, read by pcalib.solvers: a ratio of the times measured as said here; times since 3bb5d1b (2026-11-24), not re-measured since.]
#: [SPARSE_EXACT_PREMIUM, read by pcalib.solvers: measured as said here; value since 3bb5d1b (2026-11-24), not re-measured since.]
#: Sparse data, solver="auto": the cost model of pcalib.solvers' docstring, counted in
#: multiplications of the sparse product X^T X or X X^T (the unit; one per
#: multiplication and one per entry of its dense result), each other operation weighted
#: by its cost relative to one of those (for the reason given above for dense data).
#: The weights are ratios of times measured on 2 cores with tests/benchmarks.py-like
#: random CSR matrices: the sparse product, about 1.5e-8 s per unit (0.07 s for
#: 100,000 x 2000 at 0.1%, 0.32 s for 2000 x 50,000 at 1%); a dense m x m eigensolve,
#: 1e-10 s per m^3 (0.11 s at m = 1000, 0.7 s at 2000), so EIGH_COST = 1 / 150; a
#: Lanczos product, 1.2e-9 s per stored entry (LANCZOS_ENTRY_COST = 0.08) and 7e-10 s
#: per entry of ARPACK's ncv vectors of length p (LANCZOS_VECTOR_COST = 7 / 150)
#: (0.5 s for the benchmark's 160 products of 100,000 x 20,000 with 2,000,000 stored
#: entries; 45 s for 1000 x 200,000 with 200,000, k = 100, where the vectors dominate).
#: Lanczos is taken only if estimated at least SPARSE_EXACT_PREMIUM times cheaper than
#: the best exact route.
EIGH_COST = 1 / 150
LANCZOS_ENTRY_COST = 0.08
LANCZOS_VECTOR_COST = 7 / 150
SPARSE_EXACT_PREMIUM = 2.0

# -- The dense eigensolver top_eigh (pcalib._linalg.eigen) -------------------------------
#: [FORMED_LANCZOS_MAX_FRACTION, read by pcalib._linalg.eigen: measured as said here; value since 32b16cc (2026-11-29), not re-measured since.]
#: Above NUMPY_MAX_M, top_eigh first tries ARPACK's Lanczos method on the formed matrix
#: (one dsymv of its lower triangle a product), for k <= m / 40, with at most this many
#: products per row of the matrix, then LAPACK's partial ?syevr. Measured on one core
#: (covariances of tests/benchmarks.py data): a dsymv takes 0.25 ms at m = 1000, 1.7 ms at
#: 2000, 2.9 ms at 2500, where ?syevr for k = 10 takes 0.34 s, about 4.5 s and 6 s: so
#: 0.2 m products cost at most about a sixth of LAPACK's solve, and the fits of the
#: benchmark need 20-200 (k = 5 to 50; decaying and flat spectra).
FORMED_LANCZOS_MAX_FRACTION = 0.2

#: [CERTIFIED_LAPACK_MAX_M, read by pcalib._linalg.eigen: the order up to which top_eigh took LAPACK before the Lanczos step above (DENSE_MAX_M, bde150c), kept for PCA(tol=...) only.]
#: Up to this order a fit with a tolerance, which asks top_eigh_and_next for the
#: (k + 1)-th eigenvalue, has the formed matrix solved by LAPACK (?syevr, k + 1 pairs)
#: even where Lanczos would be cheaper: LAPACK's computed spectrum bounds the eigenvalue
#: past the axes deterministically (pcalib._linalg.certificate), while Lanczos's Ritz
#: values bound none, and the certificate would fall back to random probes (products
#: with the data). The order is the one up to which every fit took LAPACK before the
#: Lanczos step, so tol fits there keep the certificate chapter 11 describes; the
#: trade between ?syevr's k + 1 pairs (0.90 s for 51 at m = 1000, one core) and the
#: probes' products has not been measured.
CERTIFIED_LAPACK_MAX_M = 1200

#: [NUMPY_MAX_M, read by pcalib._linalg.eigen: measured as said here; value since aee7069 (2026-11-23), not re-measured since.]
#: Up to this order top_eigh solves with NumPy's LAPACK (?syevd, every eigenpair; 0.006 s
#: at m = 200, 0.04 s at 500), whose BLAS formed the matrix in the routes that call it
#: (pcalib._linalg.moments.gram_and_sums): measured on 2 cores, SciPy's ?syevr at m = 500 takes
#: 0.015 s alone but 0.11 s right after a NumPy product, while NumPy's threads still spin.
NUMPY_MAX_M = 512

#: [KRYLOV_MAX_FRACTION, read by pcalib._kernel.algebra: measured as said here; value since 346915b (2026-11-22), not re-measured since.]
#: Largest Krylov subspace of the kernel's exact fit, as a fraction of n: block Krylov's time
#: reaches LAPACK's at about m/5 columns (measured, k = 10: at m = 2000, 0.26 s for
#: 400 columns against 0.25 s for ?syevr; at m = 3000, 0.85 s for 600 against 1.24 s).
KRYLOV_MAX_FRACTION = 0.2

# -- The covariance routes (pcalib._routes.decomposition) --------------------------------
#: [KEPT_MOMENTS_MAX_FEATURES, read by pcalib._routes.decomposition: a size or rule set without a timing; not re-measured since cf92881 (2026-11-24).]
#: The covariance routes keep the p x p scatter matrix of the data for a later
#: PCA.partial_fit when p is at most this (8 MB).
KEPT_MOMENTS_MAX_FEATURES = 1024

# -- Streaming PCA (pcalib._estimator.streaming) -----------------------------------------
#: [PARTIAL_FIT_MAX_FEATURES, read by pcalib._estimator.streaming: a size or rule set without a timing; not re-measured since e9a947d (2026-11-23).]
#: partial_fit keeps a p x p state: refused beyond this many features (512 MB).
PARTIAL_FIT_MAX_FEATURES = 8192

# -- Moments and Gram matrices (pcalib._linalg.moments) ----------------------------------
#: [SHIFT_HEAD_ROWS, read by pcalib._linalg.moments: a size or rule set without a timing; not re-measured since b5c641d (2026-11-24).]
#: Rows from which Moments.of_rows chooses its shift: enough for a mean within a thirtieth
#: of a standard deviation (256 rows misjudged columns whose mean is 0.9 of it), few
#: enough to cost little against the pass (0.3 ms of 18 for a batch of 10,000 x 200).
SHIFT_HEAD_ROWS = 1024

#: [SHIFT_HEAD_COLUMNS, read by pcalib._linalg.moments: a size or rule set without a timing; not re-measured since f484f97 (2026-11-26).]
#: Their variances are taken this many columns at a time, so that the temporary of the
#: deviations stays at SHIFT_HEAD_ROWS x 256 (2 MiB) however wide the data (at 1024 x 20000,
#: 164 MB in one piece).
SHIFT_HEAD_COLUMNS = 256

#: [PARALLEL_MIN_ENTRIES, read by pcalib._linalg.moments: a size or rule set without a timing; not re-measured since 6410091 (2026-11-23).]
#: Below this many entries shifted_gram runs on one thread (the threads would cost more
#: than they save).
PARALLEL_MIN_ENTRIES = 2**22

# -- Sparse input (pcalib._inputs.sparse) ------------------------------------------------
#: [SPARSE_SUMS_CHUNK, read by pcalib._inputs.sparse: a size or rule set without a timing; not re-measured since c3d0cef (2026-11-24).]
#: Stored entries per run in SparseMatrix's column sums (8 MiB of float64 temporaries).
SPARSE_SUMS_CHUNK = 2**20

#: [SPARSE_PARALLEL_MIN_STORED, read by pcalib._inputs.sparse: measured as said here; value since e9186dc (2026-11-24), not re-measured since.]
#: Stored entries per thread below which a sparse product is not split further. Measured
#: (fit, k = 10, 2 cores, split in two from 65,536 entries): 0.79x the serial time at
#: 100,000 stored entries, 0.6x at 400,000, 0.5x at 2,000,000, equal at 50,000 (the
#: hand-off costs what the split saves).
SPARSE_PARALLEL_MIN_STORED = 2**15

# -- Null spectra (pcalib._linalg.spectra) -----------------------------------------------
#: [STACK_ENTRIES, read by pcalib._linalg.spectra: a size or rule set without a timing; not re-measured since f215913 (2026-11-24).]
#: Null and bootstrap data sets are processed in stacks of at most this many entries
#: (8 MB of float64): large enough that NumPy's stacked products and eigensolvers run
#: at full speed, small enough that the stack stays in memory.
STACK_ENTRIES = 2**20

# -- The bootstrap (pcalib.bootstrap) ----------------------------------------------------
#: [BOOTSTRAP_STACK_ENTRIES, read by pcalib.bootstrap: measured as said here; value since f215913 (2026-11-24), not re-measured since.]
#: Resamples are processed in stacks of at most this many entries (8 MB of float64; the
#: stack's Gram matrices, axes and aligned axes are a few times that): measured at
#: 300 x 300, B = 300, peak 260 MB with 2**20 (216 MB of them the kept samples), 696 MB with
#: 2**22 and three copies of the samples; the same results, 10.6 s against 12.1 s.
BOOTSTRAP_STACK_ENTRIES = 2**20

#: [BOOTSTRAP_STACKED_MAX_ORDER, read by pcalib.bootstrap: measured as said here; value since 38a4593 (2026-11-28), not re-measured since.]
#: Up to this order (min(n, p)) every eigenpair of a stack of resamples is computed by
#: NumPy's stacked ``eigh`` in one call; above it, k eigenpairs a resample by SciPy's
#: partial solver. Measured on one core, 200 resamples, k = 3: 20 against 115 us a
#: resample at order 8, 270 against 250 us at 32, 900 against 615 us at 64.
BOOTSTRAP_STACKED_MAX_ORDER = 32

# -- Principal coordinates (pcalib.principal_coordinates) --------------------------------
#: [PCOA_DENSE_MAX_N, read by pcalib.principal_coordinates: a size or rule set without a timing; not re-measured since d43fed3 (2026-11-21).]
#: Up to this n the eigenproblem is solved densely; above it, when only k axes are
#: wanted, by a block Krylov method (much faster for k << n).
PCOA_DENSE_MAX_N = 500

# -- Distance matrices (pcalib._linalg.distances) ----------------------------------------
#: [DISTANCE_ROW_BLOCK, read by pcalib._linalg.distances: a size or rule set without a timing; not re-measured since d43fed3 (2026-11-21).]
#: Rows per block when validating and squaring D (keeps blocks in cache).
DISTANCE_ROW_BLOCK = 64

# -- Kernels (pcalib._kernel.kernels) ----------------------------------------------------
#: [KERNEL_BLOCK_ENTRIES, read by pcalib._kernel.kernels: a size or rule set without a timing; not re-measured since 0297eb8 (2026-11-24).]
#: Entries of one block of rows of k(X, R) (2**23 float64: 64 MiB), so that transform,
#: the Nyström fit and the pre-images never hold a whole q x n_ref kernel.
KERNEL_BLOCK_ENTRIES = 2**23

#: [KERNEL_FORM_ENTRIES, read by pcalib._kernel.kernels: measured as said here; value since d697113 (2026-11-28), not re-measured since.]
#: Entries of one block of the Gaussian kernel formed at a time (2**24 float64: 128 MiB).
#: Each block costs one call of the threaded dgemm, whose start-up dominates small
#: blocks on a busy machine (measured on 2 shared cores, n = 12000: 8.9 s with blocks of
#: 175 rows, 5.1 s with 700, 4.4 s with 1400 rows or the whole matrix at once).
KERNEL_FORM_ENTRIES = 2**24

# -- Kernel PCA's exact fit (pcalib._kernel.algebra) -------------------------------------
#: [KERNEL_LANCZOS_MAX_FRACTION, read by pcalib._kernel.algebra: measured as said here; value since ceae347 (2026-11-28), not re-measured since.]
#: The iterative routes of the exact fit stop at about the cost of the dense one. Block
#: Krylov: ``KRYLOV_MAX_FRACTION * n`` columns (its measured break-even with LAPACK).
#: ARPACK's Lanczos: this many products ``K @ v`` per row of K, as one LAPACK solve of
#: the k leading pairs (``top_eigh``) costs 0.14 n to 0.27 n of them (measured at
#: n = 600, 1000 and 2000, one thread). Convergent fits need far fewer: 45 products at
#: n = 600, k = 3; 52 and 84 at n = 1500, k = 5 and 20 (Gaussian kernels).
KERNEL_LANCZOS_MAX_FRACTION = 0.2

# -- Correspondence analysis (pcalib._categories) ----------------------------------------
#: [CA_SPARSE_DENSITY, read by pcalib._categories.ca_tables: measured as said here; value since 5737f9c (2026-11-28), not re-measured since.]
#: A dense table with at most this share of non-zero entries is fitted as a sparse
#: one: a product with CSR costs about 12 bytes and an indirect load per non-zero,
#: against 8 bytes per entry for the dense array. Measured (2 cores, loaded machine,
#: 6000 x 2000, 20% non-zeros, k = 10, a flat spectrum): 8.2 s by the sparse route
#: against 29 s by the dense one.
CA_SPARSE_DENSITY = 0.25

#: [CA_LAPACK_MAX, read by pcalib._categories.ca_solver: measured as said here; value since a257d1b (2026-11-28), not re-measured since.]
#: Up to this order of the smaller side, LAPACK's SVD of the formed E (every singular
#: value; measured on 2 cores: 0.05 s at 400 x 400, where a Krylov run for k = 10 takes
#: about as long).
CA_LAPACK_MAX = 400

#: [CA_BLOCK_BYTES, read by pcalib._categories.ca_solver: a size or rule set without a timing; not re-measured since a257d1b (2026-11-28).]
#: Rows of E formed at a time (about 8 MB of temporaries at J = 1000).
CA_BLOCK_BYTES = 2**23

#: [CA_KRYLOV_MAX_FRACTION, read by pcalib._categories.ca_solver: measured as said here; value since issue 35 (2026-11-29).]
#: On a dense table, block Krylov on the Gram operator of the smaller side (m) may grow
#: its subspace to this share of m before the fit forms that Gram matrix instead (one
#: dsyrk, then Lanczos on it). Measured on 2 cores (loaded): forming it costs as much
#: as m/30 (20000 x 5000) to m/45 (6000 x 2000) columns of the operator's products,
#: which read the table twice per block; at 20000 x 5000, 13% non-zero, block Krylov
#: converged only at 1280 columns: 90 CPU s, against 21 s for the formed matrix.
CA_KRYLOV_MAX_FRACTION = 1 / 40

#: [CA_LANCZOS_MAX_FRACTION, read by pcalib._categories.ca_solver: measured for KERNEL_LANCZOS_MAX_FRACTION; value since issue 35 (2026-11-29).]
#: Lanczos on CA's formed m x m Gram matrix gives way to LAPACK after this many products
#: per row of it: the break-even measured for a formed kernel matrix (a LAPACK solve of
#: the k leading pairs costs 0.14 m to 0.27 m products; KERNEL_LANCZOS_MAX_FRACTION).
CA_LANCZOS_MAX_FRACTION = 0.2

#: [BURT_MAX_J, read by pcalib._categories.mca_fit: a size or rule set without a timing; not re-measured since a257d1b (2026-11-28).]
#: Up to this many categories the Burt route is taken whatever n (a J x J float64 array
#: of 8 MiB; LAPACK's eigh of it takes about 0.3 s on 2 cores).
BURT_MAX_J = 1024
