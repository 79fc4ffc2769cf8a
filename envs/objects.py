"""Object catalogue: types, colours and dimensions shared by scenes, the model and predicates."""

from __future__ import annotations

from typing import Literal, get_args

ObjectType = Literal["block", "box", "bar"]
Color = Literal[
    "blue", "red", "green", "orange", "yellow", "purple", "pink", "cyan", "brown", "gray"
]

OBJECT_TYPES: tuple[str, ...] = get_args(ObjectType)
COLORS: tuple[str, ...] = get_args(Color)

COLOR_RGBA: dict[str, tuple[float, float, float, float]] = {
    "blue": (0.12, 0.33, 0.85, 1.0),
    "red": (0.85, 0.12, 0.12, 1.0),
    "green": (0.15, 0.65, 0.22, 1.0),
    "orange": (0.98, 0.55, 0.08, 1.0),
    "yellow": (0.95, 0.85, 0.10, 1.0),
    "purple": (0.55, 0.20, 0.75, 1.0),
    "pink": (0.98, 0.50, 0.72, 1.0),
    "cyan": (0.10, 0.80, 0.85, 1.0),
    "brown": (0.50, 0.30, 0.12, 1.0),
    "gray": (0.50, 0.50, 0.50, 1.0),
}

# Blocks are cubes; ``size`` is the edge length (m).
BLOCK_SIZE = 0.04
BLOCK_SIZE_RANGE = (0.02, 0.06)
BLOCK_DENSITY = 600.0  # kg/m^3, about wood: a 4 cm cube weighs 38 g

# Boxes are open-top square containers; ``size`` is the inner width (m).
BOX_SIZE = 0.12
BOX_SIZE_RANGE = (0.08, 0.20)
BOX_WALL_HEIGHT = 0.05  # outer height, floor included
BOX_WALL_THICKNESS = 0.008
BOX_FLOOR_THICKNESS = 0.008
BOX_MASS = 0.25


def object_name(color: str, object_type: str, count: int = 1) -> str:
    """A scene object's name: ``<color>_<type>``, the ``count``-th of them suffixed ``_<count>``."""
    base = f"{color}_{object_type}"
    return base if count == 1 else f"{base}_{count}"


def name_parts(name: str) -> tuple[str, str]:
    """(colour, type) as :func:`object_name` writes them into ``name`` (``red_block_2`` ->
    ``("red", "block")``); for names without their scene's object (an ``ObjectState`` carries
    both as fields)."""
    color, _, rest = name.partition("_")
    return color, rest.partition("_")[0]


# Bars are long square rods lying along their own x axis; ``size`` is the length (m).
BAR_LENGTH = 0.30
BAR_LENGTH_RANGE = (0.20, 0.40)
BAR_WIDTH = 0.04  # m, the side of the square cross-section

_SIZES: dict[str, tuple[float, tuple[float, float]]] = {
    "block": (BLOCK_SIZE, BLOCK_SIZE_RANGE),
    "box": (BOX_SIZE, BOX_SIZE_RANGE),
    "bar": (BAR_LENGTH, BAR_LENGTH_RANGE),
}


def _sizes(object_type: str) -> tuple[float, tuple[float, float]]:
    if object_type not in _SIZES:
        raise ValueError(f"unknown object type {object_type!r}; allowed: {OBJECT_TYPES}")
    return _SIZES[object_type]


def default_size(object_type: str) -> float:
    """The size an object of this type gets when its spec gives none.

    Raises:
        ValueError: an unknown type.
    """
    return _sizes(object_type)[0]


def size_range(object_type: str) -> tuple[float, float]:
    """The sizes allowed for an object type, inclusive.

    Raises:
        ValueError: an unknown type.
    """
    return _sizes(object_type)[1]


def half_extents(object_type: str, size: float) -> tuple[float, float, float]:
    """Outer half extents (x, y, z) of an object in its own frame."""
    if object_type == "block":
        return (size / 2, size / 2, size / 2)
    if object_type == "bar":
        return (size / 2, BAR_WIDTH / 2, BAR_WIDTH / 2)
    outer = size / 2 + BOX_WALL_THICKNESS
    return (outer, outer, BOX_WALL_HEIGHT / 2)


def inner_half_width(object_type: str, size: float) -> float | None:
    """Half the inner width of a box; ``None`` for objects that hold nothing."""
    return size / 2 if object_type == "box" else None
