"""``place``: put the held object where a relation to a target holds, release it, retreat."""

from __future__ import annotations

import math
from typing import Annotated, Any

import numpy as np
from pydantic import Field, GetCoreSchemaHandler, GetJsonSchemaHandler, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

from claw.common.exceptions import ClawError
from claw.envs.geometry import wrap_angle
from claw.envs.predicates import Predicate, evaluate
from claw.envs.regions import region_anchor, resolve_region
from claw.envs.relations import relation, relation_names, relations
from claw.envs.robot import PAD_REACH
from claw.envs.state import WorldState, unknown_object_error
from claw.envs.tabletop import TabletopEnv
from claw.envs.world import held_object
from claw.skills.base import ObjectRef, RegionRef, Skill, SkillParams, SkillResult
from claw.skills.basic import result
from claw.skills.exceptions import NoPlacement
from claw.skills.motion import Claw
from claw.skills.pick import (
    GRASP_MARGIN,
    MAX_GRASP_WIDTH,
    object_width,
    safe_height,
)
from claw.skills.placement import (
    CLEARANCE,
    Placement,
    find_placement,
    holds_with_margin,
    targets_problem,
)
from claw.skills.registry import register_skill

INSIDE_MARGIN = 0.014  # m the fingers open beyond the object to release it inside a box
INSIDE_CLEARANCE = 0.008  # m kept from other objects inside a box
DROP_HEIGHT = 0.004  # m between the object's bottom and its support when the claw lets go
RIM_DROP = 0.004  # m between a box's rim and the object's bottom (and the pads) when dropped in
RETREAT = 0.08  # m the claw rises after letting go


def _listed(words: list[str], last: str) -> str:
    """``a, b or c``: words joined by commas, ``last`` before the last one."""
    return f" {last} ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


class RelationName:
    """Marks the name of a relation: validated against :mod:`claw.envs.relations`' registry at
    each use, its JSON schema an enum of the relations registered then (as a ``Literal`` is)."""

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(cls._validate)

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        names = relation_names()
        words = [f"{r.name} (a region)" if r.target == "region" else r.name for r in relations()]
        description = ", ".join([*words[:-1], f"or {words[-1]}"])
        return {"type": "string", "enum": list(names), "description": f"{description}."}

    @staticmethod
    def _validate(value: Any) -> str:
        names = relation_names()
        if isinstance(value, str) and value in names:
            return value
        expected = _listed([repr(n) for n in names], "or")
        raise PydanticCustomError(
            "literal_error", "Input should be {expected}", {"expected": expected}
        )


def _skill_description() -> str:
    """What ``place`` does, naming every relation."""
    to_objects = [r.words for r in relations() if r.target == "object" and r.targets == 1]
    to_pairs = [r.words for r in relations() if r.targets == 2]
    to_regions = [r.words for r in relations() if r.target == "region"]
    pairs = f", {_listed(to_pairs, 'or')} two target objects" if to_pairs else ""
    return (
        f"Put the object the claw holds {_listed(to_objects, 'or')} a target object{pairs}, or "
        f"{_listed(to_regions, 'or')} a table region; the claw picks a free spot, lowers the "
        "object, releases it and moves up."
    )


class PlaceParams(SkillParams):
    target: Annotated[str, RegionRef(objects=True)] = Field(
        description="The object to place relative to, or a table region for 'at'."
    )
    near: Annotated[str | None, RegionRef()] = Field(
        None, description="Optionally a table region: of the spots that work, the nearest to it."
    )
    relation: Annotated[str, RelationName()]
    target2: Annotated[str | None, ObjectRef()] = Field(
        None, description="The second object for a relation of two targets (between); else null."
    )

    @model_validator(mode="after")
    def _targets_fit(self) -> PlaceParams:
        problem = targets_problem(self.relation, self.target2 is not None)
        if problem is not None:
            raise ValueError(problem)
        return self


