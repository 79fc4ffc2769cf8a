"""Build the MuJoCo model of a scene: the robot and table from MJCF, objects added with MjSpec."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from typing import NamedTuple

import mujoco

from claw.envs.objects import (
    BLOCK_DENSITY,
    BOX_FLOOR_THICKNESS,
    BOX_MASS,
    BOX_WALL_HEIGHT,
    BOX_WALL_THICKNESS,
    COLOR_RGBA,
)

ROBOT_XML = "tabletop.xml"
OBJECT_CLASS = "object"  # the MJCF default class holding the objects' contact parameters


class ObjectModel(NamedTuple):
    """What the model needs to know about an object (poses are set at reset, not here)."""

    name: str
    type: str
    color: str
    size: float


def robot_xml_path() -> str:
    """Path of the MJCF holding the arm, the claw, the table and the cameras."""
    return str(resources.files("claw.envs") / "assets" / ROBOT_XML)


def _add_block(spec: mujoco.MjSpec, obj: ObjectModel) -> None:
    body = spec.worldbody.add_body(name=obj.name)
    body.add_freejoint(name=obj.name)
    half = obj.size / 2
    geom = _add_part(spec, body, obj.name, obj.color, (0.0, 0.0, 0.0), (half, half, half))
    geom.mass = BLOCK_DENSITY * obj.size**3


def _add_box(spec: mujoco.MjSpec, obj: ObjectModel) -> None:
    """An open-top container: a floor and four walls, its origin at the centre of its bounds."""
    body = spec.worldbody.add_body(name=obj.name)
    body.add_freejoint(name=obj.name)
    inner, wall = obj.size / 2, BOX_WALL_THICKNESS / 2
    floor, height = BOX_FLOOR_THICKNESS / 2, BOX_WALL_HEIGHT / 2
    outer = inner + 2 * wall
    # The walls stand on the floor, so only the floor touches the table (fewer contacts).
    wall_z, wall_half = floor, height - floor
    parts = [((0.0, 0.0, -height + floor), (outer, outer, floor))]
    for sign in (1.0, -1.0):
        parts.append(((sign * (inner + wall), 0.0, wall_z), (wall, outer, wall_half)))
        parts.append(((0.0, sign * (inner + wall), wall_z), (inner, wall, wall_half)))
    volumes = [8 * sx * sy * sz for _, (sx, sy, sz) in parts]
    for i, ((pos, size), volume) in enumerate(zip(parts, volumes, strict=True)):
        geom = _add_part(spec, body, f"{obj.name}/{i}", obj.color, pos, size)
        geom.mass = BOX_MASS * volume / sum(volumes)


def _add_part(
    spec: mujoco.MjSpec,
    body: mujoco.MjsBody,
    name: str,
    color: str,
    pos: tuple[float, float, float],
    half_size: tuple[float, float, float],
) -> mujoco.MjsGeom:
    """A box geom of the ``object`` class (contact parameters from the MJCF)."""
    return body.add_geom(
        spec.find_default(OBJECT_CLASS),
        name=name,
        type=mujoco.mjtGeom.mjGEOM_BOX,
        pos=list(pos),
        size=list(half_size),
        rgba=list(COLOR_RGBA[color]),
    )


@lru_cache(maxsize=16)
def _compile(objects: tuple[ObjectModel, ...]) -> mujoco.MjModel:
    spec = mujoco.MjSpec.from_file(robot_xml_path())
    for obj in objects:
        (_add_block if obj.type == "block" else _add_box)(spec, obj)
    return spec.compile()


def build_model(objects: Iterable[ObjectModel]) -> mujoco.MjModel:
    """A fresh MjModel of the robot and table with these objects, one free body each.

    Compiled models are cached by their objects; each call returns a copy, so callers may change
    model parameters (domain randomisation) without affecting one another.
    """
    return copy.copy(_compile(tuple(objects)))
