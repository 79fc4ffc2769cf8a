"""Coloured points of every view to objects: one top-down height map per colour (the views
fused), split into objects where cells part or heights jump, and each object's type, size,
centre, yaw and top estimated from its points, with a confidence for each.

The object model is the catalogue's: blocks are cubes, boxes open squares 5 cm tall, bars square
rods 4 cm thick. Sizes, poses and types are measured, not read.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from claw.envs import objects as catalog
from claw.perception.segment import ColouredPoints

CELL = 0.0025
"""Side (m) of a height-map cell."""
GAP_CELLS = 5
"""Gaps of fewer cells than this between points of one colour are closed (sparse sampling)."""
HEIGHT_GAP = 0.01
"""Heights (m) of one colour in one place further apart than this belong to two things."""
MIN_POINTS = 25
"""Fewer points than this of one colour in one place are noise, not an object."""
MIN_AREA = 0.012**2
"""A smaller footprint (m^2) is not an object (the smallest block is 2 cm)."""
BAR_MIN_LENGTH = 0.15
BOX_MIN_WIDTH = 0.085
BLEED_CELL = 0.005
BLEED_HEIGHT = 0.008
BLEED_SHARE = 0.5
"""A detection is a bleed of another's colour when the other has ``BLEED_RATIO`` times its
points, its top within ``BLEED_HEIGHT`` (m), and covers ``BLEED_SHARE`` of its 5 mm cells."""
CONTENT_MARGIN = 0.01
CONTENT_HEIGHT = 0.012
"""Points more than ``CONTENT_MARGIN`` (m) inside a box's walls and ``CONTENT_HEIGHT`` (m)
above its floor belong to what it holds."""
SQUARE = 0.85
"""A block or box seen with a rectangle squarer than this was seen whole."""
HOLLOW_DEPTH = 0.02
"""A box's inside lies at least this far (m) below its rim."""
PLATEAU_DEPTH = 0.006
"""Points within this (m) of an object's highest are its top face."""
NARROW_TOP = 0.6
STEP_HEIGHT = 0.015
"""A top face smaller than ``NARROW_TOP`` of the footprint, beside a top at least
``STEP_HEIGHT`` (m) lower, is a smaller block standing on a larger one."""


@dataclass(frozen=True)
class Detection:
    """One object as the cameras see it.

    Attributes:
        color: Palette colour.
        type: ``block``, ``box`` or ``bar``.
        size: Block edge, box inner width or bar length (m).
        centre: (3,) centre of its bounding box (m).
        yaw: Heading (rad): in [-pi/4, pi/4) for blocks and boxes, [-pi/2, pi/2) for bars.
        top: Height (m) of its top above the table.
        points: How many points it was seen with.
        confidence: Per estimate, 0..1: ``type``, ``color``, ``position``, ``yaw``, ``size``.
    """

    color: str
    type: str
    size: float
    centre: NDArray[np.float64]
    yaw: float
    top: float
    points: int
    confidence: dict[str, float]


def detect(views: list[ColouredPoints], palette: tuple[str, ...]) -> list[Detection]:
    """Objects in the fused points of every view."""
    every = ColouredPoints.join(views)
    found: list[tuple[Detection, set[tuple[int, int]]]] = []
    for colour in np.unique(every.colours):
        name = palette[int(colour)]
        for group in _split(every.take(every.colours == colour)):
            detection = _estimate(name, group)
            if detection is not None and detection.type == "box":
                inside = _inside_box(detection, group)
                if inside.sum() >= MIN_POINTS:  # objects of the box's colour in it
                    for part in _split(group.take(inside)):
                        content = _estimate(name, part)
                        if content is not None:
                            found.append((content, _cells(part.points)))
                    group = group.take(~inside)
                    detection = _estimate(name, group)
            if detection is not None and detection.type == "block":
                layers = _layers(group)
                if len(layers) > 1:  # a smaller block on a larger one of its colour
                    for layer in layers:
                        estimated = _estimate(name, layer)
                        if estimated is not None:
                            found.append((estimated, _cells(layer.points)))
                    continue
            if detection is not None:
                found.append((detection, _cells(group.points)))
    return _covered_heights([d for d, cells in found if not _bleed(d, cells, found)])


def _covered_heights(detections: list[Detection]) -> list[Detection]:
    """Blocks with something on them, measured by height: such a block shows no top face, and
    its sides alone, fused from views a little off each other, widen its footprint; its edge is
    then the height from what it stands on (a block's top, a box's floor, the table) to its top,
    where that is smaller."""
    smallest = catalog.size_range("block")[0]
    measured = []
    for block in detections:
        if block.type == "block" and any(_stands_on(o, block) for o in detections):
            floor = max((_floor(o) for o in detections if _stands_on(block, o)), default=0.0)
            edge = block.top - floor
            if smallest <= edge < block.size:
                centre = block.centre.copy()
                centre[2] = block.top - edge / 2
                block = dataclasses.replace(block, size=edge, centre=centre)
        measured.append(block)
    return measured


