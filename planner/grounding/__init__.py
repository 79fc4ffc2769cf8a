"""Stage 2, grounding: requests + the scene to goal predicates.

Noun phrases are grounded on the live scene (:mod:`~claw.planner.grounding.references`), each
request's goal is computed (:mod:`~claw.planner.grounding.goals`,
:mod:`~claw.planner.grounding.arrangements`, pushes from geometry in
:mod:`~claw.planner.grounding.pushing`), and goals no order reaches are refused
(:mod:`~claw.planner.grounding.conflicts`). Objects are named back as a user says them
(:mod:`~claw.planner.grounding.naming`), and refusals get suggestions
(:mod:`~claw.planner.grounding.suggest`). Imports the language stage, never a later one.
"""
