"""Grounding referring expressions on the live scene: which objects a
:class:`~claw.planner.language.reference.Reference` picks, and which table region a
:class:`~claw.planner.language.reference.RegionReference` names.
docs/concepts/planners/references.md writes down what each form means; a definite singular phrase
with several answers raises :class:`~claw.planner.exceptions.AmbiguousError` naming them.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from claw.envs.exceptions import UnknownObjectError
from claw.envs.objects import COLOR_RGBA, name_parts
from claw.envs.predicates import Predicate, evaluate
from claw.envs.regions import REGIONS, region_anchor
from claw.envs.state import WorldState
from claw.planner.exceptions import AmbiguousError, UnparseableError, UnsupportedError
from claw.planner.grounding.naming import TIE, spoken_list
from claw.planner.language.forms import Filter, Reference, RegionReference
from claw.planner.language.lexicon import COLOR_FAMILIES, SAME_SIZE

TABLE_GAP = 0.005  # m: an object whose bottom is this near the table stands on it
LIGHTNESS_TIE = 0.05  # colours closer than this in luminance are not told apart by lightness


def color_of(name: str, world: WorldState | None = None) -> str:
    """An object's colour: the one its scene gave it (``ObjectState.color``); from its name
    (``red_block_2`` -> ``red``) only where ``world`` does not say."""
    obj = world.objects.get(name) if world is not None else None
    if obj is not None and obj.color is not None:
        return obj.color
    return name_parts(name)[0]


def type_of(name: str, world: WorldState | None = None) -> str:
    """An object's type (``ObjectState.type``); from its name (``red_block_2`` -> ``block``)
    only where ``world`` does not have it."""
    obj = world.objects.get(name) if world is not None else None
    return obj.type if obj is not None else name_parts(name)[1]


def ground(
    ref: Reference,
    names: list[str],
    world: WorldState | None,
    *,
    default_type: str | None = None,
    last: list[str] | None = None,
    mentioned: Sequence[str] | None = None,
) -> list[str]:
    """The objects ``ref`` picks in the scene, in scene order (or in the order an ordinal or an
    extreme ranks them).

    Args:
        names: The scene's objects.
        world: Where they are; needed for spatial phrases.
        default_type: The type a phrase without one means (a place's objects are blocks).
        last: What "it"/"them" refers to.
        mentioned: Objects named before, in order: "the other blocks" leaves them out, "the
            same box" takes the last of them that matches.

    Raises:
        UnknownObjectError: nothing in the scene matches.
        AmbiguousError: a definite singular phrase with several answers.
        UnparseableError: a pronoun with nothing before it.
        UnsupportedError: a spatial phrase without the scene.
    """
    if ref.pronoun:
        if not last:
            raise UnparseableError(f"cannot tell what {ref.text or 'it'!r} refers to")
        found = _filtered(ref, list(last), names, world, last, mentioned)
        if not found:  # "it on the table" where it stands in a box: read as something else
            raise UnknownObjectError(
                f"nothing in the scene is {ref.text!r} ({', '.join(last)} is not)",
                from_reading=True,
            )
        return found
    names = list(dict.fromkeys(names))
    kind = ref.type or default_type
    found = [n for n in names if _matches(ref, n, kind, world)]
    if not found and ref.type is None and kind is not None:  # "the red one" may be a box
        found = [n for n in names if _matches(ref, n, None, world)]
    if len(ref.colors) > 1:  # "the yellow, blue and green blocks": in the order said
        found.sort(key=lambda n: ref.colors.index(color_of(n, world)))
    if ref.other:
        found = [n for n in found if n not in (mentioned or set())]
    if not found:
        raise missing_object_error(ref, names)
    found = _filtered(ref, found, names, world, last, mentioned)
    if not found:  # there are such objects, but none where or as the phrase says
        raise UnknownObjectError(
            f"nothing in the scene is {ref.text!r}; objects: {', '.join(names)}",
            from_reading=True,  # its filters, as read, found nothing: it may mean otherwise
        )
    if ref.anaphoric and len(found) > 1:  # "the same container": the one named last
        recent = [n for n in reversed(list(mentioned or [])) if n in found]
        found = recent[:1] or found
    elif ref.quantity == "one" and len(found) > 1:  # "… from the box, then … into the box"
        named = [n for n in found if n in (mentioned or ())]
        found = named if len(named) == 1 else found
    return _chosen(ref, found, world, names)


def _matches(ref: Reference, name: str, kind: str | None, world: WorldState | None) -> bool:
    if ref.colors and color_of(name, world) not in ref.colors:
        return False
    if ref.family is not None and color_of(name, world) not in COLOR_FAMILIES[ref.family]:
        return False
    return kind is None or type_of(name, world) == kind


def _filtered(
    ref: Reference,
    found: list[str],
    names: list[str],
    world: WorldState | None,
    last: list[str] | None,
    mentioned: Sequence[str] | None,
) -> list[str]:
    """``found`` narrowed by the phrase's modifiers, in order, those that pick among the rest
    (an extreme, an ordinal: "the small block on the left") last."""
    for f in sorted(ref.filters, key=lambda f: f.kind in ("extreme", "ordinal")):
        if f.kind == "matching":
            continue  # a property of a pairing, judged where the pairs are made
        if f.kind == "except":
            assert f.target is not None
            excluded = set(_ground_any(f.target, names, world, last, mentioned, found))
            found = [n for n in found if n not in excluded]
            continue
        if world is None:
            raise UnsupportedError(f"{ref.text!r} needs the scene as it is")
        found = _spatial(ref, f, found, names, world, last, mentioned)
    return found


def _ground_any(
    ref: Reference,
    names: list[str],
    world: WorldState | None,
    last: list[str] | None,
    mentioned: Sequence[str] | None,
    context: list[str],
) -> list[str]:
    """Every object ``ref`` may mean (a relation's landmark may be any of several)."""
    loose = ref.loosened() if ref.quantity == "one" else ref
    kind = type_of(context[0], world) if context and ref.type is None else None
    return ground(loose, names, world, default_type=kind, last=last, mentioned=mentioned)


def _spatial(
    ref: Reference,
    f: Filter,
    found: list[str],
    names: list[str],
    world: WorldState,
    last: list[str] | None,
    mentioned: Sequence[str] | None,
) -> list[str]:
    position = {n: world.get(n).position for n in names}
    if f.kind == "region":
        assert f.region is not None
        if f.region == "table":
            return [n for n in found if world.get(n).bottom <= world.table_z + TABLE_GAP]
        inside = [n for n in found if _in_region(position[n], f.region)]
        side = f.region.removesuffix(" side")
        if ref.quantity == "one" and len(inside) != 1 and len(found) > 1 and side in _SIDE_AXES:
            # "the block on the left" where that half holds none or several: the leftmost
            extreme = Filter(kind="extreme", measure=side)
            return _ranked(ref, extreme, found, names, world, position, last, mentioned)
        return inside
    if f.kind == "relation":
        assert f.target is not None and f.relation is not None
        landmarks = _landmarks(f, found, names, world, last, mentioned)
        _note(mentioned, landmarks)
        return [n for n in found if any(_relates(f, n, m, world) for m in landmarks) != f.negated]
    if f.kind == "extreme":
        return _ranked(ref, f, found, names, world, position, last, mentioned)
    if f.kind == "color":
        return [n for n in found if (color_of(n, world) == f.measure) != f.negated]
    if f.kind == "parity":
        counts: dict[str, int] = {}
        for n in names:
            if type_of(n, world) == type_of(found[0], world):
                counts[color_of(n, world)] = counts.get(color_of(n, world), 0) + 1
        return [n for n in found if (counts[color_of(n, world)] % 2 == 0) == f.even]
    if f.kind == "same_color":
        assert f.target is not None
        landmarks = ground(f.target, names, world, last=last, mentioned=mentioned)
        _note(mentioned, landmarks)
        colors = {color_of(m, world) for m in landmarks}
        return [n for n in found if color_of(n, world) in colors and n not in landmarks]
    if f.kind == "same_size":
        assert f.target is not None
        if world is None:
            raise UnsupportedError(f"{ref.text!r}: comparing sizes needs the scene as it is")
        landmarks = ground(f.target, names, world, last=last, mentioned=mentioned)
        _note(mentioned, landmarks)
        sizes = [world.get(m).size for m in landmarks]
        return [
            n
            for n in found
            if n not in landmarks and any(abs(world.get(n).size - z) <= SAME_SIZE for z in sizes)
        ]
    # ordinal: rank along the side it is counted from (the near side when none is said)
    side = f.side or "left"
    axis, sign = _SIDE_AXES[side]
    order = sorted(found, key=lambda n: -sign * position[n][axis])
    rank = f.rank or 1
    if abs(rank) > len(order):
        raise AmbiguousError(
            f"{ref.text!r}: there are only {len(order)} ({', '.join(order)}), "
            f"counted from the {side}"
        )
    index = rank - 1 if rank > 0 else rank
    chosen = order[index]
    _check_gap(ref, [position[n][axis] * sign for n in order], index, order)
    return [chosen]


def _relates(f: Filter, obj: str, landmark: str, world: WorldState) -> bool:
    """Whether a relation filter's relation holds between ``obj`` and ``landmark``."""
    assert f.relation is not None
    if obj == landmark:
        return False
    a, b = (landmark, obj) if f.inverse else (obj, landmark)
    return evaluate(Predicate.of(f.relation, a, b), world).holds


def _landmarks(
    f: Filter,
    found: list[str],
    names: list[str],
    world: WorldState,
    last: list[str] | None,
    mentioned: Sequence[str] | None,
) -> list[str]:
    """What a relation filter's target picks; a definite one that could be several ("the
    blue block from the box", two boxes) is the one the relation holds with, when only one.

    Raises:
        AmbiguousError: the relation holds with none or several of them (or it is negated).
    """
    assert f.target is not None
    try:
        return ground(f.target, names, world, last=last, mentioned=mentioned)
    except AmbiguousError:
        if f.negated or f.target.quantity != "one":
            raise
        every = ground(f.target.loosened(), names, world, last=last, mentioned=mentioned)
        related = [m for m in every if any(_relates(f, n, m, world) for n in found)]
        if len(related) != 1:
            raise
        return related


_SIDE_AXES = {"left": (1, 1.0), "right": (1, -1.0), "far": (0, 1.0), "near": (0, -1.0)}


def _ranked(
    ref: Reference,
    f: Filter,
    found: list[str],
    names: list[str],
    world: WorldState,
    position: dict[str, np.ndarray],
    last: list[str] | None,
    mentioned: Sequence[str] | None,
) -> list[str]:
    """The objects at the extreme a superlative asks for: the one, or the n of a count; for
    "medium", those between the smallest and the biggest."""
    if f.measure == "medium":
        return _medium(ref, found, world)
    if f.measure == "middle":
        return _middle_of_row(ref, found, position)
    measure = f.measure
    if measure == "top":  # the highest where some stand on others, else the farthest
        bottoms = [world.get(n).bottom for n in found]
        measure = "up" if max(bottoms) - min(bottoms) > TABLE_GAP else "far"
    if measure == "up":
        score = {n: world.get(n).bottom for n in found}
        tie, alike = TABLE_GAP, "they stand as high"
    elif measure in ("small", "big"):
        size = _sizes(found, world)
        score = {n: size[n] if measure == "big" else -size[n] for n in found}
        tie, alike = 1e-9, "they are the same size"
    elif measure in ("light", "dark"):
        lightness = {n: _luminance(color_of(n, world)) for n in found}
        score = {n: v if measure == "light" else -v for n, v in lightness.items()}
        tie, alike = LIGHTNESS_TIE, "their colours are about as light"
    elif measure in _SIDE_AXES:
        axis, sign = _SIDE_AXES[measure]
        score = {n: sign * float(position[n][axis]) for n in found}
        tie, alike = TIE, f"they are within {TIE * 100:.0f} cm of each other that way"
    else:
        assert f.target is not None
        landmarks = ground(f.target, names, world, last=last, mentioned=mentioned)
        _note(mentioned, landmarks)  # "the two blocks closest to the blue box ... in it"
        candidates = [n for n in found if n not in landmarks]
        if not candidates:
            return []
        distance = {
            n: min(float(np.linalg.norm(position[n][:2] - position[m][:2])) for m in landmarks)
            for n in candidates
        }
        score = {n: -d if f.measure == "closest" else d for n, d in distance.items()}
        tie, alike = TIE, f"their distances are within {TIE * 100:.0f} cm"
    order = sorted(score, key=lambda n: -score[n])
    take = ref.count if ref.quantity == "count" and ref.count else 1
    if ref.quantity == "all" and f.measure in ("small", "big"):  # "the smaller blocks"
        return _size_class(order, score)
    if ref.quantity == "all":
        return order
    if len(order) > take and score[order[take - 1]] - score[order[take]] < tie:
        pair = (order[take - 1], order[take])
        said = spoken_list(pair, world, names)
        raise AmbiguousError(f"{ref.text!r} could be {said}: {alike}", candidates=pair)
    return order[:take]


def _sizes(found: list[str], world: WorldState) -> dict[str, float]:
    """Each object's size, as its half extents' product (a volume's eighth)."""
    return {n: float(np.prod(world.get(n).half_extents)) for n in found}


def _medium(ref: Reference, found: list[str], world: WorldState) -> list[str]:
    """The objects bigger than the smallest and smaller than the biggest of ``found``.

    Raises:
        AmbiguousError: a definite singular phrase and not exactly one such object.
    """
    size = _sizes(found, world)
    low, high = min(size.values()), max(size.values())
    middle = [n for n in found if low + 1e-9 < size[n] < high - 1e-9]
    if ref.quantity == "one" and len(middle) != 1:
        between = f"{len(middle)} of them are between the smallest and the biggest"
        raise AmbiguousError(
            f"{ref.text!r} could be any of {', '.join(middle or found)}: {between}"
        )
    return middle


def _middle_of_row(ref: Reference, found: list[str], position: dict[str, np.ndarray]) -> list[str]:
    """The one in the middle of ``found`` along the way they are spread most (left to right, or
    far to near).

    Raises:
        AmbiguousError: an even number of them (no one is in the middle).
    """
    points = np.array([position[n][:2] for n in found])
    axis = int(np.argmax(np.ptp(points, axis=0))) if len(found) > 1 else 0
    row = sorted(found, key=lambda n: float(position[n][axis]))
    if len(row) % 2 == 0:
        raise AmbiguousError(
            f"{ref.text!r} could be any of {', '.join(row)}: {len(row)} in a row have no middle"
        )
    return [row[len(row) // 2]]


def _luminance(color: str) -> float:
    """Relative luminance of a colour as rendered (0 black, 1 white)."""
    r, g, b, _ = COLOR_RGBA.get(color, (0.0, 0.0, 0.0, 1.0))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _size_class(order: list[str], score: dict[str, float]) -> list[str]:
    """The objects on the asked-for side of the widest gap in size (``order``: that side
    first); all of them when they are all one size."""
    gaps = [score[a] - score[b] for a, b in itertools.pairwise(order)]
    if not gaps or max(gaps) <= 1e-9:
        return order
    return order[: gaps.index(max(gaps)) + 1]


def _check_gap(ref: Reference, values: list[float], index: int, order: list[str]) -> None:
    for j in (index - 1, index + 1):
        if 0 <= j < len(values) and abs(values[j] - values[index]) < TIE:
            raise AmbiguousError(
                f"{ref.text!r} could be {order[index]} or {order[j]}: they are level "
                f"(within {TIE * 100:.0f} cm) from that side"
            )


def _note(mentioned: Sequence[str] | None, landmarks: list[str]) -> None:
    """Landmarks a phrase names are named too: "the objects with the same colour as the red box
    ... into it" (a list of what was named is kept in order; other sequences are left alone)."""
    if isinstance(mentioned, list):
        mentioned[:] = [n for n in mentioned if n not in landmarks] + landmarks


def _in_region(position: np.ndarray, region: str) -> bool:
    """Where an object is ``on``/``in`` a region of the table: the half (a side) or the quarter
    (a corner) of the table it names, or within reach of the center's anchor."""
    cx, _ = REGIONS["center"]
    x, y = float(position[0]), float(position[1])
    halves = {"left": y > 0.0, "right": y < 0.0, "far": x > cx, "near": x < cx}
    if region == "center":
        return float(np.linalg.norm(np.array([x, y]) - np.array(REGIONS["center"]))) <= 0.12
    words = [w for w in region.split() if w in halves]
    return all(halves[w] for w in words)


def _chosen(
    ref: Reference, found: list[str], world: WorldState | None, names: Sequence[str]
) -> list[str]:
    if ref.quantity in ("all", "pronoun"):
        return found
    if ref.quantity == "count":
        assert ref.count is not None
        if len(found) < ref.count:
            raise AmbiguousError(
                f"{ref.text!r} asks for {ref.count}, but only {len(found)} match: "
                f"{', '.join(found)}"
            )
        if ref.exact and len(found) > ref.count:
            raise AmbiguousError(
                f"{ref.text!r} names {ref.count}, but {len(found)} match: {', '.join(found)}"
            )
        return found[: ref.count]
    if ref.quantity == "any" or len(found) == 1:
        return found[:1]
    said = spoken_list(found, world, names)
    raise AmbiguousError(f"{ref.text!r} could be {said}; say which", candidates=tuple(found))


def ground_region(region: RegionReference, names: list[str], world: WorldState | None) -> str:
    """The table region ``region`` names on this scene.

    Raises:
        AmbiguousError: two regions equally far from the landmark.
        UnsupportedError: an extreme without the scene.
    """
    if region.region is not None:
        return region.region
    if world is None:
        raise UnsupportedError(f"{region.text!r} needs the scene as it is")
    assert region.target is not None
    landmarks = ground(region.target, names, world)
    kinds = [r for r in REGIONS if r.endswith(region.kind or "corner")]
    distance = {
        r: min(
            float(np.linalg.norm(np.array(region_anchor(r)) - world.get(m).position[:2]))
            for m in landmarks
        )
        for r in kinds
    }
    order = sorted(distance, key=lambda r: distance[r], reverse=region.measure == "farthest")
    if len(order) > 1 and abs(distance[order[0]] - distance[order[1]]) < TIE:
        raise AmbiguousError(f"{region.text!r} could be the {order[0]} or the {order[1]}")
    return order[0]


def missing_object_error(noun: Reference, names: list[str]) -> UnknownObjectError:
    """The error for a noun phrase that matches no object of the scene."""
    what = " ".join(w for w in (noun.color, noun.type) if w) or noun.text
    return UnknownObjectError(f"there is no {what} in the scene; objects: {', '.join(names)}")
