"""cos2, contributions and varimax (pcalib.reading), and the correlation circle and
Gabriel biplots of pcalib.plot.

References: FactoMineR 2.7's ``PCA(mtcars)`` (R 4.2.2) and R's ``stats::varimax`` and
``GPArotation::Varimax`` on ``mtcars``, run once and quoted here (the suite does not
need R); otherwise first principles in NumPy (correlations, cosines, least squares).
"""

import numpy as np
import pytest

import pcalib
from pcalib.reading import _varimax_step

CARS = pcalib.datasets.load_mtcars()
X = CARS.data

# R: res <- FactoMineR::PCA(mtcars, graph = FALSE); res$var$coord[, 1:2] (Dim.1, Dim.2)
FM_VAR_COORD = np.array([
    [-0.931950238599, 0.0262509362362], [0.961218786668, 0.0712158913606],
    [0.946486647998, -0.0803009483755], [0.848471029500, 0.4050267952440],
    [-0.756169338275, 0.4472090479575], [0.889721182385, -0.2328699577856],
    [-0.515309301048, -0.7543861439307], [-0.787942796628, -0.3771272727410],
    [-0.603963199678, 0.6991030036617], [-0.531915617608, 0.7527154886801],
    [0.550171099873, 0.6733043371101],
])
# res$var$cos2[, 1:2] and res$var$contrib[, 1:2]
FM_VAR_COS2 = np.array([
    [0.868531247224, 0.000689111653279], [0.923941555843, 0.005071703182287],
    [0.895836974838, 0.006448242310013], [0.719903087901, 0.164046704865626],
    [0.571792068147, 0.199995932575095], [0.791603782384, 0.054228417239083],
    [0.265543675747, 0.569098454154634], [0.620853850759, 0.142224979845078],
    [0.364771546565, 0.488745009728765], [0.282934224256, 0.566580606898909],
    [0.302688239136, 0.453338730371321],
])
FM_VAR_CONTRIB = np.array([
    [13.14283660189, 0.0259996227513], [13.98131954025, 0.1913512401346],
    [13.55603384432, 0.2432869429383], [10.89375734461, 6.1893488809945],
    [8.65250357536, 7.5456840324898], [11.97875056144, 2.0459941199779],
    [4.01827470475, 21.4716222632018], [9.39491899716, 5.3660329268707],
    [5.51981618260, 18.4399520949489], [4.28143292525, 21.3766259320808],
    [4.58035572236, 17.1041019436114],
])
# res$ind$cos2[1:4, 1:2], res$ind$contrib[1:4, 1:2], res$ind$coord[1:4, 1:2]
FM_IND_COS2 = np.array([
    [0.0865668021503, 0.60361619647824], [0.0914912299664, 0.55489949107433],
    [0.8658555795056, 0.00240415392073], [0.0152981449396, 0.87882537955498],
])
FM_IND_CONTRIB = np.array([
    [0.204251964250, 3.5509907667540], [0.187327249941, 2.8327588785761],
    [3.653043675900, 0.0252898041047], [0.045964686540, 6.5835769099349],
])
FM_IND_COORD = np.array([
    [-0.657213203077, 1.735445719347], [-0.629395505765, 1.550033440236],
    [-2.779397042601, -0.146456616151], [-0.311770708644, -2.363019032998],
])
FM_EIG = np.array([6.608400252799, 2.650467892824, 0.627197271383, 0.269597436254, 0.223451103542])
# R: varimax(L3, eps = 1e-14)$loadings with
#    L3 <- prcomp(mtcars, scale. = TRUE)$rotation[, 1:3] %*% diag(sdev[1:3])
R_VARIMAX_TIGHT = np.array([
    [-0.5415778600908, 0.663973865519, 0.4086743632622],
    [0.3411886233484, -0.617538623420, -0.6712122747833],
    [0.3441743655043, -0.715391460073, -0.5238466142931],
    [0.6285103573291, -0.296365981107, -0.6429520884294],
    [-0.0462195946434, 0.848163277670, 0.2580049123977],
    [0.5111763425572, -0.782373963916, -0.2137839792994],
    [-0.2828098530642, -0.181758732492, 0.9075089157909],
    [-0.2309305462435, 0.279231624853, 0.8643553580177],
    [-0.1073400133256, 0.920676395413, -0.1445859948024],
    [0.2595950293545, 0.913430441332, 0.0209128129342],
    [0.8534931981761, 0.107079136792, -0.4374057980563],
])
# R: varimax(L3)$loadings, the default eps = 1e-5 (first three rows)
R_VARIMAX_DEFAULT = np.array([
    [-0.5422782707961, 0.663765731613, 0.4080832493240],
    [0.3421366723527, -0.617431781594, -0.6708278754250],
    [0.3450142368273, -0.715274675075, -0.5234534610687],
])
# GPArotation::Varimax(L3, normalize = TRUE, eps = 1e-12, maxit = 5000)$loadings[1:3, ]
# (gradient projection, GPArotation 2022.10.2; it reports convergence = FALSE: its
# gradient norm stalls at 2.9e-8, above eps; asked for eps = 1e-7 it converges in 24
# iterations)
GPA_VARIMAX = np.array([
    [-0.541577849653, 0.663973875735, 0.408674360496],
    [0.341188611029, -0.617538634608, -0.671212270753],
    [0.344174353509, -0.715391469599, -0.523846609165],
])


