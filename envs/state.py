"""A pure-geometry snapshot of the world: what the predicates read, built by the env from MuJoCo."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from claw.envs import geometry, objects
from claw.envs.exceptions import UnknownObjectError

Array = NDArray[np.float64]

SETTLED_SPEED = 0.01  # m/s: the world is at rest when every object moves slower than this


def _vector(value: Iterable[float], n: int, what: str) -> Array:
    arr = np.array(value, dtype=np.float64).reshape(-1)
    if arr.shape != (n,):
        raise ValueError(f"{what} must have {n} components, got {arr.shape[0]}")
    arr.flags.writeable = False
    return arr


def yaw_rotation(yaw: float) -> Array:
    """The rotation matrix (3x3) of a turn by ``yaw`` radians about +z."""
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def unknown_object_error(name: str, known: Iterable[str]) -> UnknownObjectError:
    """The error for a name that is not an object of the scene, listing the scene's objects."""
    listed = ", ".join(known) or "(none)"
    return UnknownObjectError(f"unknown object {name!r}; objects: {listed}")


@dataclass(frozen=True, eq=False)
class ObjectState:
    """One object's pose, size and motion.

    Attributes:
        name: Scene name, e.g. ``red_block``.
        type: ``block`` or ``box``.
        position: (3,) world position of the body origin, the centre of its bounding box.
        rotation: (3, 3) world rotation matrix of the body.
        half_extents: (3,) outer half extents in the body frame.
        inner_half_width: Half the inner width of a box; ``None`` for blocks.
        linear_velocity: (3,) world linear velocity (m/s).
        color: The colour the scene gave it (``red``); ``None`` when not known (a state built
            without its scene).
    """

    name: str
    type: str
    position: Array
    rotation: Array
    half_extents: Array
    inner_half_width: float | None = None
    linear_velocity: Array = field(default_factory=lambda: np.zeros(3))
    color: str | None = None

    def __post_init__(self) -> None:
        if self.type not in objects.OBJECT_TYPES:
            raise ValueError(f"unknown object type {self.type!r}; allowed: {objects.OBJECT_TYPES}")
        rotation = np.array(self.rotation, dtype=np.float64)
        if rotation.shape != (3, 3):
            raise ValueError(f"rotation must be 3x3, got shape {rotation.shape}")
        rotation.flags.writeable = False
        object.__setattr__(self, "rotation", rotation)
        object.__setattr__(self, "position", _vector(self.position, 3, "position"))
        object.__setattr__(self, "half_extents", _vector(self.half_extents, 3, "half_extents"))
        object.__setattr__(
            self, "linear_velocity", _vector(self.linear_velocity, 3, "linear_velocity")
        )

    @classmethod
    def make(
        cls,
        name: str,
        type: str,
        xyz: Sequence[float],
        yaw: float = 0.0,
        size: float | None = None,
        velocity: Sequence[float] = (0.0, 0.0, 0.0),
        color: str | None = None,
    ) -> ObjectState:
        """An upright object centred at ``xyz``, turned by ``yaw`` (rad); for constructed states.

        Args:
            name: Scene name.
            type: ``block`` or ``box``.
            xyz: Centre of the bounding box (m).
            yaw: Turn about +z (rad).
            size: Block edge or box inner width; the type's default when ``None``.
            velocity: Linear velocity (m/s).
            color: Its colour, if known.
        """
        size = objects.default_size(type) if size is None else size
        return cls(
            name=name,
            type=type,
            position=np.asarray(xyz, dtype=np.float64),
            rotation=yaw_rotation(yaw),
            half_extents=np.asarray(objects.half_extents(type, size), dtype=np.float64),
            inner_half_width=objects.inner_half_width(type, size),
            linear_velocity=np.asarray(velocity, dtype=np.float64),
            color=color,
        )

    @cached_property
    def yaw(self) -> float:
        """Heading (rad) of the body x axis on the table plane (of the y axis if x is vertical)."""
        x_axis, y_axis = self.rotation[:, 0], self.rotation[:, 1]
        if math.hypot(x_axis[0], x_axis[1]) > 1e-6:
            return math.atan2(x_axis[1], x_axis[0])
        return math.atan2(y_axis[1], y_axis[0]) - math.pi / 2

    def _extent_along(self, direction: Array) -> float:
        """Half the length of the bounding box's projection on a unit world direction."""
        return float(np.abs(direction @ self.rotation) @ self.half_extents)

    @cached_property
    def half_height(self) -> float:
        """Half the vertical extent of the rotated bounding box (its tilt included)."""
        return self._extent_along(np.array([0.0, 0.0, 1.0]))

    @property
    def bottom(self) -> float:
        """Lowest z of the rotated bounding box's corners."""
        return float(self.position[2]) - self.half_height

    @property
    def top(self) -> float:
        """Highest z of the rotated bounding box's corners."""
        return float(self.position[2]) + self.half_height

    @property
    def rim(self) -> float:
        """Height of a box's rim (its top)."""
        return self.top

    @property
    def size(self) -> float:
        """The size a scene spec gives (m): a block's edge, a box's inner width."""
        if self.inner_half_width is not None:
            return 2 * self.inner_half_width
        return 2 * float(self.half_extents[0])

    @property
    def xy(self) -> Array:
        """The centre's (x, y)."""
        return self.position[:2]

    @property
    def speed(self) -> float:
        """Norm of the linear velocity (m/s)."""
        return float(np.linalg.norm(self.linear_velocity))

    @cached_property
    def _footprint_half(self) -> tuple[float, float]:
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        return self._extent_along(np.array([c, s, 0.0])), self._extent_along(np.array([-s, c, 0.0]))

    def footprint(self) -> Array:
        """The footprint (4x2, counter-clockwise): the rectangle at ``yaw`` bounding the projection.

        Upright, its half sides are the x and y half extents; tilted, it grows to cover the tilt.
        """
        hx, hy = self._footprint_half
        return geometry.rect_corners(float(self.xy[0]), float(self.xy[1]), self.yaw, hx, hy)

    def inner_footprint(self) -> Array:
        """A box's inner footprint (4x2, counter-clockwise).

        Raises:
            ValueError: The object is not a box.
        """
        if self.inner_half_width is None:
            raise ValueError(f"{self.name} is a {self.type}, it has no inner footprint")
        w = self.inner_half_width
        return geometry.rect_corners(float(self.xy[0]), float(self.xy[1]), self.yaw, w, w)


