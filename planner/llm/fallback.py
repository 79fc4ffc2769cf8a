"""The fallback planner (``--fallback offline``): a model's planner that hands over to another
(the offline reader) when the model cannot be reached or used."""

from __future__ import annotations

import logging

from claw.envs.tabletop import TabletopEnv
from claw.planner.base import Planner, PlannerPair, Usage
from claw.planner.exceptions import PlannerUnavailableError
from claw.planner.text import clean_text
from claw.skills import Failure, Plan

logger = logging.getLogger(__name__)


class FallbackPlanner(PlannerPair):
    """A planner that hands over to another when the first is unavailable.

    The hand-over is said once, in one line logged to ``claw`` (``note: MODEL unavailable
    (REASON); planning offline``; the CLI shows it on stderr), and kept in ``fallback_reason``
    (None while the first one plans). Its model, usage and answer hook are the first's.
    """

    def __init__(self, first: Planner, fallback: Planner) -> None:
        super().__init__(first, fallback)
        self.name = f"{first.name} (fallback {fallback.name})"
        self.fallback_reason: str | None = None

    @property
    def model(self) -> str | None:
        """The first planner's model."""
        return self.first.model

    @property
    def usage(self) -> Usage | None:
        """The first planner's calls, tokens and cost (those before the hand-over)."""
        return self.first.usage

    def _hand_over(self, exc: PlannerUnavailableError) -> None:
        self.active = self.fallback
        if self.fallback_reason is None:
            reason = str(exc).removeprefix(f"{self.first.name} ")
            self.fallback_reason = clean_text(reason, 200)
            logger.warning(
                "note: %s unavailable (%s); planning %s",
                clean_text(self.first.name, 80),
                self.fallback_reason,
                self.fallback.name,
            )

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        try:
            return self.first.plan(instruction, env)
        except PlannerUnavailableError as exc:
            self._hand_over(exc)
            return self.fallback.plan(instruction, env)

    def replan(
        self, instruction: str, plan: Plan, env: TabletopEnv, failure: Failure | None = None
    ) -> Plan:
        try:
            return self.active.replan(instruction, plan, env, failure)
        except PlannerUnavailableError as exc:
            self._hand_over(exc)
            return self.fallback.replan(instruction, plan, env, failure)
