"""Scene specs: the objects on the table, loaded from YAML or a mapping, with seeded free poses.

A spec lists objects (``type``, ``color``, optional ``size`` and ``pose``). Fixed poses are checked
when the spec is built (reach, overlaps; a block may start inside a box); free poses are sampled
by :meth:`SceneSpec.sample` inside the workspace, apart from everything else by ``min_separation``.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from claw.envs import geometry, regions
from claw.envs import objects as catalog
from claw.envs.exceptions import InvalidSceneError
from claw.envs.objects import Color, ObjectType
from claw.envs.outputs import check_seed

SCENES_DIR = Path(__file__).with_name("scenes")

_TOL = 1e-4  # footprint overlap (m) forgiven between fixed poses
_MAX_YAW = math.pi / 4  # sampled yaw lies in [-45 deg, 45 deg)
_TRIES = 2000  # candidate poses per sampled object
_RESTARTS = 5  # fresh attempts at the whole sampled set


def builtin_scenes() -> list[str]:
    """The names of the built-in scenes (``envs/scenes/*.yaml``), sorted."""
    return sorted(p.stem for p in SCENES_DIR.glob("*.yaml"))


@dataclass(frozen=True)
class PlacedObject:
    """An object at its starting pose: centre (x, y, z) in metres, yaw in radians."""

    name: str
    type: str
    color: str
    size: float
    x: float
    y: float
    yaw: float
    z: float
    container: str | None
    half_extents: tuple[float, float, float]

    def footprint(self) -> geometry.Array:
        """The outer footprint on the table: 4x2 corners, counter-clockwise."""
        return geometry.rect_corners(self.x, self.y, self.yaw, *self.half_extents[:2])

    def inner_footprint(self) -> geometry.Array | None:
        """The inner footprint of a box (what it can hold); ``None`` for other objects."""
        half = catalog.inner_half_width(self.type, self.size)
        return None if half is None else geometry.rect_corners(self.x, self.y, self.yaw, half, half)


class ObjectSpec(BaseModel):
    """One object of a scene spec; ``size`` and ``pose`` default to the catalogue and the seed."""

    model_config = ConfigDict(extra="forbid")

    type: ObjectType
    color: Color
    size: float | None = None
    pose: tuple[float, float] | tuple[float, float, float] | None = None

    @field_validator("type", mode="before")
    @classmethod
    def _check_type(cls, value: Any) -> Any:
        return _choice(value, catalog.OBJECT_TYPES, "an object type")

    @field_validator("color", mode="before")
    @classmethod
    def _check_color(cls, value: Any) -> Any:
        return _choice(value, catalog.COLORS, "a colour")

    @field_validator("size")
    @classmethod
    def _check_size(cls, value: float | None, info: ValidationInfo) -> float | None:
        kind = info.data.get("type")
        if value is None or kind is None:  # no size, or the type already failed
            return value
        lo, hi = catalog.size_range(kind)
        if not lo <= value <= hi:
            raise ValueError(f"{value:g} out of range for {kind} ({lo:g}-{hi:g} m)")
        return value

    @field_validator("pose", mode="before")
    @classmethod
    def _check_pose(cls, value: Any) -> Any:
        if value is None:
            return None
        if (
            not isinstance(value, (list, tuple))
            or len(value) not in (2, 3)
            or not all(_is_number(v) and math.isfinite(v) for v in value)
        ):
            raise ValueError(
                f"{_short(value)} is not a pose; allowed: [x, y] or [x, y, yaw_degrees] (numbers)"
            )
        return tuple(float(v) for v in value)

    def resolved_size(self) -> float:
        """The size in metres: the given one, else the catalogue default for the type."""
        return catalog.default_size(self.type) if self.size is None else self.size


class SceneSpec(BaseModel):
    """A scene: named objects with fixed or sampled poses; bad input raises InvalidSceneError."""

    model_config = ConfigDict(extra="forbid")

    name: str = "custom"
    objects: list[ObjectSpec] = Field(min_length=1)
    min_separation: float = Field(0.03, ge=0.0)

    def __init__(self, **data: Any) -> None:
        """Build and validate a spec from keyword fields.

        Raises:
            InvalidSceneError: a bad field value or a bad fixed layout (one-line message).
        """
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise InvalidSceneError(_one_line(exc)) from None

    @model_validator(mode="after")
    def _check_layout(self) -> SceneSpec:
        self.validate_layout()
        return self

    @classmethod
    def load(cls, source: str | Path | Mapping[str, Any] | SceneSpec) -> SceneSpec:
        """A spec from a built-in scene name, a ``.yaml``/``.yml`` path, a mapping, or a spec.

        Raises:
            InvalidSceneError: unknown name, unreadable file or invalid spec (one-line message).
        """
        if isinstance(source, SceneSpec):
            return source
        if isinstance(source, Mapping):
            data = dict(source)
        elif isinstance(source, (str, Path)):
            path = _scene_path(source)
            data = {"name": path.stem, **_read_yaml(path)}
        else:
            raise InvalidSceneError(
                f"scene source {type(source).__name__!r} not understood; allowed: a built-in name "
                f"({', '.join(builtin_scenes())}), a YAML file path, a mapping or a SceneSpec"
            )
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise InvalidSceneError(_one_line(exc)) from None

    def object_names(self) -> list[str]:
        """Object names in spec order: ``<color>_<type>``, repeats suffixed ``_2``, ``_3``, ...."""
        counts: dict[str, int] = {}
        names = []
        for obj in self.objects:
            base = f"{obj.color}_{obj.type}"
            counts[base] = counts.get(base, 0) + 1
            names.append(base if counts[base] == 1 else f"{base}_{counts[base]}")
        return names

    def validate_layout(self) -> None:
        """Check the fixed poses: in reach, no overlaps except blocks wholly inside a box.

        Raises:
            InvalidSceneError: the first offending object (or pair), by index and name.
        """
        self._place_fixed()

    def sample(self, seed: int | np.random.Generator | None = None) -> list[PlacedObject]:
        """Every object at its starting pose, in spec order; deterministic given an int seed.

        Free poses get a yaw in [-45, 45) degrees and a centre keeping the footprint inside the
        workspace, at least ``min_separation`` from every object placed before (fixed ones first,
        then free ones by decreasing footprint, ties in spec order). Free objects rest on the table.

        Raises:
            InvalidSceneError: a bad fixed layout, or the free objects do not fit.
        """
        if seed is not None and not isinstance(seed, np.random.Generator):
            check_seed(seed)
        rng = np.random.default_rng(seed)
        fixed = self._place_fixed()
        names = self.object_names()
        free = [i for i, obj in enumerate(self.objects) if obj.pose is None]
        free.sort(key=lambda i: (-max(_half_extents(self.objects[i])[:2]), i))
        for _ in range(_RESTARTS):
            placed = dict(fixed)
            for i in free:
                found = self._sample_pose(self.objects[i], names[i], list(placed.values()), rng)
                if found is None:
                    break
                placed[i] = found
            else:
                return [placed[i] for i in range(len(self.objects))]
        (x0, x1), (y0, y1) = regions.WORKSPACE_X, regions.WORKSPACE_Y
        raise InvalidSceneError(
            f"cannot fit {len(self.objects)} objects in the workspace (x {x0:.2f}-{x1:.2f} m, "
            f"y {y0:.2f}-{y1:.2f} m) with min_separation {self.min_separation:g} m in "
            f"{_RESTARTS} attempts: more objects than fit"
        )

    def _place_fixed(self) -> dict[int, PlacedObject]:
        """The objects with fixed poses, by spec index, with their containers resolved."""
        placed: dict[int, PlacedObject] = {}
        for i, (obj, name) in enumerate(zip(self.objects, self.object_names(), strict=True)):
            if obj.pose is None:
                continue
            x, y = obj.pose[0], obj.pose[1]
            if not regions.in_reach(x, y):
                lo, hi = regions.REACH_RADIUS
                raise InvalidSceneError(
                    f"{_label(i, name)} at ({x:.3f}, {y:.3f}) is out of reach: the claw reaches "
                    f"{lo:g}-{hi:g} m from the base, with x >= {regions.REACH_MIN_X:g} m"
                )
            yaw = math.radians(obj.pose[2]) if len(obj.pose) == 3 else 0.0
            placed[i] = _placed(obj, name, x, y, yaw)
        inside: dict[int, str] = {}
        for (i, a), (j, b) in itertools.combinations(placed.items(), 2):
            if {a.type, b.type} == {"block", "box"}:
                k, block, box = (i, a, b) if a.type == "block" else (j, b, a)
                inner = box.inner_footprint()
                if inner is not None and geometry.polygon_inside(block.footprint(), inner, _TOL):
                    inside[k] = box.name
                    continue
                why = "a block must lie wholly inside a box's inner footprint or clear of the box"
            elif a.type == "box" and b.type == "box":
                why = "a box can neither overlap nor start inside another box"
            else:
                why = "objects may not overlap"
            if geometry.polygons_overlap(a.footprint(), b.footprint(), _TOL):
                raise InvalidSceneError(f"{_label(i, a.name)} overlaps {_label(j, b.name)}: {why}")
        for k, box_name in inside.items():
            block = placed[k]
            z = catalog.BOX_FLOOR_THICKNESS + block.size / 2
            placed[k] = dataclasses.replace(block, container=box_name, z=z)
        return placed

    def _sample_pose(
        self, obj: ObjectSpec, name: str, others: list[PlacedObject], rng: np.random.Generator
    ) -> PlacedObject | None:
        """A free pose on the table clear of ``others``, or ``None`` after ``_TRIES`` tries."""
        hx, hy, _ = _half_extents(obj)
        (x0, x1), (y0, y1) = regions.WORKSPACE_X, regions.WORKSPACE_Y
        for _ in range(_TRIES):
            yaw = float(rng.uniform(-_MAX_YAW, _MAX_YAW))
            c, s = abs(math.cos(yaw)), abs(math.sin(yaw))
            ax, ay = hx * c + hy * s, hx * s + hy * c  # half extents of the bounding box
            if x0 + ax > x1 - ax or y0 + ay > y1 - ay:
                continue
            x = float(rng.uniform(x0 + ax, x1 - ax))
            y = float(rng.uniform(y0 + ay, y1 - ay))
            candidate = _placed(obj, name, x, y, yaw)
            if regions.in_reach(x, y) and all(
                _clear(candidate, other, self.min_separation) for other in others
            ):
                return candidate
        return None


def _placed(obj: ObjectSpec, name: str, x: float, y: float, yaw: float) -> PlacedObject:
    """An object resting on the table at (x, y, yaw)."""
    half = _half_extents(obj)
    size = obj.resolved_size()
    return PlacedObject(name, obj.type, obj.color, size, x, y, yaw, half[2], None, half)


def _half_extents(obj: ObjectSpec) -> tuple[float, float, float]:
    return catalog.half_extents(obj.type, obj.resolved_size())


def _clear(a: PlacedObject, b: PlacedObject, gap: float) -> bool:
    """True when the footprints of ``a`` and ``b`` are at least ``gap`` apart.

    Cheap bounds first (circumscribed and inscribed circles, ``a`` grown by ``gap``), the exact
    polygon gap only when they cannot decide.
    """
    (ahx, ahy, _), (bhx, bhy, _) = a.half_extents, b.half_extents
    distance = math.hypot(a.x - b.x, a.y - b.y)
    if distance >= math.hypot(ahx, ahy) + math.hypot(bhx, bhy) + gap:
        return True
    if distance < min(ahx, ahy) + min(bhx, bhy) + gap:
        return False
    grown = geometry.rect_corners(a.x, a.y, a.yaw, ahx + gap, ahy + gap)
    if not geometry.polygons_overlap(grown, b.footprint()):
        return True
    return geometry.polygon_gap(a.footprint(), b.footprint()) >= gap


def _label(index: int, name: str) -> str:
    return f"objects[{index}] ({name})"


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _choice(value: Any, allowed: tuple[str, ...], what: str) -> str:
    """``value`` normalised (stripped, lower case) when it is one of ``allowed``."""
    key = value.strip().lower() if isinstance(value, str) else value
    if key not in allowed:
        raise ValueError(f"{_short(value)} is not {what}; allowed: {', '.join(allowed)}")
    return key


def _scene_path(source: str | Path) -> Path:
    """The YAML file a scene source names: a built-in scene or a path."""
    if isinstance(source, str) and source.strip().lower() in builtin_scenes():
        return SCENES_DIR / f"{source.strip().lower()}.yaml"
    path = Path(source).expanduser()
    if path.suffix.lower() in (".yaml", ".yml"):
        if path.is_file():
            return path
        raise InvalidSceneError(f"file {path}: not found")
    raise InvalidSceneError(
        f"unknown scene {str(source)!r}: not a built-in ({', '.join(builtin_scenes())}) "
        "nor a YAML file"
    )


def _read_yaml(path: Path) -> dict[str, Any]:
    """The mapping a YAML scene file holds."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise InvalidSceneError(f"file {path}: not valid YAML ({_yaml_problem(exc)})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidSceneError(f"file {path}: cannot be read ({exc})") from None
    if not isinstance(data, Mapping):
        got = "an empty file" if data is None else type(data).__name__
        raise InvalidSceneError(f"file {path}: expected a mapping of scene keys, got {got}")
    return dict(data)


def _yaml_problem(exc: yaml.YAMLError) -> str:
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem:
        mark = exc.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        return f"{exc.problem}{where}"
    return " ".join(str(exc).split())


def _one_line(exc: ValidationError) -> str:
    """The first error of a pydantic ValidationError as ``location: what is wrong``."""
    err = exc.errors()[0]
    loc = tuple(err["loc"])
    where = ""
    for part in loc:
        where += f"[{part}]" if isinstance(part, int) else f".{part}" if where else str(part)
    kind, value = err["type"], err.get("input")
    if kind == "value_error":
        text = str(err.get("ctx", {}).get("error", err["msg"]))
    elif kind == "extra_forbidden":
        model = ObjectSpec if len(loc) > 1 else SceneSpec
        text = f"unknown key; allowed: {', '.join(model.model_fields)}"
    elif kind == "missing":
        text = "required but missing"
    elif kind == "too_short" and loc == ("objects",):
        text = "empty; a scene needs at least one object"
    elif kind in ("model_type", "dict_type"):
        text = f"{_short(value)} is not a mapping"
    else:
        msg = err["msg"]
        text = f"{_short(value)} is invalid ({msg[:1].lower()}{msg[1:]})"
    text = " ".join(text.split())
    return f"{where}: {text}" if where else text