def match_signs(A, B):
    """A with each column's sign chosen to agree with B's (axes are defined up to sign)."""
    return A * np.where(np.sum(A * B, axis=0) < 0, -1.0, 1.0)


# -- FactoMineR's numbers --------------------------------------------------------------------


@pytest.mark.parametrize("ddof", [0, 1])
def test_variable_coordinates_cos2_and_contributions_are_factominer_s(ddof):
    model = pcalib.PCA(5, standardize=True, ddof=ddof).fit(X)
    coord = match_signs(model.loadings_[:, :2], FM_VAR_COORD)
    np.testing.assert_allclose(coord, FM_VAR_COORD, atol=1e-11)
    np.testing.assert_allclose(pcalib.variable_cos2(model)[:, :2], FM_VAR_COS2, atol=1e-11)
    np.testing.assert_allclose(pcalib.variable_contributions(model)[:, :2], FM_VAR_CONTRIB, atol=1e-9)


@pytest.mark.parametrize("ddof", [0, 1])
def test_row_cos2_and_contributions_are_factominer_s(ddof):
    model = pcalib.PCA(5, standardize=True, ddof=ddof).fit(X)
    np.testing.assert_allclose(pcalib.row_cos2(model, X)[:4, :2], FM_IND_COS2, atol=1e-11)
    np.testing.assert_allclose(pcalib.row_contributions(model, X)[:4, :2], FM_IND_CONTRIB, atol=1e-10)


def test_ddof_0_reproduces_factominer_s_eigenvalues_and_row_coordinates():
    model = pcalib.PCA(5, standardize=True, ddof=0).fit(X)
    np.testing.assert_allclose(model.explained_variance_, FM_EIG, rtol=1e-11)
    coord = match_signs(model.transform(X)[:4, :2], FM_IND_COORD)
    np.testing.assert_allclose(coord, FM_IND_COORD, atol=1e-11)
    # with ddof=1 the standard deviations are sqrt(n / (n - 1)) times larger, the scores smaller
    scores1 = match_signs(pcalib.PCA(2, standardize=True).fit(X).transform(X)[:4], FM_IND_COORD)
    np.testing.assert_allclose(scores1, FM_IND_COORD * np.sqrt(31 / 32), atol=1e-11)


def test_unscaled_pca_matches_factominer_scale_unit_false():
    # R: PCA(mtcars, scale.unit = FALSE)$var: coord (covariances, divisor n), cos2, contrib
    model = pcalib.PCA(3, ddof=0).fit(X)
    disp_hp = match_signs(model.loadings_[[2, 3], :2], np.array([[120.886474320228, -16.3470476725593],
                                                                  [58.427537596963, 33.7665457301437]]))
    np.testing.assert_allclose(disp_hp, [[120.886474320228, -16.3470476725593],
                                         [58.427537596963, 33.7665457301437]], rtol=1e-10)
    np.testing.assert_allclose(pcalib.variable_contributions(model)[[2, 3], :2],
                               [[80.9222849016, 18.95490571919093], [18.9037463383, 80.87536257879427]],
                               rtol=1e-9)
    np.testing.assert_allclose(pcalib.variable_cos2(model, X)[[0, 2], :2],
                               [[0.745667833513, 0.00337982510453], [0.982041582956, 0.01795779928063]],
                               rtol=1e-9)


