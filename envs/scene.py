"""Scene specs: the objects on the table, loaded from YAML or a mapping, with seeded free poses.

A spec lists objects (``type``, ``color``, optional ``size`` and ``pose``, or ``on``/``in`` another
object listed before). Fixed poses are checked when the spec is built (reach, overlaps; a block may
start inside a box), and so are supports (what a block may rest on or in, whether a box holds its
contents, tower heights); free poses are sampled by :meth:`SceneSpec.sample` inside the workspace,
apart from everything else by ``min_separation``; a block ``on`` another starts centred on its
top, a block ``in`` a box on the box's floor, clear of its walls and of the other contents.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import numbers
import reprlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from claw.envs import geometry, regions
from claw.envs import objects as catalog
from claw.envs.arms import MAX_ARMS, arm_base, arm_names
from claw.envs.exceptions import InvalidSceneError
from claw.envs.naming import check_object_name, check_unique_names, scene_names
from claw.envs.objects import Color, ObjectType
from claw.envs.seeding import check_seed
from claw.envs.yamlfile import YamlLimitError, read_yaml

SCENES_DIR = Path(__file__).with_name("scenes")

_TOL = 1e-4  # footprint overlap (m) forgiven between fixed poses
_MAX_YAW = math.pi / 4  # sampled yaw lies in [-45 deg, 45 deg)
_TRIES = 2000  # candidate poses per sampled object
_RESTARTS = 5  # fresh attempts at the whole sampled set
BOX_CLEARANCE = 0.002  # gap (m) kept between a box's walls and its contents, and among them
MAX_TOWER_TOP = 0.25  # highest top (m) of a starting tower: the claw rests 30 cm up, pads 28.5 cm
MAX_SCENE_OBJECTS = 10
"""The most objects a scene may have, checked when the spec is built (``claw scene show``,
``--scene``, suites alike); the env's observations are padded to this many rows by default."""


def builtin_scenes() -> list[str]:
    """The names of the built-in scenes (``envs/scenes/*.yaml``), sorted."""
    return sorted(p.stem for p in SCENES_DIR.glob("*.yaml"))


@dataclass(frozen=True)
class PlacedObject:
    """An object at its starting pose: centre (x, y, z) in metres, yaw in radians.

    ``container`` is the box it starts in (by ``in:`` or a fixed pose inside the box), ``on`` the
    block it starts on; both ``None`` for an object resting on the table.
    """

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
    on: str | None = None

    def footprint(self) -> geometry.Array:
        """The outer footprint on the table: 4x2 corners, counter-clockwise."""
        return geometry.rect_corners(self.x, self.y, self.yaw, *self.half_extents[:2])

    def inner_footprint(self) -> geometry.Array | None:
        """The inner footprint of a box (what it can hold); ``None`` for other objects."""
        half = catalog.inner_half_width(self.type, self.size)
        return None if half is None else geometry.rect_corners(self.x, self.y, self.yaw, half, half)


