"""Texts that name a placement's words but ask for nothing are refused before anything moves
(claw.planner.language.asking): an action the claws cannot do said as the verb, what someone did or
does, a condition on someone or something else, a question about the scene, a statement of what
is. Their look-alikes that do ask are still read."""

from __future__ import annotations

import pytest

from claw.envs import TabletopEnv
from claw.planner.exceptions import UnparseableError
from claw.planner.language.asking import not_asked, verb_slots
from claw.planner.language.draft import casual_words
from claw.planner.language.grammar import normalise
from tests.reading import goal_of

# The default scene: red, green, blue and yellow blocks; a blue box and a red box.
REFUSED = {
    "unknown action, then a placement": "rinse the green block and then put it in the red box",
    "unknown action alone": "polish the yellow block",
    "unknown action before a stack": "sand the blue block, then stack it on the red block",
    "unknown verb over a placement": "quit putting the red block in the blue box",
    "unknown verb over a stack": "avoid stacking the green block on the yellow block",
    "first person, past": "I placed the green block on the yellow block",
    "first person plural": "we moved the blue block next to the red box",
    "addressee, past form": "you stacked the red block on the blue block",
    "third person, present": "she puts the red block in the red box",
    "addressee, past time": "you put the green block in the red box earlier",
    "condition on an event": "when the timer rings put the red block in the blue box",
    "condition on someone, after": "put the red block in the red box once she leaves",
    "condition on the scene": "if the green block is beside the red box, move it into the blue box",
    "question with will": "will the yellow block fit in the red box?",
    "question with should": "should the red block go in the blue box?",
    "statement, there are": "there are two blocks beside the red box",
    "statement, a copula": "the blue block is next to the red box.",
    "how it was done": "what did you do to put the red block in the blue box?",
    "a dismissal alone": "forget about putting the green block in the red box",
    "a state after the copula": "your arm is empty.",  # not "empty ..."
    "why it was tried": "why did you try to put the red block in the blue box",
}
READ = {
    "a pick verb, then a place": (
        "grab the green block and drop it in the red box",
        ["in(green_block, red_box)"],
    ),
    "an interjection first": ("um the red block in the blue box", ["in(red_block, blue_box)"]),
    "a polite condition": (
        "if you can, put the red block in the blue box",
        ["in(red_block, blue_box)"],
    ),
    "a condition on the addressee, no comma": (
        "when you get a chance put the red block in the blue box",
        ["in(red_block, blue_box)"],
    ),
    "a condition on the addressee, a comma": (
        "once you have a moment, put the red block in the blue box",
        ["in(red_block, blue_box)"],
    ),
    "can X go": ("could the red block go in the blue box", ["in(red_block, blue_box)"]),
    "a wish with if": (
        "I'd love it if the yellow block were in the red box",
        ["in(yellow_block, red_box)"],
    ),
    "how about": (
        "how about putting the green block in the red box",
        ["in(green_block, red_box)"],
    ),
    "we should": ("we should put the red block in the blue box", ["in(red_block, blue_box)"]),
    "politeness with it": (
        "if it's not too much trouble, put the green block on the yellow block",
        ["on(green_block, yellow_block)"],
    ),
}


@pytest.mark.parametrize("instruction", list(REFUSED.values()), ids=list(REFUSED))
def test_what_asks_for_nothing_is_refused(default_env: TabletopEnv, instruction: str) -> None:
    with pytest.raises(UnparseableError):
        goal_of(default_env, instruction)


@pytest.mark.parametrize(
    ("instruction", "goal"), list(READ.values()), ids=list(READ)
)  # fmt: skip
def test_what_asks_is_still_read(
    default_env: TabletopEnv, instruction: str, goal: list[str]
) -> None:
    assert goal_of(default_env, instruction) == goal


def test_an_unknown_verb_is_named_with_the_verbs_allowed(default_env: TabletopEnv) -> None:
    with pytest.raises(UnparseableError, match="'rinse': no action the claws know; start with"):
        goal_of(default_env, "rinse the green block, then put it in the red box")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("earlier i moved the red block into the box", "says what someone did"),
        ("whenever i clap put the red block in the box", "asks only on a condition ('whenever i"),
        ("there's a red block left of the box", "says what is"),
    ],
)
def test_the_reason_is_said(text: str, why: str) -> None:
    reason = not_asked(text, casual_words(normalise(text)))
    assert reason is not None and reason.startswith(why.split(" (")[0])
    assert why in reason or "(" not in why


def slots(text: str) -> set[int]:
    return verb_slots(casual_words(normalise(text)))


def test_a_verb_slot_is_where_a_clause_acts_on_a_named_object_without_a_place() -> None:
    assert slots("wash the blue block, then put it in the box") == {0}
    assert slots("add the blue block to the box") == set()  # a place: maybe a placement
    assert slots("um the blue block in the box") == set()  # an interjection
    assert slots("copy that.") == set()  # names nothing
    assert slots("forget about putting it in the box") == {0}
