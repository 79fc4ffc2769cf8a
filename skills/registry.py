"""Skills by name, as Gymnasium registers envs: each implementation of a skill is registered
under the skill's ``name`` and its ``implementation`` (``controller``, ``learned``).

claw's skills register when ``claw.skills`` is imported (:func:`register_skill`, a class
decorator); a skill may also be registered by a ``"module:attr"`` reference, imported when it is
first asked for (:func:`register_skill_reference`), and an installed package offers its skills
as entry points of the ``claw.skills`` group, the entry point's name the skill's::

    [project.entry-points."claw.skills"]
    wave = "claw_echo:Wave"
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any, TypeVar

from claw.common.exceptions import PluginError
from claw.common.plugins import SKILLS, entry_points, is_reference, load
from claw.skills.base import Skill
from claw.skills.exceptions import UnknownSkillError

S = TypeVar("S", bound=type[Skill[Any]])
_REGISTRY: dict[str, dict[str, type[Skill[Any]]]] = {}
_REFERENCES: dict[str, list[str]] = {}
"""Skills registered by ``"module:attr"`` reference, by name, not imported yet."""
_offers_read = False


def register_skill(cls: S) -> S:
    """Class decorator: register a skill under its ``name`` and ``implementation``."""
    implementations = _REGISTRY.setdefault(cls.name, {})
    if cls.implementation in implementations and implementations[cls.implementation] is not cls:
        raise ValueError(f"skill {cls.name!r} already has an implementation {cls.implementation!r}")
    implementations[cls.implementation] = cls
    return cls


def register_skill_reference(name: str, reference: str) -> None:
    """Register skill ``name`` as a ``"module:attr"`` reference to its class, imported the first
    time the skill is asked for (or the skills are listed).

    Raises:
        PluginError: ``reference`` is not a ``"module:attr"`` reference.
    """
    if not is_reference(reference):
        raise PluginError(f"skill {name!r}: {reference!r} is not a 'module:attr' reference")
    _REFERENCES.setdefault(name, []).append(reference)


def _load_offers() -> None:
    """Register, by reference, the skills installed packages offer (``claw.skills``), once."""
    global _offers_read
    if not _offers_read:
        _offers_read = True
        for offer in entry_points(SKILLS):
            register_skill_reference(offer.name, offer.reference)


def _resolve(name: str) -> None:
    """Import and register the classes skill ``name`` was registered by reference as.

    Raises:
        PluginError: a reference that does not import, or is no skill class of that name.
    """
    for reference in _REFERENCES.pop(name, []):
        cls = load(reference, f"skill {name!r}")
        if not (isinstance(cls, type) and issubclass(cls, Skill)):
            raise PluginError(f"skill {name!r}: {reference!r} is not a Skill class")
        if cls.name != name:
            raise PluginError(f"skill {name!r}: {reference!r} is named {cls.name!r}")
        try:
            register_skill(cls)
        except ValueError as exc:
            raise PluginError(f"skill {name!r}: {exc}") from None


def is_skill(name: str) -> bool:
    """Whether a skill of this name is registered (or offered by an installed package).

    Raises:
        PluginError: it is offered but cannot be loaded.
    """
    if name not in _REGISTRY:
        _load_offers()
        _resolve(name)
    return name in _REGISTRY


def skill_names(arms: int | None = None) -> list[str]:
    """Names of the registered skills, sorted (those installed packages offer included; one that
    cannot be loaded is left out here, and refused when it is named); with ``arms``, those a
    scene of that many arms offers (a skill needing two arms is not offered with one)."""
    if arms is not None:
        return [n for n in skill_names() if skill_arms(n) <= arms]
    _load_offers()
    for name in list(_REFERENCES):
        with contextlib.suppress(PluginError):
            _resolve(name)
    return sorted(_REGISTRY)


def skill_listing(arms: int | None = None, composites: Sequence[str] | None = None) -> str:
    """The skills a message lists: those a scene of ``arms`` arms offers; with ``None``, every
    one, those needing two arms named as such; then the ``composites``, where given."""
    if arms is not None:
        listed = ", ".join(skill_names(arms))
    else:
        more = [n for n in skill_names() if skill_arms(n) > 1]
        listed = ", ".join(skill_names(1)) + (f"; with two arms: {', '.join(more)}" if more else "")
    if composites is not None:
        listed += f"; composites: {', '.join(composites) or 'none'}"
    return listed


def unknown_skill(
    name: str, arms: int | None = None, composites: Sequence[str] | None = None
) -> UnknownSkillError:
    """The error for a name no skill (nor composite) has, listing what there is."""
    return UnknownSkillError(f"unknown skill {name!r}; skills: {skill_listing(arms, composites)}")


def check_offered(name: str, arms: Sequence[str]) -> None:
    """Refuse skill ``name`` where a scene of ``arms`` does not offer it (it needs more arms).

    Raises:
        UnknownSkillError: it needs more arms than the scene has; the message lists those there.
    """
    needed = skill_arms(name)
    if needed > len(arms):
        raise UnknownSkillError(
            f"{name} needs {needed} arms; this scene has {len(arms)} ({', '.join(arms)}); "
            f"skills here: {skill_listing(len(arms))}"
        )


def skill_arms(name: str) -> int:
    """How many arms skill ``name`` needs (the fewest of its implementations).

    Raises:
        UnknownSkillError: no skill has this name.
    """
    return min(cls.arms for cls in skill_implementations(name).values())


def measures_own_success(name: str) -> bool:
    """Whether every implementation of skill ``name`` measures its own success (a plan of such
    steps is judged without a goal).

    Raises:
        UnknownSkillError: no skill has this name.
    """
    return all(cls.measures_own_success for cls in skill_implementations(name).values())


def skill_implementations(name: str) -> dict[str, type[Skill[Any]]]:
    """The registered implementations of a skill, by implementation name.

    Raises:
        UnknownSkillError: no skill has this name; the message lists the registered ones.
    """
    if not is_skill(name):
        raise unknown_skill(name)
    return dict(_REGISTRY[name])


def get_skill(name: str, implementation: str | None = None) -> Skill[Any]:
    """A fresh instance of a registered skill (the controller, unless another is asked for)."""
    implementations = skill_implementations(name)
    if implementation is None:
        implementation = (
            "controller" if "controller" in implementations else next(iter(implementations))
        )
    if implementation not in implementations:
        raise UnknownSkillError(
            f"skill {name!r} has no implementation {implementation!r}; "
            f"it has: {', '.join(implementations)}"
        )
    return implementations[implementation]()