class ObjectSpec(BaseModel):
    """One object of a scene spec; ``size`` and ``pose`` default to the catalogue and the seed.

    ``on`` (a block) or ``in`` (a box; ``in_`` in Python) names an object listed before this one
    that it starts on or in, instead of a pose; the scene checks the name and the fit. ``name``
    gives it a name of its own (:mod:`claw.envs.naming`), so identical objects are told apart.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    type: ObjectType
    color: Color
    size: float | None = None
    pose: tuple[float, float] | tuple[float, float, float] | None = None
    on: str | None = None
    in_: str | None = Field(None, alias="in")
    name: str | None = None
    """Its name in the scene, instead of the automatic ``<color>_<type>`` (``_2``, ...)."""

    @model_validator(mode="before")
    @classmethod
    def _yaml_on_key(cls, data: Any) -> Any:
        """``on`` read by a YAML 1.1 loader (``yaml.safe_load``) arrives as the key ``True``."""
        if isinstance(data, Mapping) and True in data and "on" not in data:
            data = {("on" if key is True else key): value for key, value in data.items()}
        return data

    @field_validator("type", mode="before")
    @classmethod
    def _check_type(cls, value: Any) -> Any:
        return _choice(value, catalog.OBJECT_TYPES, "an object type")

    @field_validator("color", mode="before")
    @classmethod
    def _check_color(cls, value: Any) -> Any:
        return _choice(value, catalog.COLORS, "a colour")

    @field_validator("name", mode="before")
    @classmethod
    def _check_name(cls, value: Any) -> Any:
        return value if value is None else check_object_name(value)

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

    @field_validator("on", "in_", mode="before")
    @classmethod
    def _check_support_name(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            wanted = "box" if info.field_name == "in_" else "block"
            raise ValueError(  # a scene names the objects listed before (SceneSpec._hint_support)
                f"{_short(value)} is not an object name; allowed: the name of a {wanted} listed "
                "before it"
            )
        return value.strip().lower()

    def support(self) -> tuple[str, str] | None:
        """``("on", name)`` or ``("in", name)`` when the spec rests this object on another."""
        if self.on is not None:
            return ("on", self.on)
        if self.in_ is not None:
            return ("in", self.in_)
        return None

    def resolved_size(self) -> float:
        """The size in metres: the given one, else the catalogue default for the type."""
        return catalog.default_size(self.type) if self.size is None else self.size


class SceneSpec(BaseModel):
    """A scene: named objects with fixed or sampled poses; bad input raises InvalidSceneError."""

    model_config = ConfigDict(extra="forbid")

    name: str = "custom"
    objects: list[ObjectSpec] = Field(min_length=1, max_length=MAX_SCENE_OBJECTS)
    min_separation: float = Field(0.03, ge=0.0)
    arms: int = Field(1, ge=1, le=MAX_ARMS, strict=True)
    """How many arms the table has (:mod:`claw.envs.arms`): 1 (the default) or 2, an integer
    (``true`` or ``"2"`` is refused, not read as one)."""

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
        check_unique_names(self.objects)
        self.validate_layout()
        return self

    @model_validator(mode="wrap")
    @classmethod
    def _hint_support(cls, data: Any, handler: ModelWrapValidatorHandler[SceneSpec]) -> SceneSpec:
        """An ``on``/``in`` that is no name at all: the hint lists the objects listed before."""
        try:
            return handler(data)
        except ValidationError as exc:
            hint = _support_hint(data, exc)
            if hint is None:
                raise
            raise InvalidSceneError(hint) from None

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
        """Object names in spec order: the ``name`` given, else ``<color>_<type>``, repeats
        suffixed ``_2``, ``_3``, ... (objects named by hand counted too, so a ``name`` renames
        no other object)."""
        return scene_names(self.objects)

    def validate_layout(self) -> None:
        """Check the fixed poses (in reach, no overlaps except blocks wholly inside a box) and the
        supports (``on``/``in`` targets, what fits in each box, tower heights).

        Raises:
            InvalidSceneError: the first offending object (or pair), by index and name.
        """
        self._layout()

    def sample(self, seed: int | np.random.Generator | None = None) -> list[PlacedObject]:
        """Every object at its starting pose, in spec order; deterministic given an int seed.

        Free poses get a yaw in [-45, 45) degrees and a centre keeping the footprint inside the
        workspace, at least ``min_separation`` from every object placed before (fixed ones first,
        then free ones by decreasing footprint, ties in spec order). Free objects rest on the table.
        Then, in spec order, a block ``on`` another is centred on its top with its yaw, and the
        blocks ``in`` a box lie on its floor with its yaw, in seeded rows at least
        ``BOX_CLEARANCE`` from its walls and from one another. A tower (or a box and its
        contents) takes only its base's footprint, so ``min_separation`` applies to the base.

        Raises:
            InvalidSceneError: a bad fixed layout, or the free objects do not fit.
        """
        if seed is not None and not isinstance(seed, np.random.Generator):
            check_seed(seed)
        rng = np.random.default_rng(seed)
        fixed, supports, packing = self._layout()
        names = self.object_names()
        free = [i for i, obj in enumerate(self.objects) if obj.pose is None and i not in supports]
        free.sort(key=lambda i: (-max(_half_extents(self.objects[i])[:2]), i))
        for _ in range(_RESTARTS):
            placed = dict(fixed)
            for i in free:
                found = self._sample_pose(self.objects[i], names[i], list(placed.values()), rng)
                if found is None:
                    break
                placed[i] = found
            else:
                self._place_supported(placed, supports, packing, rng)
                return [placed[i] for i in range(len(self.objects))]
        (x0, x1), (y0, y1) = regions.WORKSPACE_X, regions.WORKSPACE_Y
        raise InvalidSceneError(
            f"cannot fit {len(self.objects)} objects in the workspace (x {x0:.2f}-{x1:.2f} m, "
            f"y {y0:.2f}-{y1:.2f} m) with min_separation {self.min_separation:g} m in "
            f"{_RESTARTS} attempts: more objects than fit"
        )

    def _layout(
        self,
    ) -> tuple[dict[int, PlacedObject], dict[int, tuple[str, int]], dict[int, list[list[int]]]]:
        """The fixed placements, the supports (index: kind and target index) and each box's rows
        of contents; every check of the spec's layout."""
        supports = self._supports()
        fixed = self._place_fixed()
        names = self.object_names()
        for k, placed in fixed.items():
            if placed.container is not None:
                j = names.index(placed.container)
                if any(kind == "in" and target == j for kind, target in supports.values()):
                    raise InvalidSceneError(
                        f"{_label(k, names[k])} starts inside {placed.container} by its pose, and "
                        f"other blocks are listed 'in: {placed.container}'; give {names[k]} "
                        f"'in: {placed.container}' instead of a pose"
                    )
        self._check_towers(fixed, supports)
        return fixed, supports, self._pack_boxes(supports)

    def _supports(self) -> dict[int, tuple[str, int]]:
        """What each ``on``/``in`` object rests on or in: index -> (kind, target index)."""
        names = self.object_names()
        supports: dict[int, tuple[str, int]] = {}
        carried: dict[int, int] = {}  # block index -> index of the block on it
        for i, obj in enumerate(self.objects):
            if obj.on is not None and obj.in_ is not None:
                raise InvalidSceneError(
                    f"{_label(i, names[i])}: both on and in given; allowed: one of them "
                    "(on: a block, in: a box)"
                )
            support = obj.support()
            if support is None:
                continue
            kind, target = support
            where = f"objects[{i}].{kind} ({names[i]})"
            if obj.pose is not None:
                raise InvalidSceneError(
                    f"objects[{i}].pose ({names[i]}): not allowed with {kind}: {target}; the "
                    f"object starts {'centred on' if kind == 'on' else 'inside'} {target} with "
                    "its yaw (drop the pose)"
                )
            if obj.type != "block":
                raise InvalidSceneError(
                    f"{where}: a {obj.type} cannot start on or in another object; "
                    "only blocks take on/in"
                )
            wanted = "block" if kind == "on" else "box"
            if target not in names[:i]:
                if target == names[i]:
                    why = f"{names[i]} cannot start {kind} itself"
                elif target in names:
                    why = f"{target} is listed after {names[i]}; list the {wanted} first"
                else:
                    why = f"{target!r} is not an object listed before {names[i]}"
                allowed = _supports_allowed(self.objects[:i], names[:i], kind, set(carried))
                raise InvalidSceneError(f"{where}: {why}; allowed: {allowed}")
            j = names.index(target)
            base = self.objects[j]
            if base.type != wanted:
                other = "in" if kind == "on" else "on"
                raise InvalidSceneError(
                    f"{where}: {target} is a {base.type}; {kind} takes a {wanted} "
                    f"(use {other}: {target})"
                )
            if kind == "on":
                size, base_size = obj.resolved_size(), base.resolved_size()
                if size > base_size + 1e-9:
                    raise InvalidSceneError(
                        f"{where}: {names[i]} ({size * 100:g} cm) is wider than {target} "
                        f"({base_size * 100:g} cm); allowed: a block at most as wide as the block "
                        "it rests on"
                    )
                if j in carried:
                    raise InvalidSceneError(
                        f"{where}: {target} already carries {names[carried[j]]} "
                        f"(objects[{carried[j]}]); allowed: one block on a block"
                    )
                carried[j] = i
            supports[i] = (kind, j)
        return supports

    def _check_towers(
        self, fixed: dict[int, PlacedObject], supports: dict[int, tuple[str, int]]
    ) -> None:
        """Every top below ``MAX_TOWER_TOP`` (the claw starts above the table's centre)."""
        names = self.object_names()
        bottoms: dict[int, float] = {}
        for i, obj in enumerate(self.objects):
            height = 2 * _half_extents(obj)[2]
            kind, j = supports.get(i, ("", -1))
            if kind == "on":
                bottoms[i] = bottoms[j] + 2 * _half_extents(self.objects[j])[2]
            elif kind == "in" or (i in fixed and fixed[i].container is not None):
                bottoms[i] = catalog.BOX_FLOOR_THICKNESS
            else:
                bottoms[i] = 0.0
            top = bottoms[i] + height
            if kind == "on" and top > MAX_TOWER_TOP + 1e-9:
                raise InvalidSceneError(
                    f"objects[{i}].on ({names[i]}): its top would be {top:.3f} m above the "
                    f"table; allowed: towers up to {MAX_TOWER_TOP:g} m (the claw starts 0.3 m up)"
                )

    def _pack_boxes(self, supports: dict[int, tuple[str, int]]) -> dict[int, list[list[int]]]:
        """Each box's contents in rows (first fit, largest first), or InvalidSceneError when
        they do not fit with ``BOX_CLEARANCE`` around each."""
        names = self.object_names()
        contents: dict[int, list[int]] = {}
        for i, (kind, j) in supports.items():
            if kind == "in":
                contents.setdefault(j, []).append(i)
        packing = {}
        for j, items in contents.items():
            width = self.objects[j].resolved_size()
            sizes = {i: self.objects[i].resolved_size() for i in items}
            rows, fitted = _shelf_pack(sizes, width, BOX_CLEARANCE)
            if fitted < len(items):
                last = items[-1]
                raise InvalidSceneError(
                    f"objects[{last}].in ({names[last]}): {names[j]} ({width * 100:g} cm inside) "
                    f"fits {fitted} of the {len(items)} blocks listed in it, "
                    f"{BOX_CLEARANCE * 1000:g} mm from its walls and from one another"
                )
            packing[j] = rows
        return packing

    def _place_supported(
        self,
        placed: dict[int, PlacedObject],
        supports: dict[int, tuple[str, int]],
        packing: dict[int, list[list[int]]],
        rng: np.random.Generator,
    ) -> None:
        """Add the ``on``/``in`` objects to ``placed`` (whose bases are there), in spec order."""
        names = self.object_names()
        in_box: dict[int, tuple[float, float]] = {}  # index -> box-frame centre
        for j, rows in packing.items():
            sizes = {i: self.objects[i].resolved_size() for row in rows for i in row}
            in_box.update(_arrange(rows, sizes, self.objects[j].resolved_size(), rng))
        for i in sorted(supports):
            kind, j = supports[i]
            obj, base = self.objects[i], placed[j]
            half = _half_extents(obj)
            if kind == "on":
                z = base.z + base.half_extents[2] + half[2]
                placed[i] = PlacedObject(
                    names[i], obj.type, obj.color, obj.resolved_size(), base.x, base.y,
                    base.yaw, z, None, half, on=base.name,
                )  # fmt: skip
            else:
                u, v = in_box[i]
                c, s = math.cos(base.yaw), math.sin(base.yaw)
                x, y = base.x + c * u - s * v, base.y + s * u + c * v
                z = catalog.BOX_FLOOR_THICKNESS + half[2]
                placed[i] = PlacedObject(
                    names[i], obj.type, obj.color, obj.resolved_size(), x, y, base.yaw, z,
                    base.name, half,
                )  # fmt: skip

    def arm_bases(self) -> list[tuple[float, float, float]]:
        """Where each of the scene's arms stands, in arm order."""
        return [arm_base(arm, self.arms) for arm in arm_names(self.arms)]

    def _place_fixed(self) -> dict[int, PlacedObject]:
        """The objects with fixed poses, by spec index, with their containers resolved."""
        placed: dict[int, PlacedObject] = {}
        for i, (obj, name) in enumerate(zip(self.objects, self.object_names(), strict=True)):
            if obj.pose is None:
                continue
            x, y = obj.pose[0], obj.pose[1]
            if not any(regions.in_reach(x, y, base[:2]) for base in self.arm_bases()):
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


