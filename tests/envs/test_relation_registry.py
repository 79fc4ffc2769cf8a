"""The relation registry (claw.envs.relations): every table of relations is derived from it, and
one declaration of a new relation reaches all of them. No physics: WorldState snapshots only."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator

import numpy as np
import pytest

from claw.envs.exceptions import PredicateError
from claw.envs.predicates import ALIASES, PREDICATES, evaluate, parse_predicate
from claw.envs.relations import (
    Placing,
    Relation,
    compass_words,
    find_relation,
    referring_phrases,
    register_relation,
    registry_version,
    relation,
    relation_names,
    relation_phrases,
    relations,
    side_words,
    unregister_relation,
)
from claw.envs.spatial import Check
from claw.envs.state import ObjectState, WorldState
from claw.eval.mocks import swap_relations
from claw.planner.language import lexicon
from claw.planner.llm.prompting import PROMPT_WIDTH, template
from claw.planner.llm.schema import plan_schema
from claw.skills.place import Place, PlaceParams
from claw.skills.placement import find_placement

BUILT_IN = ("on", "in", "next_to", "left_of", "right_of", "behind", "in_front_of", "between", "at")

# The tables as they were written out before the registry (the reference, copied once).
OLD_RELATION_PHRASES = (
    ("on top of", "on"), ("on to", "on"), ("onto", "on"), ("atop", "on"), ("on", "on"),
    ("upon", "on"), ("inside of", "in"), ("inside", "in"), ("into", "in"), ("in to", "in"),
    ("within", "in"), ("in", "in"), ("next to", "next_to"), ("beside", "next_to"),
    ("besides", "next_to"), ("alongside", "next_to"), ("close to", "next_to"),
    ("near to", "next_to"), ("near", "next_to"), ("by", "next_to"), ("adjacent to", "next_to"),
    ("to the left of", "left_of"), ("on the left of", "left_of"), ("left of", "left_of"),
    ("to the right of", "right_of"), ("on the right of", "right_of"), ("right of", "right_of"),
    ("in front of", "in_front_of"), ("before", "in_front_of"), ("behind", "behind"),
    ("in back of", "behind"), ("beyond", "behind"), ("above", "on"), ("over", "on"),
    ("on the bottom of", "in_front_of"), ("to the bottom of", "in_front_of"),
    ("onto the top of", "on"), ("on the top of", "behind"), ("to the top of", "behind"),
    ("at", "at"), ("to", "at"),
)  # fmt: skip
OLD_REFERRING = {
    tuple(phrase.split()): name
    for phrase, name in (
        ("on top of", "on"), ("on", "on"), ("atop", "on"), ("in", "in"), ("inside", "in"),
        ("inside of", "in"), ("within", "in"), ("next to", "next_to"), ("beside", "next_to"),
        ("near", "next_to"), ("close to", "next_to"), ("adjacent to", "next_to"),
        ("by", "next_to"), ("to the left of", "left_of"), ("left of", "left_of"),
        ("on the left of", "left_of"), ("to the right of", "right_of"),
        ("right of", "right_of"), ("on the right of", "right_of"), ("in front of", "in_front_of"),
        ("to the bottom of", "in_front_of"), ("below", "in_front_of"), ("behind", "behind"),
        ("to the top of", "behind"), ("in back of", "behind"), ("beyond", "behind"),
        ("north of", "behind"), ("to the north of", "behind"), ("south of", "in_front_of"),
        ("to the south of", "in_front_of"), ("west of", "left_of"), ("to the west of", "left_of"),
        ("east of", "right_of"), ("to the east of", "right_of"),
    )
}  # fmt: skip
OLD_COMPASS = {"north": "behind", "south": "in_front_of", "west": "left_of", "east": "right_of"}
OLD_SIDES = {"left": "left_of", "right": "right_of", "front": "in_front_of", "back": "behind",
             "rear": "behind", "bottom": "in_front_of"}  # fmt: skip
# Added since, each after its relation's old phrases: "closer to" a place, the compass as a
# place, the far and near sides of an object.
ADDED_PHRASES = (
    ("closer to", "next_to"), ("nearer to", "next_to"), ("west of", "left_of"),
    ("to the west of", "left_of"), ("east of", "right_of"), ("to the east of", "right_of"),
    ("north of", "behind"), ("to the north of", "behind"), ("south of", "in_front_of"),
    ("to the south of", "in_front_of"),
)  # fmt: skip
ADDED_SIDES = {"far": "behind", "near": "in_front_of"}
PHRASES = (*OLD_RELATION_PHRASES, *ADDED_PHRASES)
SIDES = {**OLD_SIDES, **ADDED_SIDES}
OLD_ALIASES = {
    **dict.fromkeys(["inside", "inside_of", "into", "within"], "in"),
    **dict.fromkeys(["beside", "near", "next", "adjacent_to", "by"], "next_to"),
    **dict.fromkeys(["on_top_of", "on_top", "onto", "upon", "atop"], "on"),
    **dict.fromkeys(["left", "to_the_left_of", "left_to"], "left_of"),
    **dict.fromkeys(["right", "to_the_right_of", "right_to"], "right_of"),
    **dict.fromkeys(["in_back_of", "behind_of", "beyond"], "behind"),
    **dict.fromkeys(["in_front", "front_of", "before"], "in_front_of"),
    "in_between": "between",
    **dict.fromkeys(["stack", "stacked_on"], "stacked"),  # tower is a predicate of its own
    **dict.fromkeys(["held", "holds", "grasping", "grasped"], "holding"),
}
OLD_DIRECTIONS = {"left_of": (1, 1), "right_of": (1, -1), "behind": (0, 1), "in_front_of": (0, -1)}
OLD_PROMPT = """\
Goal predicates (all must hold at the end): on(a, b), in(a, box), next_to(a, b), left_of(a, b),
right_of(a, b), behind(a, b), in_front_of(a, b), between(a, b, c), at(a, REGION), stacked(a, b,
...), holding(a).
"""


def _by_relation(pairs: object) -> dict[str, list[object]]:
    """Each relation's phrases, in the order listed."""
    grouped: dict[str, list[object]] = {}
    for phrase, name in pairs:  # type: ignore[attr-defined]
        grouped.setdefault(name, []).append(phrase)
    return grouped