# -- first principles -------------------------------------------------------------------------


def test_variable_cos2_is_the_squared_correlation_of_variable_and_component():
    rng = np.random.default_rng(1)
    Y = rng.standard_normal((40, 5)) @ rng.standard_normal((5, 5)) * [1, 10, 100, 0.1, 1] + 1e3
    for model in (pcalib.PCA(3).fit(Y), pcalib.PCA(3, standardize=True).fit(Y)):
        T = (Y - Y.mean(axis=0)) / model.scale_ @ model.components_.T
        r = np.corrcoef(Y.T, T.T)[:5, 5:]
        cos2 = pcalib.variable_cos2(model, Y)
        np.testing.assert_allclose(cos2, r**2, atol=1e-12)
    full = pcalib.PCA().fit(Y)  # all components: the variances are known without Y
    np.testing.assert_allclose(pcalib.variable_cos2(full).sum(axis=1), 1.0, atol=1e-12)
    with pytest.raises(ValueError, match="pass the training data as X"):
        pcalib.variable_cos2(pcalib.PCA(2).fit(Y))


def test_row_cos2_is_the_squared_cosine_and_sums_to_one_over_all_axes():
    rng = np.random.default_rng(2)
    Y = rng.standard_normal((30, 4)) @ rng.standard_normal((4, 4))
    model = pcalib.PCA().fit(Y)
    Yc = Y - Y.mean(axis=0)
    cos = np.array([[yc @ v / np.linalg.norm(yc) for v in model.components_] for yc in Yc])
    np.testing.assert_allclose(pcalib.row_cos2(model, Y), cos**2, atol=1e-12)
    np.testing.assert_allclose(pcalib.row_cos2(model, Y).sum(axis=1), 1.0, atol=1e-12)
    centre = pcalib.row_cos2(model, Y.mean(axis=0, keepdims=True))
    assert np.all(centre == 0)  # no direction at the centre: 0, not NaN


def test_row_contributions_sum_to_100_and_new_rows_use_the_training_total():
    rng = np.random.default_rng(3)
    Y = rng.standard_normal((25, 4)) @ rng.standard_normal((4, 4))
    model = pcalib.PCA(2).fit(Y)
    ctr = pcalib.row_contributions(model, Y)
    np.testing.assert_allclose(ctr.sum(axis=0), 100.0, atol=1e-10)
    new = rng.standard_normal((3, 4))
    T = (new - Y.mean(axis=0)) @ model.components_.T
    T_train = (Y - Y.mean(axis=0)) @ model.components_.T
    np.testing.assert_allclose(pcalib.row_contributions(model, new),
                               100 * T**2 / np.sum(T_train**2, axis=0), rtol=1e-12)


def test_variable_contributions_sum_to_100_per_axis():
    model = pcalib.PCA(4).fit(X)
    np.testing.assert_allclose(pcalib.variable_contributions(model).sum(axis=0), 100.0, atol=1e-10)


def test_names_in_names_out():
    pd = pytest.importorskip("pandas")
    frame = CARS.to_frame()
    model = pcalib.PCA(2, standardize=True).fit(frame)
    ctr = pcalib.variable_contributions(model)
    assert list(ctr.index) == CARS.feature_names and list(ctr.columns) == ["PC1", "PC2"]
    cos2 = pcalib.row_cos2(model, frame)
    assert isinstance(cos2, pd.DataFrame) and list(cos2.index) == CARS.row_names
    plain = pcalib.row_cos2(pcalib.PCA(2, standardize=True).fit(X), X)
    np.testing.assert_allclose(cos2.to_numpy(), plain, rtol=1e-14, atol=1e-15)
    with pytest.raises(ValueError, match="columns"):
        pcalib.row_cos2(model, frame[frame.columns[::-1]])


