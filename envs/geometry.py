"""Planar geometry on footprints: rotated rectangles in the table plane."""

from __future__ import annotations

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
    for axis in np.concatenate([_axes(a), _axes(b)]):
        pa, pb = a @ axis, b @ axis
        if pa.max() - tol <= pb.min() or pb.max() - tol <= pa.min():
            return False
    return True


def _point_segment_distance(p: Array, s0: Array, s1: Array) -> float:
    d = s1 - s0
    t = float(np.clip(np.dot(p - s0, d) / max(float(np.dot(d, d)), 1e-18), 0.0, 1.0))
    return float(np.linalg.norm(p - (s0 + t * d)))


def polygon_gap(a: Array, b: Array) -> float:
    """Shortest distance between two convex polygons; 0 when they touch or overlap."""
    if polygons_overlap(a, b):
        return 0.0
    best = np.inf
    for p, q in ((a, b), (b, a)):
        for point in p:
            for i in range(len(q)):
                best = min(best, _point_segment_distance(point, q[i], q[(i + 1) % len(q)]))
    return float(best)


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
