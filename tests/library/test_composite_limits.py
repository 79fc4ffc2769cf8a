"""Composites and the library under hostile input, faults and load (issue 22, items 5, 7, 10, 14):
names cut at 64 characters never merge two tasks, a library that cannot be written never hides a
run's result, composites count against ``--max-steps`` and their bodies are capped at load, and
pruning deletes under the lock and never gives a version number out twice."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
import types
import uuid
from pathlib import Path
from typing import Any

import pytest

from claw.envs import TabletopEnv
from claw.library import SkillLibrary
from claw.library.composites import Composites, learn_from_run, prune
from claw.runtime import BasePlanner, RunResult, StepReport, run_instruction
from claw.skills.exceptions import ArtifactError
from claw.skills.executor import execute_calls
from claw.skills.plans import Plan, SkillCall

PUT_IN = [
    SkillCall(skill="pick", args={"object": "red_block"}),
    SkillCall(skill="place", args={"target": "blue_box", "relation": "in"}),
]
RED_BLUE = [
    SkillCall(skill="pick", args={"object": "red_block"}),
    SkillCall(skill="place", args={"target": "red_box", "relation": "in"}),
    SkillCall(skill="pick", args={"object": "blue_block"}),
    SkillCall(skill="place", args={"target": "blue_box", "relation": "in"}),
]
LONG = "put the red block in the red box, then put the blue block in the blue box, then push "
LONG += "the green block 10 cm to the {}"  # names cut at 64 characters end before the direction


def succeeded(plan: list[SkillCall]) -> RunResult:
    """A run that succeeded with ``plan`` (bookkeeping only: no physics)."""
    steps = [StepReport(skill=c.skill, args=c.args, success=True) for c in plan]
    return RunResult(instruction="x", success=True, plan=plan, steps=steps)


def pushing(direction: str) -> list[SkillCall]:
    push = {"object": "green_block", "direction": direction, "distance": 0.1}
    return [*RED_BLUE, SkillCall(skill="push", args=push)]


@pytest.fixture
def library(library_home: Path) -> SkillLibrary:
    return SkillLibrary()


def claw(*args: str, home: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLAW_HOME": str(home), "CLAW_EMBEDDER": "hash"}
    return subprocess.run(
        [sys.executable, "-m", "claw", *args],
        capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip


# -- item 5: a composite's identity is its structure, never a cut name ---------------------------


def test_names_cut_alike_are_two_skills_and_each_runs_its_own_steps(library: SkillLibrary) -> None:
    left = learn_from_run(library, LONG.format("left"), succeeded(pushing("left")), 0)
    right = learn_from_run(library, LONG.format("right"), succeeded(pushing("right")), 0)
    assert left is not None and right is not None
    assert left.name != right.name and left.version == right.version == 1
    assert len(left.name) <= 64 and len(right.name) <= 64
    composites = Composites(library)
    assert sorted(composites.names()) == sorted([left.name, right.name])  # both listed
    found = {h.record.name for h in library.search("push the green block", k=10, kind="composite")}
    assert found == {left.name, right.name}  # both searchable
    composites.record_use(right.key, False)
    composites.record_use(right.key, False)  # measured worse: it still runs its own steps
    for record, direction in ((left, "left"), (right, "right")):
        chosen = composites.choose(record.name)
        assert chosen.key == record.key
        assert composites.load(chosen).steps[-1].args["direction"] == direction


def test_a_name_another_kind_of_skill_has_is_not_shared(library: SkillLibrary) -> None:
    library.register("put_block_in_box", kind="controller", implementation="t:T", description="x")
    learned = learn_from_run(library, "put the red block in the blue box", succeeded(PUT_IN), 0)
    assert learned is not None and learned.name != "put_block_in_box"
    assert learned.version == 1  # its own name: its first version
    assert library.get("put_block_in_box").kind == "controller"


# -- item 7: a library that cannot be written never hides a run's result -------------------------


@pytest.mark.slow
def test_skills_run_of_a_composite_on_an_unwritable_library_shows_its_result(
    library: SkillLibrary, library_home: Path
) -> None:
    learned = learn_from_run(library, "put the red block in the blue box", succeeded(PUT_IN), 0)
    assert learned is not None
    # Tests run as root, whom chmod stops nothing: the writers' lock is made a folder instead,
    # so that every write of the library fails (EISDIR) while it is read as it is.
    (library.root / ".lock").unlink()
    (library.root / ".lock").mkdir()
    before = library.manifest_path.read_bytes()
    args = ("--arg", "block=red_block", "--arg", "box=blue_box", "--seed", "0", "--json")
    done = claw("skills", "run", learned.name, *args, home=library_home)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["success"] is True
    assert json.loads(done.stdout)["details"]["composite"] == learned.key
    notes = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(notes) == 1 and notes[0].startswith("note: "), done.stderr
    assert str(library.root) in notes[0]
    assert library.manifest_path.read_bytes() == before


@pytest.mark.slow
def test_skills_run_of_a_primitive_on_an_uncreatable_library_shows_its_result() -> None:
    home = Path("/sys") / f"claw_test_{uuid.uuid4().hex[:8]}"  # not even root can create it
    done = claw("skills", "run", "open_gripper", "--json", home=home)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["success"] is True
    notes = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(notes) == 1 and notes[0].startswith("note: "), done.stderr
    bad = claw("skills", "run", "open_gripper", "--arg", "width=5", "--json", home=home)
    assert bad.returncode == 2 and json.loads(bad.stdout)["error"]["kind"] == "invalid_params"


# -- item 10: composites count against --max-steps; bodies are capped at load --------------------


class OneCall(BasePlanner):
    """A planner whose plan is one call."""

    name = "one-call"

    def __init__(self, call: SkillCall) -> None:
        self.call = call

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        return Plan(steps=[self.call])

    def replan(self, instruction: str, plan: Plan, env: TabletopEnv, failure: Any = None) -> Plan:
        return Plan(steps=[self.call])


def test_a_composite_counts_as_its_steps_against_max_steps(
    library: SkillLibrary, env: TabletopEnv
) -> None:
    learned = learn_from_run(library, "x", succeeded(RED_BLUE), 0)
    assert learned is not None
    args = {"block": "red_block", "box": "red_box", "block2": "blue_block", "box2": "blue_box"}
    call = SkillCall(skill=learned.name, args=args)
    before = env.data.qpos.copy()
    for cap in (1, 3):
        result = run_instruction(env, "x", OneCall(call), max_steps=cap)
        assert result.error is not None and result.error.kind == "plan_too_long", result
        assert f"4 steps, more than the cap of {cap}" in result.error.message
        assert result.steps == [] and (env.data.qpos == before).all()  # nothing moved
    composites = Composites(library)
    assert composites.expanded_length([call, SkillCall(skill="home")]) == 5
    unknown = SkillCall(skill="no_such_composite", args={})
    assert composites.expanded_length([unknown]) == 1  # refused when run, with its own error


def _craft(library: SkillLibrary, steps: int) -> Any:
    """A stored composite whose body has ``steps`` steps, its sha256 and structure tag rewritten
    to match, as a hand-edited library would have it."""
    learned = learn_from_run(library, "put the red block in the blue box", succeeded(PUT_IN), 0)
    assert learned is not None
    pair = [
        {"args": {"object": "{block}"}, "skill": "pick"},
        {"args": {"relation": "in", "target": "{box}"}, "skill": "place"},
    ]
    body = {"format": 1, "params": {"block": "block", "box": "box"}, "steps": []}
    body["steps"] = (pair * (steps // 2 + 1))[:steps]
    data = json.dumps(body, sort_keys=True, indent=1).encode()
    digest = hashlib.sha256(data).hexdigest()
    (library.root / learned.artifacts[0].path).write_bytes(data)
    manifest = json.loads(library.manifest_path.read_text())
    for record in manifest["skills"]:
        if record["name"] == learned.name:
            record["artifacts"][0].update(sha256=digest, bytes=len(data))
            record["tags"] = ["composite", f"structure:{digest[:16]}"]
    library.manifest_path.write_text(json.dumps(manifest))
    return library.get(learned.name)


@pytest.mark.parametrize("steps", [51, 20_002])
def test_a_stored_body_over_the_cap_is_refused_at_load_never_run(
    steps: int, library: SkillLibrary, env: TabletopEnv
) -> None:
    record = _craft(library, steps)
    composites = Composites(library)
    with pytest.raises(ArtifactError, match=record.key) as refused:
        composites.load(record)
    assert len(str(refused.value).splitlines()) == 1
    call = SkillCall(skill=record.name, args={"block": "red_block", "box": "blue_box"})
    before = env.data.qpos.copy()
    outcome = execute_calls(env, [call], composites=composites)
    assert outcome.steps[0].error == "artifact_rejected"
    assert (env.data.qpos == before).all()


def test_a_body_at_the_cap_loads_and_counts_as_its_steps(library: SkillLibrary) -> None:
    record = _craft(library, 50)
    composites = Composites(library)
    assert len(composites.load(record).steps) == 50
    call = SkillCall(skill=record.name, args={"block": "red_block", "box": "blue_box"})
    assert composites.expanded_length([call]) == 50


# -- item 14: prune deletes under the lock and never reuses a version number ----------------------

STACK = "put the red block in the blue box, then stack the green block on the red block"
STACK_PLAN = [
    *PUT_IN,
    SkillCall(skill="pick", args={"object": "green_block"}),
    SkillCall(skill="place", args={"target": "red_block", "relation": "on"}),
]


def _two_versions_the_second_worse(library: SkillLibrary) -> tuple[Any, Any]:
    first = learn_from_run(library, STACK, succeeded(STACK_PLAN), 0)
    second = learn_from_run(library, STACK, succeeded([*STACK_PLAN, SkillCall(skill="home")]), 0)
    assert first is not None and second is not None
    assert (second.name, second.version) == (first.name, 2)
    Composites(library).record_use(second.key, False)  # 1 of 2
    return first, second


def test_a_pruned_version_number_is_never_given_out_again(library: SkillLibrary) -> None:
    first, second = _two_versions_the_second_worse(library)
    assert [r.key for r in prune(library, min_success=0.75)] == [second.key]
    third = learn_from_run(
        library, STACK, succeeded([*STACK_PLAN, SkillCall(skill="open_gripper")]), 0
    )
    assert third is not None and third.name == first.name and third.version == 3
    assert len(Composites(library).load(third).steps) == 5


def test_a_learn_that_takes_the_lock_as_prune_lets_go_keeps_its_artifact(
    library: SkillLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    import claw.library.store as store

    first, second = _two_versions_the_second_worse(library)
    learned: list[Any] = []
    armed = [True]

    def flock(fd: Any, operation: int) -> None:
        fcntl.flock(fd, operation)
        if operation == fcntl.LOCK_UN and armed[0]:  # prune lets go: a --learn gets the lock
            armed[0] = False
            plan = [*STACK_PLAN, SkillCall(skill="open_gripper")]
            learned.append(learn_from_run(library, STACK, succeeded(plan), 0))

    fake = types.SimpleNamespace(flock=flock, LOCK_EX=fcntl.LOCK_EX, LOCK_UN=fcntl.LOCK_UN)
    monkeypatch.setattr(store, "fcntl", fake)
    assert [r.key for r in prune(library, min_success=0.75)] == [second.key]
    [fresh] = learned
    assert fresh is not None and fresh.version > second.version
    assert len(Composites(library).load(fresh).steps) == 5  # its artifact is there, intact
    assert not (library.root / "artifacts" / first.name / f"v{second.version}").exists()
