"""pcalib._utils.progress: what verbose=True shows (issue 33), and that verbose=False shows
nothing. References: the lines written to a captured stream, counted here; tqdm's own
bar (when tqdm is installed) read back from its stream."""

import io
import re

import numpy as np
import pytest

import pcalib
from pcalib._utils.progress import Progress, progress


def test_silent_when_not_verbose(capsys):
    with progress(False, 10, "fit") as report:
        for t in range(10):
            report.update(loglik=float(t))
        report.done("converged")
    assert capsys.readouterr() == ("", "")


def test_one_line_per_report_without_tqdm():
    stream = io.StringIO()
    with Progress(True, 5, "EM", interval=0.0, stream=stream, use_tqdm=False) as report:
        for t in range(3):
            report.update(loglik=-1.23456789 * t, sigma2=2)
        report.done("converged in 3 iterations")
    assert stream.getvalue().splitlines() == [
        "EM: step 1/5, loglik=-0, sigma2=2",
        "EM: step 2/5, loglik=-1.235, sigma2=2",
        "EM: step 3/5, loglik=-2.469, sigma2=2",
        "EM: converged in 3 iterations",
    ]


def test_lines_are_throttled_to_one_per_interval():
    stream = io.StringIO()
    with Progress(True, 1000, "fit", interval=3600.0, stream=stream, use_tqdm=False) as report:
        for _ in range(1000):
            report.update()
        report.done("stopped")
    assert stream.getvalue().splitlines() == ["fit: step 1/1000", "fit: stopped"]


def test_a_tqdm_bar_where_tqdm_is_installed():
    pytest.importorskip("tqdm")
    stream = io.StringIO()
    with Progress(True, 4, "EM", stream=stream) as report:
        for _ in range(4):
            report.update(loglik=-1.5)
        report.done("converged in 4 iterations")
    shown = stream.getvalue()
    assert "EM" in shown and "4/4" in shown and "converged in 4 iterations" in shown


@pytest.mark.parametrize("verbose", [2, "yes", None, 0.5])
def test_verbose_must_be_true_or_false(verbose):
    with pytest.raises(TypeError, match="verbose must be True or False"):
        progress(verbose, 10, "fit")
    with pytest.raises(TypeError, match="verbose must be True or False"):
        pcalib.PPCA(1, verbose=verbose).fit(np.random.default_rng(0).standard_normal((20, 3)))


def test_em_and_iterative_pca_report_every_iteration(monkeypatch, capsys):
    """PPCA(verbose=True) reports each EM iteration and how it ended; impute_pca's
    iterative PCA too; without verbose, nothing (tqdm hidden, so the lines are counted)."""
    monkeypatch.setitem(__import__("sys").modules, "tqdm", None)  # import tqdm fails
    monkeypatch.setitem(__import__("sys").modules, "tqdm.auto", None)
    monkeypatch.setitem(Progress.__init__.__kwdefaults__, "interval", 0.0)  # a line every step
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 2)) @ rng.standard_normal((2, 5)) + 0.3 * rng.standard_normal((60, 5))
    X[rng.random(X.shape) < 0.2] = np.nan
    model = pcalib.PPCA(2, random_state=0, verbose=True).fit(X)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == model.n_iter_ + 2  # the start, each iteration, the end
    assert lines[-1] == f"PPCA EM with missing values: converged in {model.n_iter_} iterations"
    assert re.fullmatch(r"PPCA EM with missing values: step 1/10000, loglik=-?[\d.e+-]+, sigma2=[\d.e+-]+", lines[0])
    pcalib.impute_pca(X, 2, verbose=True)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("regularized iterative PCA: step 1/1000, change=")
    assert re.fullmatch(r"regularized iterative PCA: converged in \d+ iterations", lines[-1])
    pcalib.impute_pca(X, 2)
    pcalib.PPCA(2, random_state=0).fit(X)
    assert capsys.readouterr() == ("", "")


def test_robust_pca_and_the_bootstrap_report_their_steps(monkeypatch, capsys):
    """RobustPCA(verbose=True) reports ROBPCA's three stages, each axis of the grid and
    spherical PCA's one step; bootstrap_pca(verbose=True) the resamples done, in stacks
    (issue 33). Their fits equal the silent ones."""
    monkeypatch.setitem(__import__("sys").modules, "tqdm", None)
    monkeypatch.setitem(__import__("sys").modules, "tqdm.auto", None)
    monkeypatch.setitem(Progress.__init__.__kwdefaults__, "interval", 0.0)
    X = np.random.default_rng(1).standard_normal((80, 5)) * [5.0, 3.0, 2.0, 1.0, 0.5]
    for method, steps in (("robpca", 3), ("grid", 2), ("spherical", 1)):
        loud = pcalib.RobustPCA(2, method=method, random_state=0, verbose=True).fit(X)
        lines = capsys.readouterr().err.splitlines()
        name = f"RobustPCA({method!r})"
        assert len(lines) == steps + 1
        assert lines[0].startswith(f"{name}: step 1/{steps}")
        assert lines[-1] == f"{name}: 2 robust axes"
        quiet = pcalib.RobustPCA(2, method=method, random_state=0).fit(X)
        assert capsys.readouterr() == ("", "")
        np.testing.assert_array_equal(loud.components_, quiet.components_)
    loud = pcalib.bootstrap_pca(X, 2, n_resamples=50, random_state=0, verbose=True)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("bootstrap_pca: step ") and lines[0].endswith("/50")
    assert lines[-2] == "bootstrap_pca: step 50/50"
    assert lines[-1] == "bootstrap_pca: 50 resamples"
    quiet = pcalib.bootstrap_pca(X, 2, n_resamples=50, random_state=0)
    np.testing.assert_array_equal(loud.explained_variance_samples,
                                  quiet.explained_variance_samples)
    for bad in (2, "yes"):
        with pytest.raises(TypeError, match="verbose must be True or False"):
            pcalib.RobustPCA(2, verbose=bad).fit(X)
        with pytest.raises(TypeError, match="verbose must be True or False"):
            pcalib.bootstrap_pca(X, 2, n_resamples=5, verbose=bad)