def _supports_allowed(
    before: Sequence[ObjectSpec], names: list[str], kind: str, carrying: set[int] | None = None
) -> str:
    """The objects of ``before`` (named ``names``) that an object after them may start ``kind``
    (on: a block that carries none of ``carrying``; in: a box), for a hint; or "none"."""
    wanted = "block" if kind == "on" else "box"
    found = [
        name
        for j, (name, obj) in enumerate(zip(names, before, strict=True))
        if obj.type == wanted and not (kind == "on" and j in (carrying or set()))
    ]
    return ", ".join(found) or f"none (no {wanted} is listed before)"


def _support_hint(data: Any, exc: ValidationError) -> str | None:
    """The message for a first error that is an ``on``/``in`` with no name at all, naming the
    objects listed before it; None for any other error."""
    err = exc.errors()[0]
    loc = tuple(err["loc"])
    if len(loc) != 3 or loc[0] != "objects" or loc[2] not in ("on", "in", "in_"):
        return None
    i, kind = int(loc[1]), "on" if loc[2] == "on" else "in"
    try:  # the objects before it passed (the first error is its own)
        before = [ObjectSpec.model_validate(o) for o in list(data["objects"])[:i]]
    except (TypeError, KeyError, ValidationError):
        return None
    allowed = _supports_allowed(before, scene_names(before), kind)
    return f"objects[{i}].{kind}: {_short(err['input'])} is not an object name; allowed: {allowed}"


