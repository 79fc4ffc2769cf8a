"""The LLM side: a model writes the plan, or in goal mode only the goal.

A prompt (:mod:`~claw.planner.llm.prompting`, the templates in ``prompts/``) and the reply's
schema (:mod:`~claw.planner.llm.schema`) go to a model through litellm
(:mod:`~claw.planner.llm.completion`, imported only when a model is asked); the answer is data,
validated and repaired (:mod:`~claw.planner.llm.planner`), or read as a goal whose steps the
offline step writer plans (:mod:`~claw.planner.llm.goal_mode`). The hybrid
(:mod:`~claw.planner.llm.hybrid`) reads offline first; :mod:`~claw.planner.llm.local` serves a
local model; :mod:`~claw.planner.llm.answer_cache` keeps answers. May import every stage.
"""
