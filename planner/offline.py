"""The offline planner: instruction -> requests -> goal predicates -> skill calls, deterministic,
no network. Its stages, each with a typed input and output:

1. **language** (:func:`claw.planner.language.grammar.parse_instruction`): the text to
   :class:`~claw.planner.language.forms.Request` s, knowing no scene (the clause grammar, noun
   phrases in :mod:`claw.planner.language.reference`, every word in
   :mod:`claw.planner.language.lexicon`);
2. **grounding** (:func:`claw.planner.grounding.goals.ground_requests`): requests + the scene to a
   :class:`~claw.planner.language.forms.Grounding`, the goal predicates split where pushes were
   asked for (noun phrases grounded by :mod:`claw.planner.grounding.references`; goals no order
   reaches refused);
3. **steps** (:func:`claw.planner.steps.writer.write_steps`): the grounding + the scene to skill
   calls, ordered by :mod:`claw.planner.steps.ordering`, making room by
   :mod:`claw.planner.steps.room`.

The LLM path (:mod:`claw.planner.llm.planner`) has a model write the plan, or, in goal mode, only
the goal, whose steps stage 3 writes (:mod:`claw.planner.llm.goal_mode`).

Pushes run where the instruction asked for them, between the goals of the requests before and
after. "Unstack the tower", "take the blocks off the red block" and "put every block on the
table" put each block resting on another next to its tower's base. Replanning is planning again
from the state as it now is (pushes that had not run yet are kept, at the end).
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace

from claw.common.exceptions import ClawError
from claw.envs.exceptions import UnknownObjectError
from claw.envs.predicates import Predicate
from claw.envs.state import WorldState
from claw.envs.tabletop import TabletopEnv
from claw.planner.base import BasePlanner
from claw.planner.exceptions import UnparseableError
from claw.planner.grounding.goals import ground_requests
from claw.planner.grounding.references import color_of, type_of
from claw.planner.grounding.skill_verbs import skill_verb_call
from claw.planner.grounding.suggest import help_with
from claw.planner.language.arm_phrases import ArmIntent, check_said, read_arm_phrases
from claw.planner.language.forms import Segment
from claw.planner.language.robust import read_instruction
from claw.planner.steps.arms import arm_goal, assign_arms, with_arms
from claw.planner.steps.writer import write_plan, write_steps
from claw.skills import Failure, Plan, ReadingNotes, SkillCall, WordMatch


class OfflinePlanner(BasePlanner):
    """Grammar + symbolic planner; the default, deterministic and offline."""

    name = "offline"

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        """Read the instruction and plan from the current state.

        Steps keep the instruction's order where it gives one: a push runs where it was asked
        for (before the goals of later requests, after those of earlier ones).

        Raises:
            UnparseableError, UnsupportedError, UnknownObjectError: before anything moves; an
                ``unparseable``, ``ambiguous`` or ``unknown_object`` refusal carries what was
                read (``read``) and the closest instructions the reader does read on this
                scene (``suggestions``, :mod:`claw.planner.grounding.suggest`).
        """
        instruction = unicodedata.normalize("NFKC", instruction)  # "ｐｕｔ" reads as "put"
        try:
            return self._plan(instruction, env)
        except (UnparseableError, UnknownObjectError) as refusal:
            help_with(refusal, instruction, env, lambda text: self._goal_of(text, env))
            raise

    def _goal_of(self, text: str, env: TabletopEnv) -> list[str] | None:
        """The goal ``text`` is planned with on this scene, or None when it is refused."""
        try:
            return [str(g) for g in self._plan(text, env).goal]
        except ClawError:
            return None

    def _plan(self, instruction: str, env: TabletopEnv) -> Plan:
        world = env.world_state()
        seen = {f(n, world) for n in env.object_names for f in (color_of, type_of)}
        said = skill_verb_call(instruction, env.object_names, world)
        if said is not None:  # a skill said by its own verb: that call, judged by its result
            return Plan(steps=[said])
        text, intent = read_arm_phrases(instruction, env.arms.arms)
        check_said(text, intent, world)
        reading = read_instruction(
            text, seen, lambda requests: ground_requests(requests, env.object_names, world)
        )
        grounding = ground_requests(reading.requests, env.object_names, world)
        segments = [replace(s, goals=arm_goal(s.goals, intent, world)) for s in grounding.segments]
        plan = with_arms(
            write_plan(segments, world, arm_goal(grounding.goal, intent, world)), world, intent
        )
        if reading.ignored or reading.corrected:
            notes = ReadingNotes(
                ignored=list(reading.ignored),
                corrected={c.typed: c.read for c in reading.corrected},
                matched=[WordMatch(**c._asdict()) for c in reading.corrected],
            )
            plan.reading = notes
        return plan

    def replan(
        self, instruction: str, plan: Plan, env: TabletopEnv, failure: Failure | None = None
    ) -> Plan:
        """Plan again from the state as it is now, for what remains of the goal.

        The waypoints not reached yet (``plan.waypoints``: the run leaves out those reached)
        are reached again in turn, then the goal. Pushes of the old plan that had not run yet
        (after the failed step) are kept; a failed push is not repeated (how far it moved the
        object is not a goal the planner can check).
        """
        segments = [Segment(w.goal, waypoints=w.goal) for w in plan.waypoints]
        world = env.world_state()
        replanned = with_arms(write_plan([*segments, Segment(plan.goal)], world, plan.goal), world)
        if failure is not None:
            replanned.steps.extend(c for c in plan.steps[failure.step :] if c.skill == "push")
        return replanned

    def steps(self, goal: list[Predicate], world: WorldState) -> list[SkillCall]:
        """Skill calls that reach ``goal`` from ``world``, skipping what already holds."""
        return assign_arms(write_steps([Segment(goal)], world, goal), world, goal, ArmIntent())
