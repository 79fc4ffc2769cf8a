"""The hybrid planner (``--planner offline+MODEL``): the offline reader plans what it reads; what
it cannot read, or finds ambiguous, goes to a model.

Which refusals are handed over (``HANDED_OVER``): ``unparseable`` and ``ambiguous`` — the reader
could not read the words, or read several meanings where one is needed; a model may read them.
The others are answered by the offline reader itself: ``unknown_object`` (the scene has no such
object: the person's bad input, which a model could only answer with a guess) and
``unsupported`` (a verb no skill does, a box to pick up, goals that cannot hold together: the
skills cannot do it whoever reads it) — unless the refusal came from the reading itself
(``ClawError.from_reading``: a relation the reader lacks, "below"; a phrase whose filters the
reader applied and found nothing, "it on the table"; a target that names several objects),
which a model may read otherwise, and so is handed over too. An
instruction with no text at all is refused offline too (there is nothing for a model to read), and
so is one over the reader's length cap or one that is not text
(``claw.planner.language.instruction``): none is sent to the model.

A case keeps its reader: the offline reader replans what it planned, the model what it planned
(in goal mode, which the family asks for by default, that is the step generator again).
"""

from __future__ import annotations

import logging
from collections.abc import Collection

from claw.common.exceptions import ClawError
from claw.envs.tabletop import TabletopEnv
from claw.planner.base import Planner, PlannerPair, Usage
from claw.planner.language.instruction import check_instruction
from claw.planner.text import clean_text
from claw.skills import Failure, Plan

logger = logging.getLogger(__name__)
HANDED_OVER = frozenset({"unparseable", "ambiguous"})
"""The kinds of refusal the first planner hands over to the model."""


class HybridPlanner(PlannerPair):
    """Plans with ``first``; an instruction it refuses with a kind in ``hands_over`` is planned
    by ``fallback`` (a model's planner) instead, which then replans it too.

    Its model, usage and answer hook are the model's (``usage.calls`` is 0 while the first one
    reads everything); ``reader`` says who read the last instruction, and ``handed_over`` the
    refusal that was handed over (``None`` when the first one planned it, or refused it itself).
    """

    def __init__(
        self, first: Planner, fallback: Planner, hands_over: Collection[str] = HANDED_OVER
    ) -> None:
        super().__init__(first, fallback)
        self.hands_over = frozenset(hands_over)
        self.name = f"{first.name}+{fallback.name}"
        self.handed_over: ClawError | None = None

    @property
    def model(self) -> str | None:
        """The model it hands over to."""
        return self.fallback.model

    @property
    def usage(self) -> Usage | None:
        """The model's calls, tokens and cost."""
        return self.fallback.usage

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        """The first planner's plan; the model's where the first refuses in a handed-over kind.

        Raises:
            ClawError: the first planner's refusal of another kind, or the model's own; an
                instruction over ``MAX_INSTRUCTION_CHARS``, or not text, is refused offline.
        """
        self.active, self.handed_over = self.first, None
        check_instruction(
            instruction
        )  # what the reader refuses for its length, a model is not sent
        try:
            return self.first.plan(instruction, env)
        except ClawError as exc:
            if not self.handing_over(exc) or not instruction.strip():
                raise
            self.active, self.handed_over = self.fallback, exc
        logger.info(
            "note: %s did not read it (%s: %s); asking %s",
            self.first.name,
            self.handed_over.kind,
            clean_text(self.handed_over, 200),
            clean_text(self.fallback.name, 80),
        )
        return self.fallback.plan(instruction, env)

    def handing_over(self, refusal: ClawError) -> bool:
        """Whether the first planner's refusal goes to the model: a kind in ``hands_over``,
        or any refusal that came from how the instruction was read (``from_reading``: "put
        the red block below the blue one" read as a relation no skill does) rather than
        from the world."""
        return refusal.kind in self.hands_over or refusal.from_reading

    def replan(
        self, instruction: str, plan: Plan, env: TabletopEnv, failure: Failure | None = None
    ) -> Plan:
        """A new plan from the planner that wrote the first one."""
        return self.active.replan(instruction, plan, env, failure)
