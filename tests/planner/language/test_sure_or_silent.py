"""Sure or silent: an offline reading runs only when what it left out carries no content; its
refusals say what was read and offer instructions the reader does read
(docs/concepts/planners/sure-or-silent.md)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from claw.common.exceptions import ClawError
from claw.envs import TabletopEnv
from claw.envs.exceptions import UnknownObjectError
from claw.planner import OfflinePlanner
from claw.planner.base import Reader
from claw.planner.exceptions import AmbiguousError, UnparseableError, UnsupportedError
from claw.planner.grounding.naming import spoken
from claw.planner.language.audit import left_out_content, unread_part
from claw.planner.language.draft import casual_words
from claw.planner.language.forms import Reference, Request
from claw.planner.llm.hybrid import HybridPlanner
from claw.runtime import BasePlanner
from claw.skills.plans import Failure, Plan
from tests.reading import goal_of

# The default scene: red, green, blue and yellow blocks; a blue box and a red box.
PARTLY_READ = {
    # each ran as the part read (the first clause, a push twice, the stack without its box)
    "a second clause whose verb it lacks": "move the red block to the left and cover it",
    "a verb it lacks, with an object of its own": "glue the red block onto the blue block",
    "a verb it lacks, before a place": "add the green block to the red box",
    "a word it lacks that relates a phrase": "put the red block frobnicating the blue box",
    "a place the stack does not hold": (
        "stack the red block and the green block on top of each other in the blue box"
    ),
    "a preposition left out before its phrase": "push the red block to the front of the blue box",
    "a count of nothing": "put 2 the blue box",
    "a rank by a superlative": "pick up the 2nd largest block",
    "an object noun guessed by meaning": "bring the blue block to the kitchen",
    "which arms, left out": "both arms hold the red block",
    "an order left out": "put the red block in the blue box after you move the green block",
    "put back: where it was": "put the red block back",  # it was a push 10 cm back
    # what a whole reading left out (a frame it dropped): each ran as the rest
    "a condition before the request": "after lunch move the yellow block into the red box",
    "a time": "tomorrow put the red block in the blue box",
    "reported speech": "someone told me you would put the green block in the red box",
    "a withdrawal after it": "put the green block in the red box. actually, cancel that",
    "a withdrawal as a joke": "put the red block in the blue box jk",
    "a sentence said to be wrong": "pick up the red block. that's wrong. pick up the green block",
    "a time named": "every morning put the red block in the blue box",
    "in case of": "in case of fire, put the green block in the red box",
    "a clause of its own after then": "put the red block in the blue box, then feed the cat",
    "reported speech, contracted": "someone told me you'd stacked the green block on the red block",
    "a prohibition without an apostrophe": "you mustnt put the green block in the red box",
    "cannot": "you cant put the green block in the red box",
    "a numbered arm": "arm number 2, put the red block in the blue box",
    "a noun corrected to a modifier": "set the blue stapler in front of the red block",
    "the moment": "the moment the bell rings, put the red block in the blue box",
    "provided that": "put the green block in the red box, provided that the door is shut",
    "as long as": "as long as the cat is asleep, move the red block to the left side",
    "a hypothetical": "imagine you put the yellow block on the red block",
    "forbidden": "it is forbidden to place the green block next to the blue box",
    "another robot": "robot #2, put the red block in the blue box",
    "a statement with a verb it lacks": "huh, the green block ended up in the red box",
}
STILL_READ = {
    "an adverb": ("put the red block in the blue box quickly", ["in(red_block, blue_box)"]),
    "a modifier inside its phrase": (
        "put the red block in the shallow blue box",
        ["in(red_block, blue_box)"],
    ),
    "an interjection": ("um the red block in the blue box", ["in(red_block, blue_box)"]),
    "a politeness frame": (
        "could you put the red block in the blue box for me",
        ["in(red_block, blue_box)"],
    ),
    "a self-correction": (
        "put the red block in the blue box, wait i meant the red box",
        ["in(red_block, red_box)"],
    ),
    "the stack on the table": (
        "stack the green block on the red block on the table",
        ["on(green_block, red_block)"],
    ),
    "a free choice of one": (
        "move whichever block is farthest from me into the red box",
        ["in(green_block, red_box)"],
    ),
    "a rank from a side": ("pick up the first leftmost block", ["holding(yellow_block)"]),
    "politeness with a negation of a bother": (
        "if you don't mind, put the green block in the red box",
        ["in(green_block, red_box)"],
    ),
    "politeness with a contraction": (
        "whenever you're ready, stack the yellow block on the green block",
        ["on(yellow_block, green_block)"],
    ),
    "no trouble": (
        "if it's no trouble, put the blue block in the red box",
        ["in(blue_block, red_box)"],
    ),
    "a self-correction of a phrase without its noun": (
        "place the blue block next to the red, i mean the yellow block",
        ["next_to(blue_block, yellow_block)"],
    ),
    "on top of the table: on it, not at its far side": (
        "move the red block on top of the table, next to the yellow block",
        ["next_to(red_block, yellow_block)"],
    ),
    "the table's top is the table": (
        "put the red block next to the blue box on the table top",
        ["next_to(red_block, blue_box)"],
    ),
    "a row counted from left to right": (
        "pick up the 2nd block from left to right",
        ["holding(blue_block)"],
    ),
    "a move from left to right is still a move": (
        "move the red block from left to right",
        ["at(red_block, right side)"],
    ),
    "the robot's own first step": (
        "after you pick up the blue block, put it in the red box",
        ["in(blue_block, red_box)"],
    ),
    "the speaker's own next step": (
        "put the green block on the red block. then i'm off",
        ["on(green_block, red_block)"],
    ),
    "a wish before a verbless request": (
        "i'd love it if the blue block were in the red box",
        ["in(blue_block, red_box)"],
    ),
    "a greeting with a time": (
        "good evening, put the red block in the blue box",
        ["in(red_block, blue_box)"],
    ),
    "apart from each of several": (
        "move the yellow block apart from the green and red blocks",
        ["not(next_to(yellow_block, green_block))", "not(next_to(yellow_block, red_block))"],
    ),
}


@pytest.mark.parametrize("instruction", list(PARTLY_READ.values()), ids=list(PARTLY_READ))
def test_a_reading_that_leaves_content_out_is_refused(
    default_env: TabletopEnv, instruction: str
) -> None:
    with pytest.raises(UnparseableError):
        OfflinePlanner().plan(instruction, default_env)


@pytest.mark.parametrize(("instruction", "goal"), list(STILL_READ.values()), ids=list(STILL_READ))
def test_what_says_nothing_more_is_still_left_out(
    default_env: TabletopEnv, instruction: str, goal: list[str]
) -> None:
    assert goal_of(default_env, instruction) == goal


@pytest.mark.parametrize(
    ("said", "named"),
    [  # [...]: the words the reading left out
        ("[if it rains ,] put it", "the condition or time 'if it rains'"),
        ("put it [, scratch that]", "the withdrawal 'scratch that'"),
        ("[she said you would] put it", "what was said 'she said you would'"),
        ("[do not] put it", "the negation 'not'"),
        ("put it in the [red] box", "the object phrase 'red'"),
        ("hand it to the middle [arm]", "the arms 'middle arm'"),
        ("[arm number 3 ,] put it", "the arms 'arm number 3'"),
        ("put it [, then feed the cat]", "the clause 'then feed the cat'"),
        ("put it [. then i am off]", None),  # the speaker's own
        ("[every hour] put it", "the condition or time 'every hour'"),
        ("[someone told me you would stacked] it", "what was said 'someone told me you would'"),
        ("[after you] pick it up", None),  # the robot's own first step
        ("put them [both at once]", None),  # together, not a time
        ("[if it is not too much trouble ,] put it", None),
        ("[good morning !] put it", None),
    ],
)
def test_what_a_reading_left_out_is_judged_by_its_content(said: str, named: str | None) -> None:
    words, left_out, inside = [], set(), False
    for token in said.replace("[", "[ ").replace("]", " ]").split():
        if token in "[]":
            inside = token == "["
            continue
        if inside:
            left_out.add(len(words))
        words.append(token)
    assert left_out_content(words, left_out) == named


@pytest.mark.parametrize(
    "instruction",
    [
        "put the blue block to the left of the red block and to the right of the red block",
        "put the green block behind the red block and in front of the red block",
        "put the blue block left of the green block and the green block left of the blue block",
        "put the red block at the far left corner and also at the near right corner",
    ],
)
def test_a_relation_and_its_opposite_are_refused(
    default_env: TabletopEnv, instruction: str
) -> None:
    with pytest.raises(UnsupportedError, match="cannot both hold"):
        OfflinePlanner().plan(instruction, default_env)


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("the red block shouldn't be there", "the red block should not be there"),
        ("it won't fit", "it will not fit"),
        ("the green block's on the red block", "the green block is on the red block"),
        ("the box's left side", "the box's left side"),  # a possessive
        ("you'd put it", "you would put it"),
        ("you mustnt put it", "you must not put it"),
        ("you cant put it", "you cannot put it"),
        ("the block's already in the box", "the block is already in the box"),
    ],
)
def test_contractions_are_written_out(typed: str, read: str) -> None:
    assert " ".join(casual_words(typed)) == read


def test_a_clause_read_in_part_is_named() -> None:
    stack = Request(
        action="stack",
        objects=[Reference(colors=["red"], type="block", text="the red block")],
        text="stack the red block on top of each other in the blue box",
    )
    assert unread_part(stack) == "the place 'in the blue box'"
    put = stack.model_copy(update={"action": "place", "relation": "in", "text": "put the red "
                                   "block in the blue box"})  # fmt: skip
    put.target = Reference(colors=["blue"], type="box", text="the blue box")
    assert unread_part(put) is None
    assert unread_part(put, "put the red block in the blue box unless it rains") == (
        "the condition 'unless it rains'"
    )


@pytest.fixture(scope="module")
def stacked_env() -> Iterator[TabletopEnv]:
    env = TabletopEnv()
    env.reset(seed=0, options={"scene": "stacked"})
    yield env
    env.close()


def test_an_arm_no_scene_has_is_refused() -> None:
    env = TabletopEnv(scene="two_arms")
    env.reset(seed=0)
    try:
        with pytest.raises(UnparseableError, match="middle arm"):
            OfflinePlanner().plan("pass the red block to the middle arm", env)
    finally:
        env.close()


def test_a_second_clause_on_a_phrase_that_finds_nothing_is_not_dropped(
    stacked_env: TabletopEnv,
) -> None:
    # "it on the table": the yellow block stands in the gray box; it ran as the pick alone
    text = "take the yellow block from the gray box and place it on the table next to the red block"
    with pytest.raises(UnknownObjectError, match="it on the table") as refused:
        OfflinePlanner().plan(text, stacked_env)
    assert refused.value.from_reading


def test_a_place_relative_to_several_is_refused_not_cut_to_the_first(
    default_env: TabletopEnv,
) -> None:
    with pytest.raises(UnsupportedError, match="names 2 objects") as refused:
        OfflinePlanner().plan("put the yellow block next to the red and green blocks", default_env)
    assert refused.value.from_reading


def test_a_stack_in_a_box_is_not_read_as_a_place_in_it(default_env: TabletopEnv) -> None:
    with pytest.raises(UnsupportedError, match="no stack inside a box") as refused:
        OfflinePlanner().plan(
            "stack the red block and the green block in the blue box", default_env
        )
    assert refused.value.from_reading


class _Model(BasePlanner):
    """A stand-in for a model's planner: it plans one goal for any instruction."""

    name = "model"

    @property
    def reader(self) -> Reader:
        return "model"

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        return Plan(goal=["in(red_block, blue_box)"])

    def replan(
        self, instruction: str, plan: Plan, env: TabletopEnv, failure: Failure | None = None
    ) -> Plan:
        return plan