def test_the_derived_tables_are_the_old_ones() -> None:
    assert relation_names() == BUILT_IN
    phrases = relation_phrases()
    # The same phrases, each relation's in the same order (the grammar's reading does not
    # depend on how the relations' phrases interleave: a permuted table reads the same).
    assert dict(phrases) == dict(PHRASES)
    assert len(phrases) == len(PHRASES)
    assert _by_relation(phrases) == _by_relation(PHRASES)
    assert referring_phrases() == OLD_REFERRING
    assert _by_relation(referring_phrases().items()) == _by_relation(OLD_REFERRING.items())
    assert compass_words() == OLD_COMPASS
    assert side_words() == SIDES
    assert phrases == lexicon.RELATION_PHRASES
    assert lexicon.REFERRING_RELATIONS == OLD_REFERRING
    assert (lexicon.COMPASS, lexicon.SIDE_RELATIONS) == (OLD_COMPASS, SIDES)
    assert dict(ALIASES) == OLD_ALIASES
    # level: the one predicate added since (two-arm scenes' joint lift)
    assert list(PREDICATES) == [*BUILT_IN, "stacked", "holding", "level", "tower", "not"]
    directions = {r.name: (r.placing.axis, r.placing.sign) for r in relations()
                  if r.placing.kind == "direction"}  # fmt: skip
    assert directions == OLD_DIRECTIONS
    assert [r.name for r in relations() if r.placing.supported] == ["on", "in"]
    assert swap_relations() == BUILT_IN[:-2]  # not between (two targets) nor at (a region)


def test_the_prompt_and_the_schema_list_the_relations_as_before() -> None:
    assert OLD_PROMPT in template("system")
    spec = PlaceParams.model_json_schema()["properties"]["relation"]
    assert spec == {
        "description": (
            "on, in, next_to, left_of, right_of, behind, in_front_of, between, or at (a region)."
        ),
        "enum": list(BUILT_IN),
        "title": "Relation",
        "type": "string",
    }
    assert Place.description.startswith(
        "Put the object the claw holds on, in, next to, left of, right of, behind or in front of "
        "a target object, between two target objects, or at a table region; "
    )


def _far(world: WorldState, a: ObjectState, b: ObjectState) -> Check:
    distance = float(np.linalg.norm(a.xy - b.xy))
    return Check(distance > 0.2, {"distance": distance}, f"{a.name} is {distance:.2f} m away")


FAR_FROM = Relation(
    "far_from", _far, Placing("predicate"), aliases=("away_from",), phrases=("far from",),
    referring=("far from",),
)  # fmt: skip


@pytest.fixture
def far_from() -> Iterator[Relation]:
    """The toy relation ``far_from`` (more than 20 cm apart), registered for one test."""
    before = registry_version()
    register_relation(FAR_FROM)
    assert registry_version() != before
    yield FAR_FROM
    unregister_relation("far_from")
    assert relation_names() == BUILT_IN


