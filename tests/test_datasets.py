"""Tests of pcalib.datasets: published values, shapes, and the haversine distances."""

import subprocess
import sys

import numpy as np
import pytest

from pcalib import datasets
from pcalib.datasets import great_circle_distances


def test_iris_matches_R():
    iris = datasets.load_iris()
    assert iris.data.shape == (150, 4) and iris.data.dtype == np.float64
    # R: colMeans(iris[, 1:4]) and sapply(iris[, 1:4], sd)
    assert np.allclose(iris.data.mean(axis=0), [5.843333, 3.057333, 3.758000, 1.199333], atol=5e-7)
    assert np.allclose(iris.data.std(axis=0, ddof=1), [0.8280661, 0.4358663, 1.7652982, 0.7622377], atol=5e-7)
    assert iris.target_names == ["setosa", "versicolor", "virginica"]
    assert np.array_equal(np.bincount(iris.target), [50, 50, 50])
    assert iris.feature_names == ["sepal_length", "sepal_width", "petal_length", "petal_width"]
    # R: iris[1, ] and iris[150, ]
    assert iris.data[0].tolist() == [5.1, 3.5, 1.4, 0.2]
    assert iris.data[149].tolist() == [5.9, 3.0, 5.1, 1.8]
    # the two values where the UCI copy differs from Fisher's table (R rows 35 and 38)
    assert iris.data[34].tolist() == [4.9, 3.1, 1.5, 0.2]
    assert iris.data[37].tolist() == [4.9, 3.6, 1.4, 0.1]


def test_digits():
    digits = datasets.load_digits()
    assert digits.data.shape == (1797, 64) and digits.target.shape == (1797,)
    assert digits.data.min() == 0 and digits.data.max() == 16
    assert np.array_equal(digits.data, np.round(digits.data))
    assert np.array_equal(np.unique(digits.target), np.arange(10))
    assert digits.target_names == [str(d) for d in range(10)]
    assert len(digits.feature_names) == 64
    from sklearn.datasets import load_digits as sk_digits

    sk = sk_digits()
    assert np.array_equal(digits.data, sk.data) and np.array_equal(digits.target, sk.target)


def test_cities():
    cities = datasets.load_cities()
    n = len(cities.names)
    assert 20 <= n <= 40 and len(set(cities.names)) == n
    assert cities.latitude.shape == cities.longitude.shape == (n,)
    assert np.all(np.abs(cities.latitude) <= 90) and np.all(np.abs(cities.longitude) <= 180)
    for name in ["Lisbon", "Madrid", "Paris", "London", "Berlin", "Rome", "Vienna", "Stockholm", "Athens", "Warsaw"]:
        assert name in cities.names
    i = cities.names.index("London")
    assert abs(cities.latitude[i] - 51.5) < 0.1 and abs(cities.longitude[i]) < 0.2


def test_image():
    image = datasets.load_image()
    assert image.ndim == 2 and image.shape == (300, 256) and image.dtype == np.float64
    assert 0.0 <= image.min() < 0.1 and 0.9 < image.max() <= 1.0
    assert np.linalg.matrix_rank(image) > 100  # a real photograph, not a constant


def test_data_files_load_from_another_directory(tmp_path):
    code = ("import pcalib.datasets as d; print(d.load_iris().data.shape, d.load_digits().data.shape, "
            "d.load_image().shape, len(d.load_cities().names))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "(150, 4) (1797, 64) (300, 256) 33"


# --- great-circle distances ---------------------------------------------------------


def test_quarter_circle_and_antipodes():
    D = great_circle_distances([0.0, 0.0, 90.0, 0.0], [0.0, 90.0, 0.0, 180.0])
    R = 6371.0
    assert np.isclose(D[0, 1], np.pi / 2 * R, rtol=1e-14)  # along the equator
    assert np.isclose(D[0, 2], np.pi / 2 * R, rtol=1e-14)  # to the pole
    assert np.isclose(D[0, 3], np.pi * R, rtol=1e-14)  # antipode
    assert np.isclose(great_circle_distances([0, 0], [0, 1], radius=1.0)[0, 1], np.radians(1), rtol=1e-12)


def test_against_spherical_law_of_cosines_and_known_distance():
    cities = datasets.load_cities()
    lat, lon = np.radians(cities.latitude), np.radians(cities.longitude)
    xyz = np.column_stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])
    angle = np.arccos(np.clip(xyz @ xyz.T, -1, 1))
    D = great_circle_distances(cities.latitude, cities.longitude)
    assert np.allclose(D, 6371.0 * angle, atol=1e-3)  # 1 m; arccos loses digits near 0
    assert np.array_equal(D, D.T) and np.all(np.diag(D) == 0) and np.all(D >= 0)
    i, j = cities.names.index("London"), cities.names.index("Paris")
    assert 340 < D[i, j] < 350  # London-Paris is about 344 km


@pytest.mark.parametrize(
    "lat, lon, radius, exc, words",
    [
        ([0.0, 1.0], [0.0], 1.0, ValueError, "same length"),
        ([[0.0]], [[0.0]], 1.0, ValueError, "lat must be a 1-D"),
        ([91.0], [0.0], 1.0, ValueError, r"lat must be in \[-90, 90\]"),
        ([0.0], [400.0], 1.0, ValueError, "lon must be in"),
        ([np.nan], [0.0], 1.0, ValueError, "lat contains NaN"),
        (["a"], [0.0], 1.0, TypeError, "lat must hold real numbers"),
        ([0.0], [0.0], -1.0, ValueError, "radius must be a positive"),
        ([0.0], [0.0], "1", ValueError, "radius must be a positive"),
    ],
)
def test_great_circle_rejects(lat, lon, radius, exc, words):
    with pytest.raises(exc, match=words):
        great_circle_distances(lat, lon, radius=radius)


def test_great_circle_distances_rejects_radius_true():
    """Issue 10, item 9: a bool is not a radius."""
    with pytest.raises(ValueError, match="radius must be a positive finite number"):
        great_circle_distances([0.0, 1.0], [0.0, 1.0], radius=True)


def test_dataset_repr_is_short():
    """Issue 14, item 4: name, shape and feature names, not every number."""
    iris = datasets.load_iris()
    assert repr(iris) == (
        "Dataset(name='iris', shape=(150, 4), classes=3, feature_names=['sepal_length', "
        "'sepal_width', 'petal_length', 'petal_width'])"
    )
    digits = repr(datasets.load_digits())
    assert len(digits) < 200 and "shape=(1797, 64)" in digits and "(64 in all)" in digits
    assert repr(datasets.load_cities()).startswith("Cities(33 cities: 'Lisbon'")
