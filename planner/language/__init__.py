"""Stage 1, language: an instruction's text to typed requests, knowing no scene.

The clause grammar (:mod:`~claw.planner.language.grammar`, ``grammar.lark``) reads clauses into
:class:`~claw.planner.language.forms.Request` s; noun phrases are read by
:mod:`~claw.planner.language.reference` and :mod:`~claw.planner.language.modifiers`; every word
the reader knows is in :mod:`~claw.planner.language.lexicon`. Text as people type it (typos,
chat forms, self-corrections, asides) is made readable by
:mod:`~claw.planner.language.robust`, and what a reading leaves out is judged by
:mod:`~claw.planner.language.audit` (sure or silent). Nothing here imports a later stage.
"""
