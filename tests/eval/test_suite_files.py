"""Files users write, under hostile input: YAML alias bombs and nesting in every file claw reads,
sweep cells of suites that share a name, bad scenes and coerced numbers in suites and sweeps, and
running part of a suite (``claw eval SUITE -k EXPR --tags T --limit N``)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

RUN = "put the red block next to the blue box"
HANG_GUARD = 120  # seconds: a refused file takes a few; the old code hung past any limit

# 9 levels of 9 aliases: 9**9 (387 million) strings from 342 bytes.
BOMB_LIST = "&a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"
BOMB = "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]\n"
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
)
BOMB = f"a: {BOMB_LIST}\n{BOMB}"


def inline_bomb(indent: str) -> str:
    """The bomb as one flow mapping (for a value inside another file)."""
    levels = [BOMB_LIST]
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        levels.append(f"&{name} [{', '.join([f'*{prev}'] * 9)}]")
    return "{" + f",\n{indent} ".join(f"l{i}: {v}" for i, v in enumerate(levels)) + "}"


def claw(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    return subprocess.run(
        [sys.executable, "-m", "claw", *map(str, args)],
        capture_output=True, text=True, timeout=HANG_GUARD, cwd=cwd, env=env,
    )  # fmt: skip


def one_error_line(result: subprocess.CompletedProcess[str], kind: str) -> str:
    """The single stderr line of an error, with nothing about it on stdout."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {kind}: "), lines[0]
    assert "error" not in result.stdout, result.stdout
    return lines[0]


def refused(result: subprocess.CompletedProcess[str], kind: str, path: Path) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    line = one_error_line(result, kind)
    assert path.name in line, line
    return line


def case(id_: str, **fields: Any) -> dict[str, Any]:
    """A case judged without moving anything: the instruction names an object not there."""
    return {
        "id": id_,
        "instruction": "put the purple block in the blue box",
        "expect_error": "unknown_object",
        **fields,
    }


def write(path: Path, data: dict[str, Any] | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False))
    return path


# -- item 3: every YAML claw reads is bounded -----------------------------------------------------


@pytest.mark.slow
def test_a_bomb_scene_file_is_refused_by_scene_show_and_by_a_run(tmp_path: Path) -> None:
    bomb = write(tmp_path / "bomb.yaml", BOMB)
    assert len(BOMB) < 500
    line = refused(claw("scene", "show", bomb), "invalid_scene", bomb)
    assert "200,000 values" in line and "alias" in line
    refused(claw(RUN, "--scene", bomb), "invalid_scene", bomb)


@pytest.mark.slow
def test_a_suite_with_an_inline_bomb_scene_is_refused(tmp_path: Path) -> None:
    text = (
        "name: bomb\ncases:\n  - id: a\n    instruction: put the red block in the blue box\n"
        "    expect_error: unknown_object\n    scene: " + inline_bomb("      ") + "\n"
    )
    suite = write(tmp_path / "bomb-suite.yaml", text)
    assert "200,000 values" in refused(claw("eval", suite), "invalid_suite", suite)


@pytest.mark.slow
def test_a_sweep_with_a_bomb_is_refused(tmp_path: Path) -> None:
    text = "suites: [basic]\nplanners: [offline]\nllm: " + inline_bomb("  ") + "\n"
    sweep = write(tmp_path / "bomb-sweep.yaml", text)
    result = claw("eval", "sweep", sweep, "--out", tmp_path / "out")
    assert "200,000 values" in refused(result, "invalid_suite", sweep)
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_bomb_in_training_configs_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    config = write(run / "config.yaml", BOMB)
    result = claw("train", "reach", "--resume", run)
    assert "200,000 values" in refused(result, "invalid_config", config)
    flow = "[" + inline_bomb("") + "]"
    result = claw("train", "reach", "--hyperparams", f"policy_kwargs.net_arch={flow}",
                  "--out", tmp_path / "fresh")  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "200,000 values" in one_error_line(result, "invalid_config")


@pytest.mark.slow
def test_the_yaml_limits_and_what_stays_allowed(tmp_path: Path) -> None:
    from claw.envs.yamlfile import MAX_BYTES, YamlLimitError, load_yaml, read_yaml

    anchors = "shared: &s {objects: [{type: block, color: red}]}\nuses: [*s, *s, *s, *s]\n"
    assert load_yaml(anchors)["uses"][3] == {"objects": [{"type": "block", "color": "red"}]}
    assert load_yaml("a: on\nb: true") == {"a": "on", "b": True}  # YAML 1.2 booleans
    assert load_yaml("a: on", core_booleans=False) == {"a": True}  # yaml.safe_load's
    for text, needle in [
        (BOMB, "200,000 values"),
        ("a: &a [1, *a]", "recursive"),
        ("[" * 200 + "]" * 200, "nested deeper than 64"),
    ]:
        with pytest.raises(YamlLimitError, match=needle):
            load_yaml(text)
    big = write(tmp_path / "big.yaml", "# " + "x" * MAX_BYTES + "\n")
    with pytest.raises(YamlLimitError, match="1 MiB"):
        read_yaml(big)
    nested = write(tmp_path / "deep-suite.yaml", "name: deep\ncases: " + "[" * 500 + "]" * 500)
    result = claw("eval", nested)
    assert "nested deeper" in refused(result, "invalid_suite", nested)


