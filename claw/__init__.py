"""claw: natural-language instructions to robot skills on a MuJoCo tabletop.

The parts live in their own packages: ``claw.envs`` (the simulated world), ``claw.skills``,
``claw.library``, ``claw.planner`` and ``claw.eval``. This package holds the CLI and stays light so
that ``claw`` starts fast.
"""

__version__ = "0.1.0"
