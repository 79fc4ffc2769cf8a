"""The names of a scene's objects: the automatic ``<color>_<type>`` (``_2``, ``_3``, ...) or one
given in the spec (``name: left_cube``), and the checks a given name passes."""

from __future__ import annotations

import re
import reprlib
from collections.abc import Sequence
from functools import cache
from typing import Any, Protocol
from xml.etree import ElementTree

from claw.envs import objects as catalog
from claw.envs.exceptions import InvalidSceneError, PredicateError
from claw.envs.model import robot_xml_path
from claw.envs.predicates import ALIASES, PREDICATES
from claw.envs.regions import resolve_region
from claw.envs.relations import key_of

_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
_AUTO = re.compile(rf"({'|'.join(catalog.COLORS)})_({'|'.join(catalog.OBJECT_TYPES)})(_\d+)?")
_ALLOWED = (
    "allowed: lowercase letters, digits and _, starting with a letter, at most 40 (e.g. "
    "left_cube), and no region, predicate or robot part"
)


class Named(Protocol):
    """An object spec as naming reads it."""

    @property
    def type(self) -> str: ...
    @property
    def color(self) -> str: ...
    @property
    def name(self) -> str | None: ...


def scene_names(objects: Sequence[Named]) -> list[str]:
    """The names of ``objects`` in order: the given ``name``, else ``<color>_<type>``, repeats
    suffixed ``_2``, ... (the named objects counted too, so a ``name`` renames no other)."""
    counts: dict[tuple[str, str], int] = {}
    names = []
    for obj in objects:
        key = (obj.color, obj.type)
        counts[key] = counts.get(key, 0) + 1
        names.append(obj.name or catalog.object_name(obj.color, obj.type, counts[key]))
    return names


@cache
def _robot_names() -> frozenset[str]:
    """The names the robot's MJCF gives its bodies, geoms, joints, sites and the like."""
    root = ElementTree.parse(robot_xml_path()).getroot()
    return frozenset(e.attrib["name"] for e in root.iter() if "name" in e.attrib)


def check_object_name(value: Any) -> str:
    """``value`` as a given object name: an identifier-like token that names no table region,
    predicate or part of the robot's model.

    Raises:
        ValueError: what is wrong and what is allowed, in one line.
    """
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise ValueError(f"{reprlib.repr(value)} is not an object name; {_ALLOWED}")
    try:
        resolve_region(value)
    except PredicateError:
        pass
    else:
        raise ValueError(f"{value!r} names a table region; {_ALLOWED}")
    if key_of(value) in PREDICATES or key_of(value) in ALIASES:
        raise ValueError(f"{value!r} names a predicate; {_ALLOWED}")
    if value in _robot_names():
        raise ValueError(f"{value!r} names a part of the robot or the table; {_ALLOWED}")
    return value


def check_unique_names(objects: Sequence[Named]) -> None:
    """Refuse a given ``name`` that another object has (given or automatic), or that reads as
    another colour and type's automatic name (``blue_box`` for a red block).

    Raises:
        InvalidSceneError: naming the object (by index) and the clash.
    """
    names = scene_names(objects)
    for i, obj in enumerate(objects):
        if obj.name is None:
            continue
        where = f"objects[{i}].name ({obj.name})"
        auto = _AUTO.fullmatch(obj.name)
        if auto is not None and (auto.group(1), auto.group(2)) != (obj.color, obj.type):
            raise InvalidSceneError(
                f"{where}: reads as a {auto.group(1)} {auto.group(2)}'s name, and it is a "
                f"{obj.color} {obj.type}; allowed: a name no other colour or type has"
            )
        others = [k for k, name in enumerate(names) if name == obj.name and k != i]
        if others:
            raise InvalidSceneError(
                f"{where}: objects[{others[0]}] is named {obj.name} too; allowed: a name no "
                "other object of the scene has"
            )