@pytest.mark.parametrize(
    ("instruction", "handed"),
    [
        ("put the red block below the blue block", True),  # a reading: what goes on what
        ("put the yellow block next to the red and green blocks", True),
        ("pick up the blue box", False),  # the world: boxes are too wide to grasp
        ("put the purple block in the blue box", False),  # no purple block: the user's input
    ],
)
def test_the_hybrid_hands_over_what_the_reading_refused(
    default_env: TabletopEnv, instruction: str, handed: bool
) -> None:
    hybrid = HybridPlanner(OfflinePlanner(), _Model())
    if handed:
        assert [str(g) for g in hybrid.plan(instruction, default_env).goal] == [
            "in(red_block, blue_box)"
        ]
        assert hybrid.reader == "model"
    else:
        with pytest.raises(ClawError):
            hybrid.plan(instruction, default_env)


@pytest.fixture(scope="module")
def two_reds() -> Iterator[TabletopEnv]:
    env = TabletopEnv()
    scene = {"name": "two_reds", "objects": [
        {"type": "block", "color": "red", "pose": [0.45, 0.15]},
        {"type": "block", "color": "red", "pose": [0.45, -0.15]},
        {"type": "block", "color": "green", "pose": [0.55, 0.0]},
        {"type": "box", "color": "blue", "pose": [0.35, 0.0]},
    ]}  # fmt: skip
    env.reset(seed=0, options={"scene": scene})
    yield env
    env.close()


