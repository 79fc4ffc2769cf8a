"""Perceivers by name, as planners are: ``truth``, ``camera``, and a user's own.

A perceiver is registered by name with a factory (or a ``"module:attr"`` reference to one,
imported when first used); installed packages offer theirs through the ``claw.perceivers``
entry-point group::

    [project.entry-points."claw.perceivers"]
    owlvit = "my_package.perception:OwlVitPerceiver"   # a class or factory returning a Perceiver
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from claw.common.plugins import PERCEIVERS, entry_points, is_reference, load, offer
from claw.perception.base import Perceiver
from claw.perception.exceptions import InvalidPerceptionError

PerceiverFactory = Callable[..., Perceiver]

_REGISTRY: dict[str, PerceiverFactory | str] = {
    "truth": "claw.perception.truth:TruthPerceiver",
    "camera": "claw.perception.camera:CameraPerceiver",
}
DEFAULT_PERCEIVER = "truth"


def register_perceiver(name: str, factory: PerceiverFactory | str) -> None:
    """Register ``factory`` (or a ``"module:attr"`` reference to it) under ``name``.

    Raises:
        InvalidPerceptionError: an empty name, or a string that is not a reference.
    """
    if not name or not name.replace("_", "").replace("-", "").isalnum():
        raise InvalidPerceptionError(f"perceiver name {name!r} must be letters, digits, '_' or '-'")
    if isinstance(factory, str) and not is_reference(factory):
        raise InvalidPerceptionError(f"perceiver {name!r}: {factory!r} is not 'module:attr'")
    _REGISTRY[name] = factory


def unregister_perceiver(name: str) -> None:
    """Forget ``name`` (nothing happens when it is not registered)."""
    _REGISTRY.pop(name, None)


def perceiver_names() -> list[str]:
    """Every perceiver that can be made: registered ones, then installed packages' own."""
    names = list(_REGISTRY)
    names += [o.name for o in entry_points(PERCEIVERS) if o.name not in _REGISTRY]
    return names


def check_perceiver(name: str) -> str:
    """``name`` when a perceiver by that name can be made.

    Raises:
        InvalidPerceptionError: it cannot (the message lists those that can).
    """
    if name in _REGISTRY or offer(PERCEIVERS, name) is not None:
        return name
    raise InvalidPerceptionError(
        f"unknown perceiver {name!r}; allowed: {', '.join(perceiver_names())}"
    )


def make_perceiver(name: str = DEFAULT_PERCEIVER, **options: Any) -> Perceiver:
    """A new perceiver by name, built with ``options`` (``cameras=("top", "front")``).

    Raises:
        InvalidPerceptionError: an unknown name, options its factory does not take, or a
            factory that does not make a perceiver.
        PluginError: a reference or an entry point that does not import.
    """
    check_perceiver(name)
    factory: Any = _REGISTRY.get(name)
    if factory is None:
        found = offer(PERCEIVERS, name)
        assert found is not None  # check_perceiver found it
        factory = found.reference
    if isinstance(factory, str):
        factory = load(factory, f"perceiver {name!r}")
        if name in _REGISTRY:
            _REGISTRY[name] = factory
    try:
        made = factory(**options)
    except TypeError as exc:
        raise InvalidPerceptionError(f"perceiver {name!r} does not take {options}: {exc}") from None
    if not isinstance(made, Perceiver):
        raise InvalidPerceptionError(
            f"perceiver {name!r} made a {type(made).__name__}, not a Perceiver "
            "(it needs name, reset, perceive and close)"
        )
    return made