@dataclass(frozen=True, eq=False)
class GripperState:
    """The finger pads and what touches them.

    Attributes:
        left_tip: (3,) world position of the left finger pad centre.
        right_tip: (3,) world position of the right finger pad centre.
        left_contacts: Names of the objects touching the left finger.
        right_contacts: Names of the objects touching the right finger.
    """

    left_tip: Array
    right_tip: Array
    left_contacts: frozenset[str] = frozenset()
    right_contacts: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "left_tip", _vector(self.left_tip, 3, "left_tip"))
        object.__setattr__(self, "right_tip", _vector(self.right_tip, 3, "right_tip"))
        object.__setattr__(self, "left_contacts", frozenset(self.left_contacts))
        object.__setattr__(self, "right_contacts", frozenset(self.right_contacts))


@dataclass(frozen=True, eq=False)
class WorldState:
    """Every object (in scene order), the gripper if there is one, and the table height."""

    objects: Mapping[str, ObjectState]
    gripper: GripperState | None = None
    table_z: float = 0.0
    grippers: Mapping[str, GripperState] = field(default_factory=dict)
    """Every arm's claw by arm name (``gripper`` is the acting arm's); empty where unknown."""
    arm: str | None = None
    """The acting arm's name (``gripper``'s), where known."""
    unseen: tuple[str, ...] = ()
    """Objects of the scene that a perceiver could not see (absent from ``objects``)."""

    def __post_init__(self) -> None:
        for key, obj in self.objects.items():
            if key != obj.name:
                raise ValueError(f"object stored under {key!r} is named {obj.name!r}")

    @classmethod
    def from_objects(
        cls,
        objs: Iterable[ObjectState],
        gripper: GripperState | None = None,
        table_z: float = 0.0,
    ) -> WorldState:
        """A world from objects in scene order.

        Raises:
            ValueError: Two objects share a name.
        """
        mapping: dict[str, ObjectState] = {}
        for obj in objs:
            if obj.name in mapping:
                raise ValueError(f"duplicate object name {obj.name!r}")
            mapping[obj.name] = obj
        return cls(objects=mapping, gripper=gripper, table_z=table_z)

    @property
    def names(self) -> list[str]:
        """Object names in scene order."""
        return list(self.objects)

    def get(self, name: str) -> ObjectState:
        """The object called ``name``.

        Raises:
            UnknownObjectError: No such object; the message lists the scene's objects.
        """
        try:
            return self.objects[name]
        except KeyError:
            raise unknown_object_error(name, self.objects) from None

    @property
    def max_speed(self) -> float:
        """The fastest object's linear speed (m/s); 0 for an empty world."""
        return max((obj.speed for obj in self.objects.values()), default=0.0)

    def settled(self, tol: float = SETTLED_SPEED) -> bool:
        """True when every object's linear speed is below ``tol`` (m/s)."""
        return all(obj.speed < tol for obj in self.objects.values())