def test_scene_messages_do_not_build_the_whole_repr() -> None:
    from claw.envs.scene import _short

    calls = []

    class Loud:
        def __repr__(self) -> str:
            calls.append(1)
            return "loud"

    text = _short([[Loud()] * 10_000] * 100)
    assert len(text) <= 60 and len(calls) < 100


# -- item 6: sweep cells of suites sharing a name ------------------------------------------------


@pytest.mark.slow
def test_sweep_cells_of_suites_sharing_a_name_get_their_own_files(tmp_path: Path) -> None:
    one = write(tmp_path / "one" / "smoke.yaml", {"name": "smoke", "cases": [case("first")]})
    two = write(tmp_path / "two" / "smoke.yaml", {"name": "smoke", "cases": [case("second")]})
    sweep = write(
        tmp_path / "sweep.yaml", {"suites": [str(one), str(two)], "planners": ["offline"]}
    )
    out = tmp_path / "out"
    result = claw("eval", "sweep", sweep, "--out", out)
    assert result.returncode == 0, result.stderr
    rows = json.loads((out / "table.json").read_text())
    paths = [Path(row["path"]) for row in rows]
    assert len(rows) == 2 and len(set(paths)) == 2, paths
    assert paths[0].name == "smoke__offline__seed0.json"  # the first keeps the plain name
    ids = [[c["id"] for c in json.loads(p.read_text())["cases"]] for p in paths]
    assert ids == [["first"], ["second"]]


# -- item 16: a bad scene in a suite is refused at load ------------------------------------------


@pytest.mark.slow
def test_a_bad_inline_scene_is_refused_before_any_case_runs(tmp_path: Path) -> None:
    bad_case = case("bad-case", scene={"objects": [{"type": "sphere", "color": "red"}]})
    suite = write(tmp_path / "s.yaml", {"name": "s", "cases": [case("fine"), bad_case]})
    out = tmp_path / "r.json"
    line = refused(claw("eval", suite, "--json", out), "invalid_suite", suite)
    assert "case bad-case" in line and "sphere" in line
    assert not out.exists()
    top = write(tmp_path / "top.yaml", {"name": "t", "scene": "nowhere", "cases": [case("c")]})
    line = refused(claw("eval", top), "invalid_suite", top)
    assert "scene" in line and "nowhere" in line and "case c" in line


def test_a_case_expecting_an_invalid_scene_still_loads(tmp_path: Path) -> None:
    from claw.eval.exceptions import InvalidSuiteError
    from claw.eval.suite import load_suite

    expected = case("x", scene={"objects": []})
    expected["expect_error"] = "invalid_scene"
    assert len(load_suite(write(tmp_path / "ok.yaml", {"name": "ok", "cases": [expected]})).cases)
    bad = case("y", scene={"objects": [{"type": "block", "color": "red", "pose": [9, 9]}]})
    with pytest.raises(InvalidSuiteError, match=r"case y: scene: .*out of reach"):
        load_suite(write(tmp_path / "bad.yaml", {"name": "bad", "cases": [expected, bad]}))


# -- item 18: integers are integers --------------------------------------------------------------


@pytest.mark.parametrize("seed", ["true", '"5"', "2.0"])
def test_sweep_seeds_are_strict_integers(tmp_path: Path, seed: str) -> None:
    from claw.eval.exceptions import InvalidSuiteError
    from claw.eval.sweep import load_sweep

    path = write(tmp_path / "sweep.yaml", f"suites: [basic]\nplanners: [offline]\nseeds: [{seed}]")
    with pytest.raises(InvalidSuiteError, match=r"seeds: a seed offset is an integer"):
        load_sweep(path)


@pytest.mark.slow
def test_sweep_cli_refuses_coerced_seeds_and_settings(tmp_path: Path) -> None:
    from claw.eval.exceptions import InvalidSuiteError
    from claw.eval.sweep import load_sweep

    path = write(
        tmp_path / "s.yaml", 'suites: [basic]\nplanners: [offline]\nseeds: [true, "5", 2.0]'
    )
    result = claw("eval", "sweep", path, "--out", tmp_path / "out")
    assert "seeds" in refused(result, "invalid_suite", path)
    for extra, field in [("llm: {max_tokens: true}", "llm.max_tokens"), ("seeds: [0, 0]", "seeds")]:
        path = write(tmp_path / "t.yaml", f"suites: [basic]\nplanners: [offline]\n{extra}")
        with pytest.raises(InvalidSuiteError, match=field):
            load_sweep(path)