def _world() -> WorldState:
    return WorldState.from_objects([
        ObjectState.make("red_block", "block", (0.5, 0.05, 0.25), size=0.04),
        ObjectState.make("blue_block", "block", (0.45, -0.1, 0.02), size=0.04),
        ObjectState.make("green_block", "block", (0.45, 0.2, 0.02), size=0.04),
    ])  # fmt: skip


def test_a_registered_relation_is_a_predicate(far_from: Relation) -> None:
    assert relation("Away From") is find_relation("far_from") is far_from
    world = _world()
    assert evaluate(parse_predicate("far_from(blue_block, green_block)"), world).holds
    result = evaluate("away-from(red_block, green_block)", world)
    assert (result.predicate, result.holds) == ("far_from(red_block, green_block)", False)
    assert PREDICATES["far_from"] == (2, 2) and ALIASES["away_from"] == "far_from"


def test_a_registered_relation_is_placed(far_from: Relation) -> None:
    world = _world()
    # The check is evaluated point by point (Placing("predicate")): near a spot that is far.
    spot = find_placement(world, "red_block", "far_from", "blue_block", preferred=(0.55, 0.15))
    landed = ObjectState.make("red_block", "block", (spot.x, spot.y, 0.02), size=0.04)
    assert evaluate("far_from(red_block, blue_block)", _with(world, landed)).holds
    assert PlaceParams(target="blue_block", relation="far_from").relation == "far_from"


def _with(world: WorldState, obj: ObjectState) -> WorldState:
    return WorldState(objects={**world.objects, obj.name: obj}, table_z=world.table_z)


def test_a_registered_relation_is_in_every_table(far_from: Relation) -> None:
    assert ("far from", "far_from") in relation_phrases()
    assert referring_phrases()[("far", "from")] == "far_from"
    schema = plan_schema(["place"], ["red_block", "blue_block"], 4)
    place = schema["properties"]["steps"]["items"]["anyOf"][0]
    assert "far_from" in place["properties"]["args"]["properties"]["relation"]["enum"]
    prompt = template("system")
    assert "far_from(a, b)" in prompt
    assert max(len(line) for line in prompt.splitlines()) <= PROMPT_WIDTH
    assert "far_from" in swap_relations()


def test_a_taken_name_or_phrase_is_refused(far_from: Relation) -> None:
    for clash in (
        Relation("far_from", _far),
        Relation("distant", _far, aliases=("away_from",)),
        Relation("distant", _far, phrases=("far from",)),
        Relation("holding", _far),
        Relation("Far", _far),
        Relation("distant", _far, Placing("region")),
    ):
        with pytest.raises(PredicateError):
            register_relation(clash)
    assert relation_names() == (*BUILT_IN, "far_from")


@pytest.mark.slow
def test_the_grammar_reads_a_relation_declared_before_it_is_built() -> None:
    """A relation declared at import (as in claw.envs.relations) reaches the offline planner's
    grammar: one declaration, read in an instruction."""
    script = textwrap.dedent(
        """
        from claw.envs.relations import Relation, register_relation
        register_relation(Relation("far_from", print, phrases=("far from",)))
        from claw.planner.language.grammar import parse_instruction
        (request,) = parse_instruction("put the red block far from the blue box")
        print(request.relation, request.target.text)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["far_from", "the", "blue", "box"]


def test_a_relations_check_may_be_a_reference_loaded_on_first_use() -> None:
    from claw.common import PluginError

    near = Relation("close_by", "claw.envs.spatial:next_to", phrases=("close by",))
    register_relation(near)
    try:
        world = _world()
        assert (
            evaluate("close_by(blue_block, green_block)", world).holds
            is evaluate("next_to(blue_block, green_block)", world).holds
        )
    finally:
        unregister_relation("close_by")
    broken = Relation("far_off", "claw.envs.no_such_module:far")
    register_relation(broken)
    try:
        with pytest.raises(PluginError, match=r"relation .far_off.*no_such_module"):
            evaluate("far_off(blue_block, green_block)", _world())
    finally:
        unregister_relation("far_off")
    with pytest.raises(PredicateError, match="not a 'module:attr' reference"):
        Relation("nowhere", "not a reference")


def test_the_derived_tables_are_built_once_per_registry_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from claw.envs import predicates

    built: list[int] = []
    real = predicates.relations
    monkeypatch.setattr(predicates, "relations", lambda: built.append(1) or real())
    register_relation(FAR_FROM)  # a new state of the registry: the tables are built anew
    try:
        for _ in range(100):
            assert PREDICATES["far_from"] == (2, 2) and ALIASES["away_from"] == "far_from"
        assert len(built) == 2  # once each for PREDICATES and ALIASES, not at each look-up
    finally:
        unregister_relation("far_from")
    assert "far_from" not in PREDICATES
