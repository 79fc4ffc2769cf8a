"""Planners by name, registered as Gymnasium registers envs: the one registry of ``--planner``.

A family registers a name and a factory (:func:`register_planner`); :func:`make_planner` builds
the planner a ``--planner`` value names. A family without an argument is named exactly
(``offline``, ``local``); one with an argument by its prefix, a colon and the argument
(``replay:FILE``, ``mock:oracle``), or, where the prefix ends in ``+``, by the prefix and the
argument (``offline+MODEL``); any other name is the default family's (a litellm model string).

A factory or check may be given as a ``"module:attr"`` reference, imported when it is first
used. ``claw.planner`` registers ``offline``, models, ``local`` and ``offline+MODEL``
(:mod:`claw.planner.families`); every other family is an entry point of the ``claw.planners``
group, claw's own (``replay:FILE``, ``mock:*``, :mod:`claw.eval.planners`) as an installed
package's, loaded only when a name asks for it (or when the families are listed)::

    [project.entry-points."claw.planners"]
    echo = "claw_echo:family"      # a PlannerFamily, or a factory taking a PlannerContext

A name is checked by :func:`parse_planner` before anything runs; a bad one is an
:class:`InvalidPlannerError` naming what is registered.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from claw.common.exceptions import PluginError
from claw.common.plugins import PLANNERS, Offer, entry_points, is_reference, load
from claw.envs.tabletop import TabletopEnv
from claw.planner.base import Planner
from claw.planner.exceptions import InvalidPlannerError

if TYPE_CHECKING:  # a model's settings and the fallback are imported where a planner uses them
    from claw.planner.llm.completion import ModelSettings

MODEL_ENV = "CLAW_MODEL"
"""The model of the planner used when none is named: ``offline+$CLAW_MODEL`` (the offline reader
plans what it reads, the model the rest); ``offline`` where it is unset."""
JOINER = "+"
"""A family whose name ends in it takes its argument right after it (``offline+MODEL``); any
other family that takes one, after a colon (``mock:oracle``)."""
FAMILY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,38}\+?")
"""A family's name: ASCII letters, digits, ``_``, ``.`` and ``-``, at most 40 characters with a
trailing ``+`` (a family joined to its argument)."""


class PlannerSpec(BaseModel):
    """A parsed ``--planner`` value: its family and the argument the family takes."""

    model_config = ConfigDict(frozen=True)

    text: str
    """The value as given (stripped)."""
    family: str
    """The registered name of its family (``offline``, ``model``, ``replay``, ``mock``, ...)."""
    argument: str = ""
    """What follows ``NAME:`` (``FILE`` of ``replay:FILE``); the whole value for the default
    family (the model string); empty for a family named exactly."""
    reads: Path | None = None
    """A file the planner reads (a replay cassette): outputs are kept apart from it."""
    hand_over: PlannerSpec | None = None
    """The planner a composed family hands part of its work to, parsed (``MODEL`` of
    ``offline+MODEL``); ``None`` for the others."""


@dataclass(frozen=True)
class PlannerContext:
    """What a factory builds its planner from."""

    spec: PlannerSpec
    settings: ModelSettings = field(default_factory=lambda: _model_settings())
    """How a model is asked (endpoint, deadline, temperature, answer length, structure, mode)."""
    env: TabletopEnv | None = None
    """The env the run plans on, reset to its scene (``None`` before one exists)."""
    ground_truth: object = None
    """What a planner answering from the truth reads (``claw eval``'s suite case); ``None``
    outside an evaluation. Its factory narrows the type."""


PlannerFactory = Callable[[PlannerContext], Planner]
"""Builds a family's planner."""
SpecCheck = Callable[[PlannerSpec], PlannerSpec]
"""Checks a family's argument before anything runs (raises :class:`InvalidPlannerError`);
returns the spec, its ``reads`` set where the planner reads a file."""


@dataclass(frozen=True)
class PlannerFamily:
    """A family of planners: how its names read and what builds them (see
    :func:`register_planner`). An installed package's entry point may name one (its ``name``
    is then the entry point's)."""

    name: str
    factory: PlannerFactory | str
    """Builds the planner, or a ``"module:attr"`` reference to what does."""
    usage: str = ""
    """How error messages list it (default: ``name``, or ``name:ARG``)."""
    takes_argument: bool = False
    check: SpecCheck | str | None = None
    """Checks the argument when a name is parsed (or a reference to what does)."""
    default: bool = False
    builtin: bool = False

    @property
    def lead(self) -> str:
        """What a name of this family starts with before its argument (``mock:``, ``offline+``)."""
        return self.name if self.name.endswith(JOINER) else f"{self.name}:"

    def build(self, context: PlannerContext) -> Planner:
        """The planner ``context`` asks for, from the factory (imported on first use)."""
        factory = self.factory
        if isinstance(factory, str):
            factory = load(factory, f"planner family {self.name!r}")
        return factory(context)

    def checked(self, spec: PlannerSpec) -> PlannerSpec:
        """``spec`` as the family's check returns it (unchanged where it has none)."""
        check = self.check
        if isinstance(check, str):
            check = load(check, f"planner family {self.name!r}")
        return check(spec) if check is not None else spec


_families: dict[str, PlannerFamily] = {}


def register_planner(
    prefix: str,
    factory: PlannerFactory | str,
    *,
    usage: str | None = None,
    takes_argument: bool = False,
    check: SpecCheck | str | None = None,
    default: bool = False,
    builtin: bool = False,
) -> None:
    """Register a planner family; registering a name again replaces it, in its place, unless it
    is one of claw's own (``builtin``), which are never replaced.

    Args:
        prefix: The family's name (:data:`FAMILY_NAME`): the whole ``--planner`` value, or with
            ``takes_argument`` the part before ``:`` (or before the argument, for a name that
            ends in ``+``).
        factory: Builds the planner from a :class:`PlannerContext`; or a ``"module:attr"``
            reference to it, imported when a planner of the family is first made.
        usage: How the list of planners in error messages shows it (default: ``prefix``, or
            ``prefix:ARG``); claw's own families are listed first, then the others in the order
            they registered.
        takes_argument: Named ``prefix:ARGUMENT`` rather than exactly ``prefix``.
        check: Checks the argument when the name is parsed, before anything runs (or a
            reference to it).
        default: The family of every name no other family takes (where several are, the
            last listed); ``prefix`` is then only its name in :class:`PlannerSpec`.
        builtin: One of claw's own families (``claw.planner``'s and ``claw.eval``'s).

    Raises:
        ValueError: a name that is not :data:`FAMILY_NAME`, a usage with control characters,
            or a name of claw's own families.
        TypeError: a factory that is neither callable nor a reference.
    """
    _register(PlannerFamily(prefix, factory, usage or "", takes_argument, check, default, builtin))


def _register(family: PlannerFamily) -> None:
    prefix = family.name
    if not FAMILY_NAME.fullmatch(prefix):
        raise ValueError(
            f"a planner family's name has ASCII letters, digits, '_', '.' and '-' (no colon or "
            f"space; a '+' only at its end), at most 40 characters: not {prefix!a}"
        )
    if not (callable(family.factory) or is_reference(family.factory)):
        raise TypeError(
            f"planner family {prefix!r}: its factory is neither callable nor 'module:attr'"
        )
    shown = family.usage or (f"{prefix}:ARG" if family.takes_argument else prefix)
    if not shown.isprintable():
        raise ValueError(f"planner family {prefix!r}: its usage {shown!a} is not printable")
    known = _families.get(prefix)
    if known is not None and known.builtin:
        raise ValueError(f"planner family {prefix!r} is claw's own; register yours by another name")
    _families[prefix] = replace(family, usage=shown)


def _load_offer(offer: Offer) -> None:
    """Register the family an installed package offers.

    Raises:
        PluginError: it does not load, is no family or factory, or takes a name of claw's own.
    """
    what = f"planner family {offer.name!r} of {offer.distribution or 'an installed package'}"
    target: Any = load(offer.reference, what)
    if isinstance(target, PlannerFamily):
        family = replace(target, name=offer.name, builtin=offer.own)
    elif callable(target):
        family = PlannerFamily(offer.name, target, builtin=offer.own)
    else:
        raise PluginError(f"{what}: {offer.reference!r} is neither a PlannerFamily nor a factory")
    try:
        _register(family)
    except (TypeError, ValueError) as exc:
        raise PluginError(f"{what}: {exc}") from None


def _load_offers(text: str | None = None) -> None:
    """Load the ``claw.planners`` entry points a name may be of (``None``: all of them; one
    that does not load is left out of a listing, and refused when it is named)."""
    for offer in entry_points(PLANNERS):
        if offer.name in _families:  # registered already (a name registered in code wins)
            continue
        if text is None:
            try:
                _load_offer(offer)
            except PluginError:
                continue
        elif text == offer.name or text.startswith((f"{offer.name}:", f"{offer.name}{JOINER}")):
            _load_offer(offer)


def planner_names() -> str:
    """The registered planners, as error messages list them: claw's own first, then the others
    in the order they registered (every installed package's entry points loaded)."""
    _load_offers()
    listed = sorted(_families.values(), key=lambda family: not family.builtin)
    return ", ".join(family.usage for family in listed)


def default_planner() -> str:
    """The planner of a run that names none: ``offline+$CLAW_MODEL``, or ``$CLAW_MODEL`` as it is
    where it is ``offline`` or a hybrid already; ``offline`` where ``CLAW_MODEL`` is unset or
    empty."""
    model = (os.environ.get(MODEL_ENV) or "").strip()
    if not model or model == "offline" or model.startswith("offline+"):
        return model or "offline"
    return f"offline+{model}"


def parse_planner(text: str | None) -> PlannerSpec:
    """The planner ``text`` names (``None``: :func:`default_planner`), checked.

    Raises:
        InvalidPlannerError: an empty name, or one its family refuses.
    """
    text = (text if text is not None else default_planner()).strip()
    if not text:
        raise InvalidPlannerError(f"the planner name is empty; planners: {planner_names()}")
    family = _family_of(text)
    if family.default:
        argument = text
    elif family.takes_argument:
        argument = text.removeprefix(family.lead)
    else:
        argument = ""
    return family.checked(PlannerSpec(text=text, family=family.name, argument=argument))


def family_of(text: str) -> str:
    """The name of the family ``text`` is a name of, unchecked (its argument is not parsed).

    Raises:
        InvalidPlannerError: no family takes it (and there is no default family).
    """
    return _family_of(text.strip()).name


def _family_of(text: str) -> PlannerFamily:
    found = _registered_family_of(text)
    if found is None:
        _load_offers(text)
        found = _registered_family_of(text)
    if found is not None:
        return found
    defaults = [family for family in _families.values() if family.default]
    if defaults:
        return defaults[-1]
    raise InvalidPlannerError(f"unknown planner {text!r}; planners: {planner_names()}")


def _registered_family_of(text: str) -> PlannerFamily | None:
    """The registered family (not the default) ``text`` is a name of, if any."""
    exact = _families.get(text)
    if exact is not None and not exact.takes_argument and not exact.default:
        return exact
    led = [f for f in _families.values() if f.takes_argument and text.startswith(f.lead)]
    return max(led, key=lambda family: len(family.lead)) if led else None


def make_planner(
    spec: PlannerSpec | str | None,
    *,
    env: TabletopEnv | None = None,
    ground_truth: object = None,
    fallback: str | None = None,
    settings: ModelSettings | None = None,
) -> Planner:
    """The planner ``spec`` names, built by its family's factory.

    Args:
        spec: A parsed spec, or a name for :func:`parse_planner`.
        env: The env it plans on, reset (the mocks of ``claw eval`` answer from it).
        ground_truth: The suite case, for planners that answer from it (``mock:*``).
        fallback: ``offline`` to plan offline when the model is unavailable.
        settings: How a model is asked (endpoint, default ``$CLAW_API_BASE``; deadline;
            temperature; answer length; structure; mode).

    Raises:
        InvalidPlannerError: a bad name or ``--fallback``, or a planner unusable here.
    """
    settings = settings or _model_settings()
    if not isinstance(spec, PlannerSpec):
        spec = parse_planner(spec)
    if fallback is not None and fallback != "offline":
        raise InvalidPlannerError(f"--fallback must be 'offline', not {fallback!r}")
    family = _families.get(spec.family)
    if family is None:
        raise InvalidPlannerError(f"unknown planner {spec.text!r}; planners: {planner_names()}")
    planner = family.build(PlannerContext(spec, settings, env, ground_truth))
    if planner is None:
        raise InvalidPlannerError(
            f"planner family {family.name!r} built no planner for {spec.text!r} (its factory "
            "returned None)"
        )
    if fallback is not None:
        from claw.planner.llm.fallback import FallbackPlanner

        planner = FallbackPlanner(planner, make_planner(fallback, env=env, settings=settings))
    return planner


def _model_settings() -> ModelSettings:
    """How a model is asked where nothing says otherwise."""
    from claw.planner.llm.completion import ModelSettings

    return ModelSettings()
