"""Positions in the plane for cities that have none there: what the model reads when a metric is not 2-D.

A distance matrix becomes 2-D coordinates by classical multidimensional scaling (Torgerson's MDS);
3-D coordinates become their first two principal components, which is what classical MDS gives
for their Euclidean distances. Both keep as much of the spread of the cities as two axes can.
"""

from __future__ import annotations

import numpy as np

SUBSPACE = 8
"""Dimensions of the subspace that the MDS iteration refines (the two wanted and six more)."""

MAX_ITERATIONS = 30
"""Block power iterations at most; they stop earlier once the two largest eigenvalues settle."""

TOLERANCE = 1e-6
"""Relative change of the largest eigenvalues between iterations at which the MDS stops."""

ROWS_PER_BLOCK = 1 << 20
"""Matrix entries squared at a time (4 MiB of float32), so the MDS never copies the whole matrix."""


def principal_components(coords: np.ndarray, dimensions: int = 2) -> np.ndarray:
    """The cities' coordinates (n, d) projected on their first `dimensions` principal axes, (n, dimensions)."""
    centred = np.asarray(coords, dtype=np.float64) - np.mean(coords, axis=0)
    _, _, axes = np.linalg.svd(centred, full_matrices=False)  # rows of `axes`: directions, largest spread first
    return centred @ axes[:dimensions].T


def _double_centred_product(matrix: np.ndarray, vectors: np.ndarray, scale: float) -> np.ndarray:
    """B @ vectors for B = -1/2 J (D / scale)² J, J the centring projection; D² is squared block by block."""
    n = len(matrix)
    centred = (vectors - vectors.mean(axis=0)).astype(np.float32)  # (n, k)
    product = np.empty(vectors.shape, dtype=np.float64)
    rows = max(1, ROWS_PER_BLOCK // n)
    for begin in range(0, n, rows):
        block = np.multiply(matrix[begin : begin + rows], np.float32(1 / scale), dtype=np.float32)  # (rows, n)
        product[begin : begin + rows] = np.square(block, out=block) @ centred
    return -0.5 * (product - product.mean(axis=0))


def classical_mds(matrix: np.ndarray, dimensions: int = 2, seed: int = 0) -> np.ndarray:
    """Coordinates (n, dimensions) whose Euclidean distances approximate the symmetric matrix (n, n).

    Classical MDS: the top eigenvectors of B = -1/2 J D² J, scaled by the square roots of their
    eigenvalues. Exact for Euclidean distances (up to a rotation or reflection); for road or
    rounded distances the best fit of B in `dimensions` axes. The eigenvectors come from block
    power iteration on a random subspace of `SUBSPACE` dimensions (Rayleigh-Ritz at each step, the
    largest eigenvalues of B restricted to it), so memory stays O(n · SUBSPACE) beside the matrix
    and each step takes O(n² · SUBSPACE) time. Deterministic for a given seed.
    """
    n = len(matrix)
    scale = float(np.max(matrix)) or 1.0  # distances of order 1 keep float32 squares well inside its range
    basis, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, min(SUBSPACE, n))))
    previous = np.zeros(dimensions)
    for _ in range(MAX_ITERATIONS):
        product = _double_centred_product(matrix, basis, scale)  # (n, k)
        restricted = basis.T @ product  # (k, k)
        eigenvalues, eigenvectors = np.linalg.eigh(0.5 * (restricted + restricted.T))  # ascending
        top = np.argsort(eigenvalues)[::-1][:dimensions]
        settled = np.abs(eigenvalues[top] - previous).max() <= TOLERANCE * max(abs(eigenvalues[top[0]]), 1e-30)
        previous = eigenvalues[top]
        if settled:
            break
        basis, _ = np.linalg.qr(product)
    coords = basis @ eigenvectors[:, top] * np.sqrt(np.clip(eigenvalues[top], 0.0, None))  # (n, dimensions)
    return scale * coords