def _stands_on(upper: Detection, lower: Detection) -> bool:
    """Whether ``upper``'s centre lies over ``lower`` and its top higher than ``lower``'s."""
    if upper is lower or upper.top < lower.top + STEP_HEIGHT:
        return False
    return bool(np.abs(upper.centre[:2] - lower.centre[:2]).max() < lower.size / 2)


def _floor(lower: Detection) -> float:
    """The height something standing on ``lower`` stands at: a box's floor, another's top."""
    if lower.type == "box":
        return lower.top - catalog.BOX_WALL_HEIGHT + catalog.BOX_FLOOR_THICKNESS
    return lower.top


def _inside_box(box: Detection, group: ColouredPoints) -> NDArray[np.bool_]:
    """The points well inside a box's walls and well above its floor: what it holds."""
    c, s = math.cos(box.yaw), math.sin(box.yaw)
    offset = group.points[:, :2] - box.centre[:2]
    local = np.stack([offset[:, 0] * c + offset[:, 1] * s, -offset[:, 0] * s + offset[:, 1] * c])
    inner = box.size / 2 - CONTENT_MARGIN
    within = (np.abs(local) < inner).all(axis=0)
    return within & (group.heights > catalog.BOX_FLOOR_THICKNESS + CONTENT_HEIGHT)


def _cells(xyz: NDArray[np.float32]) -> set[tuple[int, int]]:
    """The coarse cells (:data:`BLEED_CELL`) an object's points fall in, in x-y."""
    keys = np.floor(xyz[:, :2] / BLEED_CELL).astype(np.int64)
    return set(map(tuple, np.unique(keys, axis=0).tolist()))


def _bleed(
    detection: Detection,
    cells: set[tuple[int, int]],
    found: list[tuple[Detection, set[tuple[int, int]]]],
) -> bool:
    """Whether a detection is a colour bleeding from another object (pixels of its shaded or
    lit faces matching a neighbouring palette colour): seen with fewer points, at the same
    height, over cells the other object mostly covers."""
    for other, other_cells in found:
        if other is detection or other.points <= detection.points:
            continue
        if abs(other.top - detection.top) > BLEED_HEIGHT:
            continue
        if len(cells & other_cells) >= BLEED_SHARE * len(cells):
            return True
    return False


def _split(group: ColouredPoints) -> list[ColouredPoints]:
    """Points of one colour, grouped by object: the connected cells of a top-down occupancy
    map (closed over gaps narrower than a centimetre)."""
    if len(group) < MIN_POINTS:
        return []
    xy = group.points[:, :2]
    low = xy.min(axis=0) - 3 * CELL
    cells = ((xy - low) / CELL).astype(np.int32)
    width, height = cells.max(axis=0) + 4
    occupied = np.zeros((height, width), np.uint8)
    occupied[cells[:, 1], cells[:, 0]] = 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (GAP_CELLS, GAP_CELLS))
    filled = cv2.morphologyEx(occupied, cv2.MORPH_CLOSE, kernel)
    count, labels = cv2.connectedComponents(filled, connectivity=8)
    label_of = labels[cells[:, 1], cells[:, 0]]
    members = (label_of == label for label in range(1, count))
    parts = [group.take(member) for member in members if member.sum() >= MIN_POINTS]
    return [level for part in parts for level in _levels(part)]


def _levels(group: ColouredPoints) -> list[ColouredPoints]:
    """Points of one colour in one place, parted where their heights leave a gap of
    :data:`HEIGHT_GAP`: one object's faces are seen without one, so what lies above a gap is
    another object of the colour (a block on a block between them), or stray pixels of a
    neighbour's faces matched to this colour."""
    order = np.argsort(group.heights)
    gaps = np.flatnonzero(np.diff(group.heights[order]) > HEIGHT_GAP)
    pieces = np.split(order, gaps + 1)
    if len(pieces) == 1:
        return [group]
    members = []
    for piece in pieces:
        member = np.zeros(len(group), dtype=bool)
        member[piece] = True
        members.append(member)
    return [group.take(member) for member in members if member.sum() >= MIN_POINTS]


def _layers(group: ColouredPoints) -> list[ColouredPoints]:
    """One colour's connected points as one object, or as two where a smaller block stands on
    a larger one: a top face much smaller than the footprint, and beside it, a lower top (a
    step of :data:`STEP_HEIGHT` at least)."""
    heights, xy = group.heights, group.points[:, :2]
    top = float(np.percentile(heights, 98))
    plateau = heights > top - PLATEAU_DEPTH
    if plateau.sum() < MIN_POINTS:
        return [group]
    centre, long_side, short_side, heading = _rectangle(xy[plateau])
    _, whole_long, whole_short, _ = _rectangle(xy)
    if long_side * short_side > NARROW_TOP * whole_long * whole_short:
        return [group]
    c, s = math.cos(heading), math.sin(heading)
    offset = xy - centre
    local = np.stack([offset[:, 0] * c + offset[:, 1] * s, -offset[:, 0] * s + offset[:, 1] * c])
    under = (np.abs(local[0]) < long_side / 2 + CELL) & (np.abs(local[1]) < short_side / 2 + CELL)
    if (~under).sum() < MIN_POINTS:
        return [group]
    step = float(np.percentile(heights[~under], 98))
    if step > top - STEP_HEIGHT:
        return [group]
    upper = under & (heights > step + CELL)
    if upper.sum() < MIN_POINTS:
        return [group]
    return [group.take(upper), group.take(~upper)]