@pytest.mark.parametrize(
    "field, value", [("seed", "true"), ("seed", '"5"'), ("seed", "2.0"), ("distance", '"0.1"')]
)
def test_suite_numbers_are_strict(tmp_path: Path, field: str, value: str) -> None:
    from claw.eval.exceptions import InvalidSuiteError
    from claw.eval.suite import load_suite

    seed = value if field == "seed" else "0"
    distance = value if field == "distance" else "0.1"
    text = (
        "name: s\ncases:\n  - id: c\n    instruction: push the red block left by 10 cm\n"
        f"    seed: {seed}\n    goal: []\n"
        f"    expect_push: {{object: red_block, direction: left, distance: {distance}}}\n"
    )
    with pytest.raises(InvalidSuiteError, match=f"case c: .*{field}"):
        load_suite(write(tmp_path / "s.yaml", text))


# -- claw eval SUITE -k EXPR --tags T --limit N ----------------------------------------------------

CASES = [
    case("pick-red", tags=["pick", "seen"]),
    case("pick-blue", tags=["pick", "unseen"]),
    case("push-red", tags=["push", "seen"]),
    case("stack-green", tags=["stack"]),
]


@pytest.mark.parametrize(
    "k, tags, limit, ids",
    [
        ("red", (), None, ["pick-red", "push-red"]),
        ("pick and not blue", (), None, ["pick-red"]),
        ("(push or stack) and not RED", (), None, ["stack-green"]),
        ("not not seen", (), None, ["pick-red", "pick-blue", "push-red"]),  # "unseen" too
        (None, ("push,stack",), None, ["push-red", "stack-green"]),
        (None, ("pick", "stack"), 2, ["pick-red", "pick-blue"]),
        ("red or green", ("seen",), 1, ["pick-red"]),
    ],
)
def test_selection_of_cases(k: str | None, tags: tuple[str, ...], limit: int | None,
                            ids: list[str]) -> None:  # fmt: skip
    from claw.eval.selection import select
    from claw.eval.suite import Suite

    suite = Suite.model_validate({"name": "s", "cases": CASES})
    part, record = select(suite, k, tags, limit)
    assert [c.id for c in part.cases] == ids
    assert record.selected == len(ids) and record.total == 4 and record.limit == limit


@pytest.mark.parametrize(
    "k, tags, needle",
    [
        ("", (), "empty"),
        ("red and", (), "expected a name"),
        ("(red", (), "expected ')'"),
        ("red green", (), "column 5"),
        ("__import__('os')", (), "expected and, or or the end, found '('"),
        ("(" * 40 + "red" + ")" * 40, (), "parentheses"),
        ("nothing", (), "selects none of the 4 cases"),
        (None, ("nope",), "no case of suite s has it"),
    ],
)
def test_a_bad_selection_is_refused(k: str | None, tags: tuple[str, ...], needle: str) -> None:
    from claw.eval.exceptions import InvalidSelectionError
    from claw.eval.selection import select
    from claw.eval.suite import Suite

    suite = Suite.model_validate({"name": "s", "cases": CASES})
    with pytest.raises(InvalidSelectionError, match=re.escape(needle)):
        select(suite, k, tags)


@pytest.mark.slow
def test_eval_runs_part_of_a_suite_and_records_it(tmp_path: Path) -> None:
    suite = write(tmp_path / "s.yaml", {"name": "s", "cases": CASES})
    out = tmp_path / "r.json"
    result = claw("eval", suite, "-k", "red or green", "--tags", "seen,stack", "--limit", "2",
                  "--json", out)  # fmt: skip
    assert result.returncode == 0, result.stderr
    saved = json.loads(out.read_text())
    assert [c["id"] for c in saved["cases"]] == ["pick-red", "push-red"]
    assert saved["selection"] == {
        "k": "red or green", "tags": ["seen", "stack"], "limit": 2, "selected": 2, "total": 4
    }  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize(
    "args, needle",
    [
        (("-k", "red and"), "-k 'red and': expected a name"),
        (("--tags", "nope"), "--tags 'nope': no case"),
        (("--limit", "0"), "'--limit': Input should be greater than or equal to 1"),
    ],
)
def test_eval_refuses_a_bad_selection_in_one_line(
    tmp_path: Path, args: tuple[str, ...], needle: str
) -> None:
    suite = write(tmp_path / "s.yaml", {"name": "s", "cases": CASES})
    bad = claw("eval", suite, *args, "--json", tmp_path / "bad.json")
    assert bad.returncode == 2, bad.stderr
    assert needle in one_error_line(bad, "invalid_input")
    assert not (tmp_path / "bad.json").exists()
