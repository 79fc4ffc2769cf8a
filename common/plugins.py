"""Code named by reference, and what installed packages offer claw.

A registry entry may be the object itself or a ``"module:attr"`` reference to it, imported the
first time it is used (:func:`load`), so that registering costs no import. Installed packages
offer planners and skills through entry-point groups (:data:`GROUPS`), read once per process and
only when a name is asked for that no registration gave (:func:`entry_points`)::

    [project.entry-points."claw.planners"]
    echo = "claw_echo:family"          # a PlannerFamily, or a factory taking a PlannerContext

    [project.entry-points."claw.skills"]
    wave = "claw_echo:Wave"            # a Skill class; the entry point's name is the skill's

    [project.entry-points."claw.perceivers"]
    owlvit = "my_package:OwlVit"       # a class or factory returning a Perceiver
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from claw.common.exceptions import PluginError

REFERENCE = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
"""A ``"module:attr"`` reference: a dotted module, a colon, a dotted attribute."""
PLANNERS, SKILLS, PERCEIVERS = "claw.planners", "claw.skills", "claw.perceivers"
GROUPS = (PLANNERS, SKILLS, PERCEIVERS)
"""The entry-point groups claw reads."""
OWN_DISTRIBUTION = "claw"
"""What claw's own entry points are installed as (its families are never replaced)."""


@dataclass(frozen=True)
class Offer:
    """One entry point of a group: its name, its reference and the distribution offering it."""

    name: str
    reference: str
    distribution: str

    @property
    def own(self) -> bool:
        """Offered by claw itself."""
        return self.distribution == OWN_DISTRIBUTION


def is_reference(value: object) -> bool:
    """Whether ``value`` is a ``"module:attr"`` reference."""
    return isinstance(value, str) and REFERENCE.fullmatch(value) is not None


def load(reference: str, what: str = "plugin") -> Any:
    """The object ``reference`` (``"module:attr"``, the attribute dotted) names.

    Raises:
        PluginError: not a reference, or it cannot be imported (one line naming ``what``, the
            reference and why).
    """
    if not is_reference(reference):
        raise PluginError(f"{what}: {reference!r} is not a 'module:attr' reference")
    module_name, _, attribute = reference.partition(":")
    try:
        found: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            found = getattr(found, part)
    except Exception as exc:  # whatever the plugin's import raises is its failure to load
        raise PluginError(
            f"{what} {reference!r} cannot be loaded: {type(exc).__name__}: {exc}"
        ) from None
    return found


@cache
def entry_points(group: str) -> tuple[Offer, ...]:
    """What installed packages offer in ``group``: claw's own first, in the order its metadata
    lists them, then the others by name (a name offered twice: the first only)."""
    from importlib.metadata import entry_points as installed

    offers: dict[str, Offer] = {}
    for point in installed(group=group):
        dist = point.dist.name if point.dist is not None else ""
        offers.setdefault(point.name, Offer(point.name, point.value, dist))
    return tuple(sorted(offers.values(), key=lambda o: (not o.own, "" if o.own else o.name)))


def offer(group: str, name: str) -> Offer | None:
    """The entry point of ``group`` named ``name``, if an installed package offers one."""
    return next((o for o in entry_points(group) if o.name == name), None)