def _placed(obj: ObjectSpec, name: str, x: float, y: float, yaw: float) -> PlacedObject:
    """An object resting on the table at (x, y, yaw)."""
    half = _half_extents(obj)
    size = obj.resolved_size()
    return PlacedObject(name, obj.type, obj.color, size, x, y, yaw, half[2], None, half)


def _shelf_pack(sizes: dict[int, float], width: float, clear: float) -> tuple[list[list[int]], int]:
    """Square items (index: edge) in rows across a square of ``width``, ``clear`` apart and from
    the sides: largest first (ties by index), each into the first row with room, else a new row.

    Returns the rows and how many items fitted (those that did not are left out).
    """
    rows: list[list[int]] = []
    row_widths: list[float] = []
    depth, fitted = clear, 0  # the rows' extent across, gaps included
    for i in sorted(sizes, key=lambda k: (-sizes[k], k)):
        size = sizes[i]
        for r, used in enumerate(row_widths):
            if used + size + clear <= width + 1e-9:
                rows[r].append(i)
                row_widths[r] += size + clear
                break
        else:
            if depth + size + clear > width + 1e-9:  # in no row, nor in a new one
                continue
            rows.append([i])
            row_widths.append(clear + size + clear)
            depth += size + clear
        fitted += 1
    return rows, fitted


