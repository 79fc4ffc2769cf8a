"""Planar geometry on footprints: rotated rectangles in the table plane."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]


def rect_corners(cx: float, cy: float, yaw: float, hx: float, hy: float) -> Array:
    """The four corners (4x2, counter-clockwise) of a rectangle given centre, yaw, half extents."""
    c, s = np.cos(yaw), np.sin(yaw)
    local = np.array([[hx, hy], [-hx, hy], [-hx, -hy], [hx, -hy]])
    rot = np.array([[c, -s], [s, c]])
    return local @ rot.T + np.array([cx, cy])


def _axes(poly: Array) -> Array:
    edges = np.roll(poly, -1, axis=0) - poly
    normals = np.stack([-edges[:, 1], edges[:, 0]], axis=1)
    return normals / np.linalg.norm(normals, axis=1, keepdims=True)


def polygons_overlap(a: Array, b: Array, tol: float = 0.0) -> bool:
    """True when two convex polygons overlap by more than ``tol`` along every separating axis."""
    axes = np.concatenate([_axes(a), _axes(b)])
    pa, pb = a @ axes.T, b @ axes.T
    return bool(
        np.all(pa.max(axis=0) - tol > pb.min(axis=0))
        and np.all(pb.max(axis=0) - tol > pa.min(axis=0))
    )


def _points_to_edges(points: Array, poly: Array) -> Array:
    """Distances from each point (n x 2) to each edge of a polygon (m x 2): shape (n, m)."""
    starts = poly
    edges = np.roll(poly, -1, axis=0) - poly
    rel = points[:, None, :] - starts[None, :, :]
    lengths = np.maximum(np.einsum("ij,ij->i", edges, edges), 1e-18)
    t = np.clip(np.einsum("nmj,mj->nm", rel, edges) / lengths, 0.0, 1.0)
    closest = rel - t[..., None] * edges[None, :, :]
    return np.sqrt(np.einsum("nmj,nmj->nm", closest, closest))


def polygon_gap(a: Array, b: Array) -> float:
    """Shortest distance between two convex polygons; 0 when they touch or overlap."""
    if polygons_overlap(a, b):
        return 0.0
    return float(min(_points_to_edges(a, b).min(), _points_to_edges(b, a).min()))


def point_in_polygon(point: Array, poly: Array, tol: float = 0.0) -> bool:
    """True when ``point`` lies in a convex counter-clockwise polygon (or within ``tol`` of it)."""
    for i in range(len(poly)):
        edge = poly[(i + 1) % len(poly)] - poly[i]
        rel = np.asarray(point) - poly[i]
        cross = edge[0] * rel[1] - edge[1] * rel[0]
        if cross < -tol * np.linalg.norm(edge):
            return False
    return True


def polygon_inside(inner: Array, outer: Array, tol: float = 0.0) -> bool:
    """True when every corner of ``inner`` lies inside the convex polygon ``outer``."""
    return all(point_in_polygon(p, outer, tol) for p in inner)


def wrap_angle(angle: float) -> float:
    """``angle`` in (-pi, pi]."""
    return math.atan2(math.sin(angle), math.cos(angle))