def _rectangle(xy: NDArray[np.float32]) -> tuple[NDArray[np.float64], float, float, float]:
    """The smallest rectangle around points: centre (2,), long side, short side, and the
    heading (rad) of its long side."""
    box = cv2.minAreaRect((xy * 1000.0).astype(np.float32))
    corners = cv2.boxPoints(box) / 1000.0
    first, second = corners[1] - corners[0], corners[2] - corners[1]
    along, across = (first, second) if np.hypot(*first) >= np.hypot(*second) else (second, first)
    heading = math.atan2(float(along[1]), float(along[0]))
    return (
        np.array(box[0]) / 1000.0,
        float(np.hypot(*along)),
        float(np.hypot(*across)),
        heading,
    )


def _wrap(angle: float, period: float) -> float:
    """``angle`` in [-period/2, period/2)."""
    return (angle + period / 2) % period - period / 2


def _hollow(
    xy: NDArray[np.float32],
    heights: NDArray[np.float32],
    centre: NDArray[np.float64],
    inner: float,
    top: float,
) -> float:
    """Share of the points inside the inner square (half side ``inner``) lying well below the
    rim: a box's floor and inner walls."""
    inside = np.abs(xy - centre).max(axis=1) < inner
    if inside.sum() < 5:
        return 0.0
    return float((heights[inside] < top - HOLLOW_DEPTH).mean())


def _estimate(color: str, group: ColouredPoints) -> Detection | None:
    xyz, heights = group.points, group.heights
    centre_xy, long_side, short_side, heading = _rectangle(xyz[:, :2])
    if long_side * short_side < MIN_AREA:
        return None
    top = float(np.percentile(heights, 98))
    squareness = short_side / max(long_side, 1e-6)
    hollow = _hollow(xyz[:, :2], heights, centre_xy, 0.3 * long_side, top)
    kind, kind_confidence = _kind(long_side, short_side, hollow)
    if kind == "bar":
        size, height, period = long_side, catalog.BAR_WIDTH, math.pi
        shape_confidence = min(1.0, catalog.BAR_WIDTH / max(short_side, 1e-6))
    else:
        whole = squareness > SQUARE
        outer = 0.5 * (long_side + short_side) if whole else long_side
        if not whole:  # seen from one side: the square reaches away from the cameras
            centre_xy = _completed(centre_xy, heading, outer - short_side, group.eyes)
        size = outer - 2 * catalog.BOX_WALL_THICKNESS if kind == "box" else outer
        height = catalog.BOX_WALL_HEIGHT if kind == "box" else size
        period = math.pi / 2
        shape_confidence = squareness
    low, high = catalog.size_range(kind)
    size = float(min(max(size, low), high))
    centre = np.array([centre_xy[0], centre_xy[1], top - height / 2])
    seen = min(1.0, len(xyz) / 200.0)
    confidence = {
        "type": round(kind_confidence, 3),
        "color": 1.0,
        "position": round(seen * shape_confidence, 3),
        "yaw": round(seen * shape_confidence, 3),
        "size": round(seen * shape_confidence, 3),
    }
    yaw = _wrap(heading, period)
    return Detection(color, kind, size, centre, yaw, top, len(xyz), confidence)


def _completed(
    centre: NDArray[np.float64], heading: float, missing: float, eyes: NDArray[np.float32]
) -> NDArray[np.float64]:
    """The centre of a square seen only on its near side: moved across its long side, away
    from the cameras that saw it, by half of what is ``missing`` of its width."""
    normal = np.array([-math.sin(heading), math.cos(heading)])
    if normal @ (eyes.mean(axis=0) - centre) > 0:
        normal = -normal
    return centre + normal * missing / 2


def _kind(long_side: float, short_side: float, hollow: float) -> tuple[str, float]:
    """The catalogue type that fits the shape, and how surely."""
    if long_side >= BAR_MIN_LENGTH and short_side <= 0.07:
        return "bar", min(1.0, long_side / BAR_MIN_LENGTH - 0.5)
    if long_side >= BOX_MIN_WIDTH and (hollow > 0.25 or short_side >= BOX_MIN_WIDTH):
        return "box", max(hollow, min(1.0, short_side / BOX_MIN_WIDTH) * 0.6)
    return "block", min(1.0, 1.5 - long_side / BOX_MIN_WIDTH)
