"""Stage 3, steps: goal predicates + the scene to skill calls.

The goals are ordered (:mod:`~claw.planner.steps.ordering`), room is made where a region is
crowded (:mod:`~claw.planner.steps.room`), each goal becomes its calls
(:mod:`~claw.planner.steps.writer`), and in a two-arm scene each call gets its arm
(:mod:`~claw.planner.steps.arms`). Imports the language and grounding stages, never the LLM side.
"""
