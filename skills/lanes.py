"""Lanes: in a two-arm scene, consecutive calls of the two arms run at the same time.

A call runs in its arm's lane when it names its arm and needs only that one. A *stage* gathers
consecutive such calls as long as the two arms' calls in it name no common object or region and
work in bands of the table (across y) at least ``2 * LANE_CLEARANCE`` apart, so that the arms
do not cross; every other call (a two-arm skill, a call naming no arm) is a stage of its own.
Within a stage each arm runs its calls in order, both arms in one simulation
(:meth:`~claw.envs.TabletopEnv.parallel`); after a failure neither lane starts another call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from claw.envs.exceptions import PredicateError
from claw.envs.regions import region_anchor, resolve_region
from claw.envs.state import WorldState
from claw.envs.tabletop import TabletopEnv
from claw.skills.base import SkillResult
from claw.skills.plans import ARM_ARG
from claw.skills.registry import skill_arms, skill_names

if TYPE_CHECKING:
    from claw.skills.plans import SkillCall

LANE_CLEARANCE = 0.10  # m a lane's claw may reach across y beyond the places it names

T = TypeVar("T")


def call_arm(args: dict[str, object]) -> str | None:
    """The arm a call's arguments name, if any."""
    arm = args.get(ARM_ARG)
    return arm if isinstance(arm, str) else None


def resources(args: dict[str, object], object_names: Sequence[str]) -> set[str]:
    """The objects and table regions a call's arguments name."""
    named: set[str] = set()
    for key, value in args.items():
        if key == ARM_ARG or not isinstance(value, str):
            continue
        if value in object_names:
            named.add(value)
            continue
        try:
            named.add(resolve_region(value))
        except PredicateError:
            continue
    return named


def busy_objects(
    env: TabletopEnv, calls: Sequence[dict[str, object]], arms: Sequence[str | None]
) -> dict[str, set[str]]:
    """The objects each arm's calls (their arguments) name."""
    busy: dict[str, set[str]] = {}
    for args, arm in zip(calls, arms, strict=True):
        if arm is not None:
            named = resources(args, env.object_names) & set(env.object_names)
            busy.setdefault(arm, set()).update(named)
    return busy


def stages(
    env: TabletopEnv, calls: Sequence[dict[str, object]], both: Sequence[bool]
) -> list[list[int]]:
    """The calls (their arguments, in order) split into stages, as indices; ``both`` says which
    calls need both arms. With one arm, every call is a stage of its own."""
    if len(env.arms.arms) < 2:
        return [[i] for i in range(len(calls))]
    world = env.world_state()
    split: list[list[int]] = []
    current: list[int] = []
    used: dict[str, set[str]] = {}
    for i, (args, needs_both) in enumerate(zip(calls, both, strict=True)):
        arm = call_arm(args)
        if needs_both or arm is None:
            split.extend([current, [i]] if current else [[i]])
            current, used = [], {}
            continue
        names = resources(args, env.object_names)
        mine = used.get(arm, set()) | names
        if any(_conflict(mine, taken, world) for other, taken in used.items() if other != arm):
            split.append(current)
            current, used = [], {}
        current.append(i)
        used.setdefault(arm, set()).update(names)
    if current:
        split.append(current)
    return split


def _conflict(mine: set[str], theirs: set[str], world: WorldState) -> bool:
    """Whether two lanes naming these objects and regions would get in each other's way: they
    share one, or the bands of the table (across y, where the arms stand side by side) they
    work in come within ``LANE_CLEARANCE`` of each other."""
    if mine & theirs:
        return True
    (low, high), (other_low, other_high) = _band(mine, world), _band(theirs, world)
    return low - LANE_CLEARANCE < other_high + LANE_CLEARANCE and (
        other_low - LANE_CLEARANCE < high + LANE_CLEARANCE
    )


def _band(names: set[str], world: WorldState) -> tuple[float, float]:
    """The span across the table (y, m) of the objects and region anchors named."""
    ys = [
        float(world.objects[n].position[1]) if n in world.objects else region_anchor(n)[1]
        for n in names
    ]
    return (min(ys), max(ys)) if ys else (np.inf, -np.inf)


def plan_stages(env: TabletopEnv, calls: Sequence[SkillCall]) -> list[list[int]]:
    """:func:`stages` of a plan's calls, as they will run (for showing a plan as lanes)."""
    names = skill_names()
    both = [c.skill in names and skill_arms(c.skill) > 1 for c in calls]
    return stages(env, [c.args for c in calls], both)


def run_stage(
    env: TabletopEnv,
    items: Sequence[T],
    arms: Sequence[str | None],
    run: Callable[[T], SkillResult],
    busy: Mapping[str, set[str]] | None = None,
) -> dict[int, SkillResult]:
    """Run one stage's items (each on its arm, ``arms[k]``); the results of those that ran, by
    position. One arm's items run in turn; two arms' in two lanes at the same time, each lane's
    waits for rest leaving out what the other works with (``busy``: the objects by arm)."""
    ran: dict[int, SkillResult] = {}
    if len(set(arms)) < 2:
        for k, item in enumerate(items):
            ran[k] = run(item)
            if not ran[k].success:
                break
        return ran
    stop = threading.Event()

    def lane(arm: str) -> None:
        for k, item in enumerate(items):
            if arms[k] != arm:
                continue
            if stop.is_set():
                return
            ran[k] = run(item)
            if not ran[k].success:
                stop.set()

    lanes = {arm: (lambda arm=arm: lane(arm)) for arm in dict.fromkeys(a for a in arms if a)}
    env.parallel(lanes, busy)
    return ran


def in_report_order(ran: dict[int, SkillResult]) -> list[SkillResult]:
    """A stage's results in the plan's order, the failed ones last (a run stops at them)."""
    order = sorted(ran)
    return [ran[k] for k in order if ran[k].success] + [ran[k] for k in order if not ran[k].success]