def _arrange(
    rows: list[list[int]], sizes: dict[int, float], width: float, rng: np.random.Generator
) -> dict[int, tuple[float, float]]:
    """Seeded centres (u, v) in a box's frame for rows of contents from :func:`_shelf_pack`.

    Rows and the items in each are shuffled, the slack along and across the rows is split at
    random among the gaps (each at least ``BOX_CLEARANCE``), items sit at a random depth in their
    row, and the whole arrangement is transposed half the time.
    """
    order = [rows[r] for r in rng.permutation(len(rows))]
    order = [[row[k] for k in rng.permutation(len(row))] for row in order]
    heights = [max(sizes[i] for i in row) for row in order]
    centres: dict[int, tuple[float, float]] = {}
    v = -width / 2
    for gap, row, height in zip(_gaps(heights, width, rng), order, heights, strict=False):
        v += gap
        u = -width / 2
        for i, item_gap in zip(row, _gaps([sizes[i] for i in row], width, rng), strict=False):
            u += item_gap
            depth = float(rng.uniform(0.0, height - sizes[i])) if height > sizes[i] else 0.0
            centres[i] = (u + sizes[i] / 2, v + depth + sizes[i] / 2)
            u += sizes[i]
        v += height
    if rng.random() < 0.5:
        centres = {i: (b, a) for i, (a, b) in centres.items()}
    return centres


def _gaps(lengths: list[float], width: float, rng: np.random.Generator) -> list[float]:
    """Random gaps before, between and after ``lengths`` laid in a line across ``width``."""
    slack = max(0.0, width - sum(lengths) - (len(lengths) + 1) * BOX_CLEARANCE)
    shares = rng.dirichlet(np.ones(len(lengths) + 1))
    return [BOX_CLEARANCE + slack * float(share) for share in shares]


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


class _ShortRepr(reprlib.Repr):
    """``repr`` with a budget: a few items per level, a few levels, strings cut before quoting."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.maxlevel, self.maxstring, self.maxlong, self.maxother = 3, limit, limit, limit
        self.maxlist = self.maxtuple = self.maxdict = self.maxset = self.maxfrozenset = 6

    def repr_str(self, x: str, level: int) -> str:
        return repr(x[: self.maxstring + 1])


def _short(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, without building the whole of it."""
    text = _ShortRepr(limit).repr(value)
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
    """The mapping a YAML scene file holds (read with YAML 1.2 booleans, so ``on:`` is a key)."""
    try:
        data = read_yaml(path)
    except YamlLimitError as exc:
        raise InvalidSceneError(f"file {path}: {exc}") from None
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
        keys = (field.alias or name for name, field in model.model_fields.items())
        text = f"unknown key; allowed: {', '.join(keys)}"
    elif kind == "missing":
        text = "required but missing"
    elif kind == "too_short" and loc == ("objects",):
        text = "empty; a scene needs at least one object"
    elif kind == "too_long" and loc == ("objects",):
        count = err.get("ctx", {}).get("actual_length") or "more"
        text = f"{count} objects; allowed: at most {MAX_SCENE_OBJECTS} in a scene"
    elif kind in ("model_type", "dict_type"):
        text = f"{_short(value)} is not a mapping"
    else:
        msg = err["msg"]
        text = f"{_short(value)} is invalid ({msg[:1].lower()}{msg[1:]})"
    text = " ".join(text.split())
    return f"{where}: {text}" if where else text
