"""``python -m claw``: the same as the ``claw`` command."""

from claw.cli import main

main()