@register_skill
class Place(Skill[PlaceParams]):
    name = "place"
    description = _skill_description()
    examples = (
        "put it on the blue block",
        "drop it in the box",
        "set it next to the green cube",
        "place it in the far left corner",
        "put it down",
        "set it down beside the box",
        "stack it on top of the block",
        "lay it in the bin",
        "deposit it in the container",
        "position it to the left of the cube",
        "leave it behind the box",
        "rest it on the block",
    )

    find_placement = staticmethod(find_placement)
    """Where the skill would put an object so that a relation holds
    (:func:`claw.skills.placement.find_placement`); raises ``NoPlacement`` where nowhere is."""
    holds_with_margin = staticmethod(holds_with_margin)
    """Whether a relation holds at each of some spots, and a margin around each
    (:func:`claw.skills.placement.holds_with_margin`)."""

    @staticmethod
    def _preferred(
        params: PlaceParams, world: WorldState, snug: bool
    ) -> tuple[float, float] | None:
        """Where to prefer the spot: near the region asked for, or a box's corner when packing."""
        if params.near is not None:
            return region_anchor(params.near)
        if snug:
            corner = world.get(params.target).inner_footprint()[0]
            return float(corner[0]), float(corner[1])
        return None

    def check_names(self, object_names: list[str], params: PlaceParams) -> list[ClawError]:
        if params.near is not None:
            try:
                resolve_region(params.near)
            except ClawError as exc:
                return [exc]
        if relation(params.relation).target == "region":
            try:
                resolve_region(params.target)
            except ClawError as exc:
                return [exc]
        elif params.target not in object_names:
            return [unknown_object_error(params.target, object_names)]
        if params.target2 is not None and params.target2 not in object_names:
            return [unknown_object_error(params.target2, object_names)]
        return []

    def preconditions(self, env: TabletopEnv, params: PlaceParams) -> list[str]:
        problems = self.check_names(env.object_names, params)
        if problems:
            return [str(e) for e in problems]
        held = held_object(env.world_state())
        if held is None:
            return ["nothing is held to place; pick something up first"]
        if held in (params.target, params.target2):
            return [f"{held} cannot be placed relative to itself"]
        return []

    def find_spot(
        self, world: WorldState, held: str, params: PlaceParams
    ) -> tuple[Placement, float]:
        """Where the held object goes and the claw's opening (m) to release it there.

        Raises:
            NoPlacement: no free spot satisfies the relation; says why.
        """
        obj = world.get(held)
        # Inside a box there is little room: release with a narrower opening and keep closer
        # to what is already in it, so that a 12 cm box takes four 4 cm blocks.
        container = world.objects.get(params.target)
        placing = relation(params.relation).placing
        snug = placing.supported and container is not None and container.type == "box"
        margin, clearance = (INSIDE_MARGIN, INSIDE_CLEARANCE) if snug else (GRASP_MARGIN, None)
        if placing.kind == "region":  # objects packed at a region: the fingers between them
            margin = INSIDE_MARGIN
        release = min(object_width(obj) + margin, MAX_GRASP_WIDTH + 0.015)
        spot = find_placement(
            world,
            held,
            params.relation,
            params.target,
            target2=params.target2,
            release_width=release,
            # Pack a box from a corner, which is as safe a spot as its middle, so that the
            # next object still finds room.
            preferred=self._preferred(params, world, snug),
            clearance=CLEARANCE if clearance is None else clearance,
        )
        return spot, release

    def execute(self, env: TabletopEnv, params: PlaceParams) -> SkillResult:
        claw = Claw(env)
        world = env.world_state()
        held = held_object(world)
        assert held is not None
        obj = world.get(held)
        tcp, claw_yaw = claw.tcp()
        # How the claw holds the object: its offset from the tool point and its turn (mod 90°).
        hold_offset = obj.xy - tcp[:2]
        hold_drop = float(tcp[2] - obj.bottom)
        turn = wrap_angle(4 * (obj.yaw - claw_yaw)) / 4
        container = world.objects.get(params.target)
        try:
            spot, release = self.find_spot(world, held, params)
        except NoPlacement as exc:
            return result(self, claw, False, str(exc))

        yaw = wrap_angle(spot.yaw - turn)
        if abs(yaw) > math.pi / 2:  # the claw is symmetric under a half turn
            yaw = wrap_angle(yaw + math.pi)
        rotation = yaw - claw_yaw
        c, s = math.cos(rotation), math.sin(rotation)
        offset = np.array(
            [c * hold_offset[0] - s * hold_offset[1], s * hold_offset[0] + c * hold_offset[1]]
        )
        x, y = spot.x - offset[0], spot.y - offset[1]
        above = safe_height(world, exclude=held, elsewhere=env.arms.others_busy)
        travel = max(above + obj.top - obj.bottom, tcp[2])
        release_z = spot.bottom + DROP_HEIGHT + hold_drop
        if spot.over_rim and container is not None:
            # No room for a finger beside the object inside the walls: let go with the object's
            # bottom and the pads just above the rim; it drops onto its spot.
            release_z = container.rim + RIM_DROP + max(hold_drop, PAD_REACH)

        claw.move(np.array([tcp[0], tcp[1], travel]))
        if not claw.move(np.array([x, y, travel]), yaw).reached:
            return result(self, claw, False, f"could not carry {held} above the spot")
        claw.move(np.array([x, y, release_z]), yaw, speed=0.25)
        claw.grip(release)
        claw.move(np.array([x, y, release_z + RETREAT]), yaw, speed=0.3)
        settled = claw.wait_settled(arm=True)

        after = env.world_state()
        success, reason, details = place_outcome(params, held, after, settled)
        return result(
            self,
            claw,
            success,
            reason,
            spot=[round(spot.x, 4), round(spot.y, 4)],
            over_rim=spot.over_rim,
            **details,
        )


def place_outcome(
    params: PlaceParams, held: str, after: WorldState, settled: bool
) -> tuple[bool, str, dict[str, Any]]:
    """Whether a place succeeded, judged at rest: the relation holds and the claw let go."""
    check = evaluate(_predicate(params, held), after)
    still_held = evaluate(Predicate.of("holding", held), after).holds
    success = check.holds and settled and not still_held
    if still_held:
        reason = f"{held} stuck to the claw"
    elif not settled:
        reason = f"the scene did not come to rest after placing {held}"
    else:
        reason = f"{check.predicate} does not hold after release: {check.reason}"
    return success, reason, {"measured": check.measured}


def _predicate(params: PlaceParams, held: str) -> str:
    at_region = relation(params.relation).target == "region"
    targets = [resolve_region(params.target) if at_region else params.target]
    targets += [] if params.target2 is None else [params.target2]
    return f"{params.relation}({held}, {', '.join(targets)})"