def test_inputs_are_not_modified_and_bad_models_are_refused():
    Y = X.copy()
    model = pcalib.PCA(2).fit(Y)
    for f in (pcalib.row_cos2, pcalib.row_contributions):
        f(model, Y)
    np.testing.assert_array_equal(Y, X)
    with pytest.raises(TypeError, match="model must be a fitted PCA"):
        pcalib.variable_contributions(np.eye(3))
    sparse = pcalib.SparsePCA(3, n_nonzero=4, standardize=True).fit(X)
    with pytest.raises(TypeError, match="got SparsePCA"):
        pcalib.variable_cos2(sparse, X)
    rotated = pcalib.PCA(3).fit(X)
    rotated.components_ = (pcalib.varimax(rotated.components_.T, normalize=False)[0] * [1, 1, 1.1]).T
    with pytest.raises(ValueError, match="not orthonormal"):
        pcalib.variable_cos2(rotated, X)
    with pytest.raises(ValueError, match="X has 3 columns"):
        pcalib.row_cos2(model, X[:, :3])


# -- varimax ------------------------------------------------------------------------------------


def loadings3():
    return pcalib.PCA(3, standardize=True).fit(X).loadings_


def test_varimax_matches_r_with_a_tight_tolerance_and_gparotation():
    rotated, R = pcalib.varimax(loadings3(), sort=False)  # R's column order
    np.testing.assert_allclose(rotated, R_VARIMAX_TIGHT, atol=5e-8)
    np.testing.assert_allclose(rotated[:3], GPA_VARIMAX, atol=5e-8)
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-13)
    np.testing.assert_allclose(loadings3() @ R, rotated, atol=1e-13)


def test_varimax_sorts_columns_by_variance_as_psych_does():
    rotated, R = pcalib.varimax(loadings3())
    unsorted, _ = pcalib.varimax(loadings3(), sort=False)
    ss = np.sum(rotated**2, axis=0)
    assert np.all(np.diff(ss) < 0)
    # the same columns, reordered: R's iteration order is (2, 3, 1) by sum of squares
    order = np.argsort(-np.sum(R_VARIMAX_TIGHT**2, axis=0))
    assert order.tolist() == [1, 2, 0]
    np.testing.assert_allclose(rotated, match_signs(R_VARIMAX_TIGHT[:, order], rotated), atol=5e-8)
    np.testing.assert_allclose(loadings3() @ R, rotated, atol=1e-13)
    np.testing.assert_allclose(np.abs(rotated), np.abs(unsorted[:, order]), atol=1e-15)


def test_r_default_eps_stops_about_1e3_early_on_mtcars():
    rotated, _ = pcalib.varimax(loadings3(), sort=False)
    early = np.abs(rotated[:3] - R_VARIMAX_DEFAULT).max()
    assert 9e-4 < early < 1.1e-3
    assert np.abs(R_VARIMAX_TIGHT[:3] - R_VARIMAX_DEFAULT).max() > 9e-4


def test_varimax_stops_at_a_stationary_point_of_kaiser_s_criterion():
    L = loadings3()
    A = L / np.linalg.norm(L, axis=1, keepdims=True)
    _, R = pcalib.varimax(L, tol=1e-12)
    B, _ = _varimax_step(A, R)
    # stationary on the orthogonal group: R^T B symmetric (the Riemannian gradient vanishes)
    assert np.abs(R.T @ B - B.T @ R).max() < 1e-10

    def criterion(M):
        return np.sum(np.sum(M**4, axis=0) - np.sum(M**2, axis=0) ** 2 / M.shape[0])

    best = criterion(A @ R)
    rng = np.random.default_rng(0)
    for _ in range(200):  # a local maximum: small rotations do not increase it
        Q = np.linalg.qr(np.eye(3) + 1e-3 * rng.standard_normal((3, 3)))[0]
        assert criterion(A @ R @ Q) <= best + 1e-12


def test_varimax_keeps_communalities_and_total_and_reorders_variances():
    L = loadings3()
    rotated, _ = pcalib.varimax(L)
    np.testing.assert_allclose(np.sum(rotated**2, axis=1), np.sum(L**2, axis=1), atol=1e-13)
    np.testing.assert_allclose(np.sum(rotated**2), np.sum(L**2), atol=1e-12)
    ss = np.sum(rotated**2, axis=0)
    assert ss.max() < np.sum(L[:, 0] ** 2)  # no rotated column explains what PC1 did


