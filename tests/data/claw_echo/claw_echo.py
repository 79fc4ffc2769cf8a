"""A claw plugin in one module: the ``wave`` skill and the ``echo`` planner family.

Installed (``pip install .``), claw finds both through the entry points in ``pyproject.toml``:
``claw "wave at the red block"`` is read offline by the skill's own verbs, a model's planner
sees ``wave`` in its catalogue and schema, and ``claw "the red block" --planner echo`` plans
with the family below.
"""

from __future__ import annotations

from claw.envs import TabletopEnv
from claw.planner import BasePlanner, Failure, Plan, PlannerContext, PlannerFamily, SkillCall
from claw.skills import ObjectName, Skill, SkillParams, SkillResult, get_skill

LIFT = 0.15
"""How far above the object's top (m) the claw rises to wave."""


class WaveParams(SkillParams):
    object: ObjectName


class Wave(Skill[WaveParams]):
    """Rise above an object, then return to rest: success is both motions arriving."""

    name = "wave"
    description = "Wave at an object: the claw rises above it, then returns to its rest pose."
    examples = ("wave at the red block", "wave to the blue box")
    verbs = ("wave at", "wave to")
    measures_own_success = True

    def execute(self, env: TabletopEnv, params: WaveParams) -> SkillResult:
        obj = env.world_state().get(params.object)
        x, y = (float(v) for v in obj.xy)
        above = get_skill("move_to")(env, x=x, y=y, z=float(obj.top) + LIFT)
        back = get_skill("home")(env) if above.success else above
        return SkillResult(
            skill=self.name,
            success=above.success and back.success,
            reason=back.reason,
            sim_seconds=above.sim_seconds + (back.sim_seconds if back is not above else 0.0),
            details={"above": above.details},
        )


class EchoPlanner(BasePlanner):
    """Waves at every object of the scene the instruction names ("the red block")."""

    name = "echo"

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        said = instruction.lower()
        named = [n for n in env.object_names if n.replace("_", " ") in said]
        return Plan(steps=[SkillCall(skill="wave", args={"object": n}) for n in named])

    def replan(
        self, instruction: str, plan: Plan, env: TabletopEnv, failure: Failure | None = None
    ) -> Plan:
        return self.plan(instruction, env)


def echo_planner(context: PlannerContext) -> EchoPlanner:
    """``echo``: the planner above (it asks no model and reads no argument)."""
    return EchoPlanner()


FAMILY = PlannerFamily("echo", echo_planner, usage="echo (waves at the objects named)")
