"""Making room: moving blocks out of a crowded region, using a box that fills it, or stacking
there when the region is full."""

from __future__ import annotations

import numpy as np

from claw.common.exceptions import ClawError
from claw.envs.predicates import AT_RADIUS, Predicate, evaluate
from claw.envs.regions import REGIONS, region_anchor
from claw.envs.state import WorldState
from claw.envs.world import supported_by
from claw.planner.grounding.conflicts import moves, targets
from claw.planner.steps.ordering import REGION_CLEARING
from claw.skills import NoPlacement, Place, SkillCall

BOX_MARGIN = 0.002  # m: least room kept inside a region's radius for a block placed in a box


def _without(world: WorldState, names: set[str]) -> WorldState:
    """The world with these objects taken away (to ask where things would fit then)."""
    kept = {n: o for n, o in world.objects.items() if n not in names}
    return WorldState(objects=kept, gripper=world.gripper, table_z=world.table_z)


def fits(world: WorldState, obj: str, relation: str, target: str) -> bool:
    """Whether ``place`` finds a spot for ``obj`` there now (which one does not matter)."""
    try:
        Place.find_placement(world, obj, relation, target, lookahead=0)
    except (NoPlacement, ClawError):
        return False
    return True


def clear_region(
    world: WorldState, obj: str, region: str, keep: set[str], taken: set[str]
) -> list[SkillCall]:
    """Steps that move blocks out of ``region``, where ``obj`` does not fit, to make room.

    Blocks nearest the region's anchor go first, as few as make room; each goes to the nearest
    other region with room that no goal uses. ``keep`` are objects the goal moves anyway.
    Nothing is moved when clearing blocks would not make room (a box is in the way).
    """
    anchor = np.array(region_anchor(region))

    def distance(name: str) -> float:
        return float(np.linalg.norm(world.get(name).xy - anchor))

    near = sorted(
        (
            name
            for name, o in world.objects.items()
            if o.type == "block" and name != obj and name not in keep
            if distance(name) < REGION_CLEARING and not supported_by(world, name)
        ),
        key=distance,
    )
    moved: list[str] = []
    for name in near:
        moved.append(name)
        if fits(_without(world, set(moved)), obj, "at", region):
            break
    else:
        return []
    calls: list[SkillCall] = []
    for name in moved:
        here = world.get(name).xy
        free = [r for r in REGIONS if r != region and r not in taken]
        others = sorted(
            (r for r in free if np.linalg.norm(np.array(REGIONS[r]) - anchor) > 2 * AT_RADIUS),
            key=lambda r: float(np.linalg.norm(np.array(REGIONS[r]) - here)),
        )
        away = next((r for r in others if fits(world, name, "at", r)), None)
        if away is None:
            return []
        taken = taken | {away}
        calls.append(SkillCall(skill="pick", args={"object": name}))
        calls.append(SkillCall(skill="place", args={"target": away, "relation": "at"}))
    return calls


def box_in_region(world: WorldState, obj: str, region: str) -> str | None:
    """A box at the region that ``obj`` fits in (for a region without room), nearest first.

    A block is ``at`` a region when its centre is within 6 cm of the anchor, so a box serves
    when the spot ``place`` would choose in it, as near the anchor as fits, lies that near with
    its landing error to spare: what counts is where the block lands, not where the box stands.
    """
    anchor = np.array(region_anchor(region))
    boxes = sorted(
        (float(np.linalg.norm(box.xy - anchor)), name)
        for name, box in world.objects.items()
        if box.type == "box" and name != obj
    )
    for _, name in boxes:
        try:
            spot = Place.find_placement(
                world, obj, "in", name, preferred=(float(anchor[0]), float(anchor[1])), lookahead=0
            )
        except (NoPlacement, ClawError):
            continue
        reach = AT_RADIUS - max(spot.robustness, BOX_MARGIN)
        if float(np.hypot(spot.x - anchor[0], spot.y - anchor[1])) <= reach:
            return name
    return None


def stack_base(
    world: WorldState,
    obj: str,
    region: str,
    goal: list[Predicate],
    moved: set[str],
    bases: set[str],
) -> str | None:
    """A block at the region to stack ``obj`` on (for a region without room on the table).

    ``obj`` on a block whose centre is ``at`` the region is at the region too. The base is the
    block nearest the anchor with nothing on it (``bases``: what the plan already stacks on) that
    the plan has not moved and no goal moves or places things on; ``None`` when there is none.
    """
    anchor = np.array(region_anchor(region))
    busy = moved | bases | {o for g in goal for o in moves(g) if not evaluate(g, world).holds}
    busy |= {o for g in goal for o in targets(g)}
    distance = {
        name: float(np.linalg.norm(o.xy - anchor))
        for name, o in world.objects.items()
        if o.type == "block" and name != obj and name not in busy
    }
    candidates = sorted(
        (d, name)
        for name, d in distance.items()
        if d <= AT_RADIUS and not supported_by(world, name) and fits(world, obj, "on", name)
    )
    return candidates[0][1] if candidates else None
