"""Long instructions and scene limits under hostile input (issue 22, items 2, 15 and 19): the
offline reader refuses what is too long at once, with the cap, and reads what is not without a
recursion that grows with the text; a scene's object limit is one fact, checked when the spec is
built; a scene error's hint names only objects that are listed before."""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from claw.envs.exceptions import InvalidSceneError
from claw.envs.scene import SceneSpec
from claw.planner.exceptions import UnparseableError
from claw.planner.language import grammar
from tests.cli.test_failure_modes import claw, one_error_line, write_suite

CLAUSE = "put the red block on the blue block, then "
HUNDRED_CLAUSES = CLAUSE * 100 + "pick up the red block"  # 4,221 characters


def cap_message() -> str:
    return f"over the cap of {grammar.MAX_INSTRUCTION_CHARS:,}"


# -- item 2: long instructions ---------------------------------------------------------------------


@pytest.mark.slow
def test_a_hundred_clauses_are_refused_in_one_line_with_the_cap() -> None:
    result = claw(HUNDRED_CLAUSES)
    assert result.returncode == 2, result.stderr
    line = one_error_line(result, "unparseable")
    assert f"has {len(HUNDRED_CLAUSES):,} characters, {cap_message()}" in line
    assert "several instructions" in line  # how to shorten it
    assert "recursion" not in result.stderr


@pytest.mark.parametrize(
    "text",
    [("put the red block " * 2500).strip(), "x" * 100_000, ("on the " * 15_000)[:100_000]],
    ids=["10000-words", "100KB-one-word", "100KB-relations"],
)
def test_an_enormous_instruction_is_refused_before_it_is_read(text: str) -> None:
    with pytest.raises(UnparseableError) as refused:
        grammar.parse_instruction(text)
    message = str(refused.value)
    assert f"has {len(text):,} characters, {cap_message()}" in message
    assert len(message) < 200  # the text is not echoed back


@pytest.mark.slow
def test_an_enormous_instruction_on_the_command_line_is_one_short_line() -> None:
    result = claw("put the red block on the blue box " * 3000)  # about 100 KB
    assert result.returncode == 2
    line = one_error_line(result, "unparseable")
    assert cap_message() in line and len(line) < 250


def test_an_instruction_at_the_cap_is_read_with_a_recursion_depth_of_its_own() -> None:
    text = "push it left, then " * 52  # 988 characters (under the cap), 260 tokens
    grammar.parse_instruction("push it left")  # the grammar's tables are built outside the limit
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 100)  # far less than the text's tokens
    try:
        requests = grammar.parse_instruction(text)
    finally:
        sys.setrecursionlimit(limit)
    assert [(r.action, r.direction) for r in requests] == [("push", "left")] * 52


def test_a_sentence_over_its_cap_is_refused_and_one_at_the_cap_is_read() -> None:
    at_cap = "first put " + "the red block in the blue box, " * 9 + "and the green block on it"
    assert len(grammar.tokens(grammar.normalise(at_cap)).words) == grammar.MAX_SENTENCE_TOKENS
    assert len(grammar.parse_instruction(at_cap)) == 10
    over = at_cap + " now"  # one word more, well under the character cap
    assert len(over) < grammar.MAX_INSTRUCTION_CHARS
    with pytest.raises(UnparseableError) as refused:
        grammar.parse_instruction("push it left. " + over + ". then push it right")
    message = str(refused.value)
    assert message.startswith("the sentence 'first put the red block in ...' has 81 words and ")
    assert f"over the cap of {grammar.MAX_SENTENCE_TOKENS}; split it" in message


@pytest.mark.slow
def test_a_suite_case_with_a_hundred_clauses_is_that_cases_error(tmp_path: Path) -> None:
    suite = write_suite(
        tmp_path,
        {
            "name": "long",
            "cases": [
                {
                    "id": "long",
                    "instruction": HUNDRED_CLAUSES,
                    "goal": ["on(red_block, blue_block)"],
                }
            ],
        },
    )
    out = tmp_path / "out.json"
    result = claw("eval", suite, "--json", out)
    assert result.returncode == 1, result.stderr  # the case failed; the run did not
    assert "Traceback" not in result.stderr + result.stdout
    (case,) = json.loads(out.read_text())["cases"]
    assert case["id"] == "long" and not case["success"]
    assert case["run"]["error"]["kind"] == "unparseable"
    assert cap_message() in case["run"]["error"]["message"]


# -- item 15: one limit on a scene's objects -------------------------------------------------------


def blocks(count: int) -> dict[str, Any]:
    colors = ["red", "green", "blue", "yellow", "orange", "purple", "pink", "cyan", "brown", "gray"]
    return {
        "name": f"blocks-{count}",
        "objects": [{"type": "block", "color": colors[i % 10], "size": 0.03} for i in range(count)],
    }


@pytest.mark.slow
def test_a_scene_over_the_limit_is_refused_alike_by_scene_show_run_and_the_spec(
    tmp_path: Path,
) -> None:
    path = tmp_path / "eleven.yaml"
    path.write_text(yaml.safe_dump(blocks(11)))
    expected = "objects: 11 objects; allowed: at most 10 in a scene"
    with pytest.raises(InvalidSceneError, match=expected):
        SceneSpec.load(blocks(11))
    for args in (("scene", "show", path), ("pick up the red block", "--scene", path)):
        result = claw(*args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert one_error_line(result, "invalid_scene").endswith(expected), args


def test_a_scene_at_the_limit_runs_in_an_env_built_with_no_options(make_env: Any) -> None:
    from claw.envs.scene import MAX_SCENE_OBJECTS

    env = make_env(scene=blocks(MAX_SCENE_OBJECTS))
    obs, info = env.reset(seed=0)
    assert len(info["object_names"]) == MAX_SCENE_OBJECTS == env.max_objects
    assert obs["objects"]["mask"].all()


# -- item 19: hints name objects of the scene ------------------------------------------------------


def block(color: str, **kw: Any) -> dict[str, Any]:
    return {"type": "block", "color": color, **kw}


@pytest.mark.parametrize(
    ("objs", "expected"),
    [
        ([block("red"), block("green", on=5)],
         "objects[1].on: 5 is not an object name; allowed: red_block"),
        ([block("red", on=5)],
         "objects[0].on: 5 is not an object name; allowed: none (no block is listed before)"),
        ([{"type": "box", "color": "gray"}, block("red"), block("green", **{"in": [1]})],
         "objects[2].in: [1] is not an object name; allowed: gray_box"),
        ([block("red"), block("green", on="red_block"), block("yellow", on="zzz")],
         "objects[2].on (yellow_block): 'zzz' is not an object listed before yellow_block; "
         "allowed: green_block"),  # red_block carries green_block already
    ],
)  # fmt: skip
def test_a_bad_support_hint_names_only_objects_listed_before(
    objs: list[dict[str, Any]], expected: str
) -> None:
    with pytest.raises(InvalidSceneError) as refused:
        SceneSpec.load({"objects": objs})
    assert str(refused.value) == expected
    assert "blue_block" not in str(refused.value)
