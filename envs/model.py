"""Build the MuJoCo model of a scene: the robot and table from MJCF, objects added with MjSpec."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from typing import NamedTuple

import mujoco

from claw.envs.arms import ARM_PREFIX, arm_base, arm_names
from claw.envs.objects import (
    BLOCK_DENSITY,
    BOX_FLOOR_THICKNESS,
    BOX_MASS,
    BOX_WALL_HEIGHT,
    BOX_WALL_THICKNESS,
    COLOR_RGBA,
    half_extents,
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


def _add_solid(spec: mujoco.MjSpec, obj: ObjectModel) -> None:
    """A block or a bar: one solid box of wood."""
    body = spec.worldbody.add_body(name=obj.name)
    body.add_freejoint(name=obj.name)
    half = half_extents(obj.type, obj.size)
    geom = _add_part(spec, body, obj.name, obj.color, (0.0, 0.0, 0.0), half)
    geom.mass = BLOCK_DENSITY * 8 * half[0] * half[1] * half[2]


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


def _add_arms(spec: mujoco.MjSpec, count: int) -> None:
    """Mount the MJCF's arm ``count`` times (:mod:`claw.envs.arms`): the first where it stands
    in a one-arm scene's place, the others attached with their names prefixed."""
    names = arm_names(count)
    spec.body("base").pos = list(arm_base(names[0], count))
    for arm in names[1:]:
        frame = spec.worldbody.add_frame(pos=list(arm_base(arm, count)))
        frame.attach_body(mujoco.MjSpec.from_file(robot_xml_path()).body("base"), ARM_PREFIX[arm])


def _merge_rest_keys(model: mujoco.MjModel, count: int) -> None:
    """The ``rest`` keyframe holds every arm at rest (each attached arm brought its own key)."""
    rest = model.key("rest").id
    for arm in arm_names(count)[1:]:
        own = model.key(ARM_PREFIX[arm] + "rest").id
        prefix = ARM_PREFIX[arm]
        for j in range(model.njnt):
            if model.joint(j).name.startswith(prefix):
                adr = model.jnt_qposadr[j]
                model.key_qpos[rest, adr] = model.key_qpos[own, adr]
        for a in range(model.nu):
            if model.actuator(a).name.startswith(prefix):
                model.key_ctrl[rest, a] = model.key_ctrl[own, a]


def _spec(objects: Iterable[ObjectModel], arms: int) -> mujoco.MjSpec:
    spec = mujoco.MjSpec.from_file(robot_xml_path())
    if arms > 1:
        _add_arms(spec, arms)
    for obj in objects:
        (_add_box if obj.type == "box" else _add_solid)(spec, obj)
    return spec


@lru_cache(maxsize=16)
def _compile(objects: tuple[ObjectModel, ...], arms: int) -> mujoco.MjModel:
    model = _spec(objects, arms).compile()
    if arms > 1:
        _merge_rest_keys(model, arms)
    return model


def build_model(objects: Iterable[ObjectModel], arms: int = 1) -> mujoco.MjModel:
    """A fresh MjModel of the robot (``arms`` of them) and table with these objects, one free
    body each.

    Compiled models are cached by their objects; each call returns a copy, so callers may change
    model parameters (domain randomisation) without affecting one another.
    """
    return copy.copy(_compile(tuple(objects), arms))


def model_xml(objects: Iterable[ObjectModel], arms: int = 1) -> str:
    """The MJCF text of :func:`build_model`'s model (for one arm, the same model once compiled;
    with more, the arms' rest keyframes stay apart), for a program that loads it with MuJoCo
    alone."""
    spec = _spec(objects, arms)
    spec.compile()  # to_xml writes a compiled spec
    return spec.to_xml()


def camera_names(model: mujoco.MjModel) -> list[str]:
    """The scene's cameras, by name."""
    return [model.camera(i).name for i in range(model.ncam)]
