"""claw: natural-language instructions to robot skills on a MuJoCo tabletop.

The parts live in their own packages: ``claw.envs`` (the simulated world), ``claw.skills``,
``claw.library``, ``claw.planner`` and ``claw.eval``. This package holds the CLI and stays light so
that ``claw`` starts fast.
"""

import os

__version__ = "0.1.0"

MUJOCO_GL_GIVEN = os.environ.get("MUJOCO_GL")
"""The rendering backend the user chose (``None``: none): ``claw.envs`` and the CLI set one
later where the user did not, and a process claw starts (``claw bench startup``) gets the
user's choice, not claw's."""