def test_an_ambiguous_phrase_names_its_candidates_as_a_user_would(two_reds: TabletopEnv) -> None:
    world = two_reds.world_state()
    names = two_reds.object_names
    assert spoken("red_block", world, names) == "the left red block"
    assert spoken("red_block_2", world, names) == "the right red block"
    assert spoken("green_block", world, names) == "the green block"
    with pytest.raises(AmbiguousError, match="the left red block or the right red block"):
        OfflinePlanner().plan("put the red block in the blue box", two_reds)


REFUSED = [
    ("default", "put the shiny red block in the box"),  # ambiguous box
    ("default", "put the purple block in the blue box"),  # unknown object
    ("default", "move the red block to the left and cover it"),
    ("default", "glue the green block onto the yellow block"),
    ("default", "asdf qwerty"),
    ("two_reds", "put the red block in the blue box"),
    ("two_reds", "pick up the red block"),
]


@pytest.mark.parametrize(("scene", "instruction"), REFUSED)
def test_every_suggestion_reads_back_as_the_goal_it_names(
    scene: str, instruction: str, default_env: TabletopEnv, two_reds: TabletopEnv
) -> None:
    env = default_env if scene == "default" else two_reds
    with pytest.raises(ClawError) as refused:
        OfflinePlanner().plan(instruction, env)
    suggestions = refused.value.suggestions
    assert 1 <= len(suggestions) <= 3
    for suggestion in suggestions:
        assert goal_of(env, suggestion.instruction) == suggestion.goal
    if scene == "two_reds":  # each candidate offered by the name that tells it apart
        said = " ".join(s.instruction for s in suggestions)
        assert "the left red block" in said and "the right red block" in said


def test_a_refusal_says_what_was_read(default_env: TabletopEnv) -> None:
    with pytest.raises(ClawError) as refused:
        OfflinePlanner().plan("put the shiny red block in the box", default_env)
    assert refused.value.read[:2] == ("put", "the red block")


def test_a_reading_says_how_each_word_was_matched(default_env: TabletopEnv) -> None:
    plan = OfflinePlanner().plan("put teh reddish block in the blue box", default_env)
    assert plan.reading is not None
    matched = {m.typed: (m.read, m.how) for m in plan.reading.matched}
    assert matched == {"teh": ("the", "spelling"), "reddish": ("red", "meaning")}
    assert all(m.score is not None for m in plan.reading.matched if m.how == "meaning")