def test_varimax_refuses_bad_input():
    with pytest.raises(ValueError, match="at least 2 columns"):
        pcalib.varimax(np.ones((4, 1)))
    with pytest.raises(ValueError, match="loadings"):
        pcalib.varimax(np.array([[np.nan, 1.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="tol"):
        pcalib.varimax(loadings3(), tol=0)
    with pytest.raises(RuntimeError, match="did not converge"):
        pcalib.varimax(loadings3(), max_iter=2, tol=1e-15)
    L = loadings3()
    kept = L.copy()
    pcalib.varimax(L)
    np.testing.assert_array_equal(L, kept)


# -- plots ---------------------------------------------------------------------------------------


def arrow_tips(ax):
    return np.array([a.xy for a in ax.texts if hasattr(a, "xy") and a.get_text() == ""])


def test_correlation_circle_draws_the_correlations():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    model = pcalib.PCA(2).fit(X)  # not standardized: correlations, not loadings
    ax = pcalib.plot.correlation_circle(model, X)
    T = model.transform(X)
    r = np.corrcoef(X.T, T.T)[:11, 11:]
    np.testing.assert_allclose(arrow_tips(ax), r, atol=1e-12)
    assert np.all(np.linalg.norm(r, axis=1) <= 1 + 1e-12)
    plt.close("all")


@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0])
def test_gabriel_biplot_points_and_arrows_factor_the_scores(alpha):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    model = pcalib.PCA(2, standardize=True).fit(X)
    ax = pcalib.plot.biplot(model, data=X, alpha=alpha)
    G = np.asarray(ax.collections[0].get_offsets())
    H = arrow_tips(ax)
    T = model.transform(X)
    np.testing.assert_allclose(G @ H.T, T @ model.components_, atol=1e-10)  # G H^T = T V^T
    if alpha == 1.0:
        np.testing.assert_allclose(G, T, atol=1e-12)
    if alpha == 0.0:
        np.testing.assert_allclose(H, model.loadings_, atol=1e-12)
        np.testing.assert_allclose(np.var(G, axis=0, ddof=1), 1.0, atol=1e-12)
    plt.close("all")


def test_biplot_alpha_is_checked():
    model = pcalib.PCA(2).fit(X)
    with pytest.raises(ValueError, match="alpha"):
        pcalib.plot.biplot(model, data=X, alpha=2)


def test_biplot_arrow_scale_multiplies_the_arrows_only():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    model = pcalib.PCA(2, standardize=True).fit(X)
    plain = pcalib.plot.biplot(model, data=X, alpha=1)
    scaled = pcalib.plot.biplot(model, data=X, alpha=1, arrow_scale=5)
    np.testing.assert_allclose(arrow_tips(scaled), 5 * arrow_tips(plain), atol=1e-12)
    np.testing.assert_array_equal(scaled.collections[0].get_offsets(), plain.collections[0].get_offsets())
    with pytest.raises(ValueError, match="arrow_scale"):
        pcalib.plot.biplot(model, data=X, alpha=1, arrow_scale=0)
    plt.close("all")


def test_models_without_a_mean_are_refused_not_read_about_zero():
    robust = pcalib.RobustPCA(2, random_state=0).fit(X[:, :4])
    with pytest.raises(TypeError, match="got RobustPCA"):  # robust eigenvalues, no singular values
        pcalib.row_cos2(robust, X[:, :4])

    class NoMean:  # PCA's axes without a mean
        components_ = np.eye(2, 4)
        singular_values_ = np.array([2.0, 1.0])

    with pytest.raises(TypeError, match="mean_"):
        pcalib.row_cos2(NoMean(), X[:, :4])


def test_mtcars_is_r_s():
    # R: colSums(mtcars); mtcars["Valiant", "qsec"]; dim(mtcars)
    assert X.shape == (32, 11) and CARS.feature_names[:3] == ["mpg", "cyl", "disp"]
    np.testing.assert_allclose(X.sum(axis=0), [642.9, 198, 7383.1, 4694, 115.09, 102.952,
                                               571.16, 14, 13, 118, 90], rtol=1e-12)
    assert X[CARS.row_names.index("Valiant"), CARS.feature_names.index("qsec")] == 20.22


# -- biplot conventions (issue 33) -------------------------------------------------------------


def label_boxes(ax):
    """The display boxes of the non-empty texts of `ax`, after drawing the figure."""
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    return np.array([t.get_window_extent(renderer).extents for t in ax.texts if t.get_text()])


def overlaps(boxes):
    """Pairs of boxes that overlap by more than a pixel in both directions."""
    count = 0
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            dx = min(boxes[i, 2], boxes[j, 2]) - max(boxes[i, 0], boxes[j, 0])
            dy = min(boxes[i, 3], boxes[j, 3]) - max(boxes[i, 1], boxes[j, 1])
            count += dx > 1 and dy > 1
    return count


def test_biplot_names_arrows_labels_axes_and_keeps_equal_scales():
    pytest.importorskip("matplotlib")
    pytest.importorskip("pandas")
    import matplotlib.pyplot as plt
    from matplotlib.text import Annotation

    frame = CARS.to_frame()
    model = pcalib.PCA(2, standardize=True).fit(frame)
    ax = pcalib.plot.biplot(model, data=frame)
    names = [t.get_text() for t in ax.texts if not isinstance(t, Annotation)]
    assert names == CARS.feature_names  # feature_names_in_, not x1, ..., x11
    assert ax.get_aspect() == 1.0  # one unit is as long across as up
    # the shares of variance, from NumPy's eigenvalues of the correlation matrix
    ratio = np.linalg.eigvalsh(np.corrcoef(X.T))[::-1] / 11
    assert ax.get_xlabel() == f"PC1 ({100 * ratio[0]:.1f}%)" == "PC1 (60.1%)"
    assert ax.get_ylabel() == f"PC2 ({100 * ratio[1]:.1f}%)"
    plt.close("all")


def test_biplot_labels_do_not_pile_up_and_are_placed_the_same_way_every_time():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    frame = CARS.to_frame()
    model = pcalib.PCA(2, standardize=True).fit(frame)
    placed = []
    for _ in range(2):
        fig, ax = plt.subplots(figsize=(6, 6))
        pcalib.plot.biplot(model, data=frame, sample_labels=True, ax=ax)
        placed.append([getattr(t, "xyann", None) or t.get_position() for t in ax.texts if t.get_text()])
    assert len(placed[0]) == 32 + 11
    np.testing.assert_array_equal(placed[0], placed[1])  # the same places every time
    assert overlaps(label_boxes(ax)) == 0
    # without the repel, the same labels overlap: the check can fail
    fig, ax = plt.subplots(figsize=(6, 6))
    T = model.transform(frame)
    for name, (x, y) in zip(CARS.row_names, T):
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(3, 3), fontsize=8)
    ax.set_xlim(T[:, 0].min() - 1, T[:, 0].max() + 1)
    ax.set_ylim(T[:, 1].min() - 1, T[:, 1].max() + 1)
    assert overlaps(label_boxes(ax)) > 5
    plt.close("all")


def test_correlation_circle_labels_do_not_pile_up():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    model = pcalib.PCA(2, standardize=True).fit(X)
    fig, ax = plt.subplots(figsize=(4.6, 4.6))
    pcalib.plot.correlation_circle(model, X, ax=ax, feature_names=CARS.feature_names)
    assert overlaps(label_boxes(ax)) == 0
    plt.close("all")


def test_a_pcoa_map_is_titled_as_one():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt
    import scipy.spatial.distance as ssd

    D = ssd.squareform(ssd.pdist(X[:, :4]))
    result = pcalib.pcoa(D, k=2)
    ax = pcalib.plot.biplot(result)
    assert ax.get_title() == "PCoA map" and ax.get_aspect() == 1.0
    share = result.proportion_explained
    assert ax.get_xlabel() == f"PCo1 ({100 * share[0]:.1f}%)"
    # for Euclidean distances, the shares are PCA's (NumPy's eigenvalues)
    ev = np.linalg.eigvalsh(np.cov(X[:, :4].T))[::-1]
    assert ax.get_ylabel() == f"PCo2 ({100 * ev[1] / ev.sum():.1f}%)"
    plt.close("all")
