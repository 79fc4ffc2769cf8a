"""Composite skills: generalisation, dedup and versions, use on physics, tampering, pruning,
retrieval from paraphrases, and that a composite is data (skill names and references), never code.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from claw.cli import app
from claw.envs import TabletopEnv
from claw.envs.predicates import parse_predicate
from claw.eval.suite import load_suite
from claw.library import SkillLibrary
from claw.library.composite import (
    CompositeBody,
    abstract,
    compress,
    expand,
    generalise,
)
from claw.library.composites import Composites, learn_from_run, prune
from claw.planner.offline import OfflinePlanner
from claw.runtime import RunResult, StepReport, run_instruction
from claw.skills.exceptions import ArtifactError, InvalidParamsError
from claw.skills.executor import execute_calls
from claw.skills.plans import SkillCall
from claw.skills.registry import skill_names

RED_BLUE = "put the red block in the red box, then put the blue block in the blue box"
STACK = "put the red block in the blue box, then stack the green block on the red block"
STACK_PLAN = [
    SkillCall(skill="pick", args={"object": "red_block"}),
    SkillCall(skill="place", args={"target": "blue_box", "relation": "in"}),
    SkillCall(skill="pick", args={"object": "green_block"}),
    SkillCall(skill="place", args={"target": "red_block", "relation": "on"}),
]


def succeeded(plan: list[SkillCall], **extra: Any) -> RunResult:
    """A run that succeeded with ``plan`` (for the bookkeeping tests: no physics)."""
    steps = [StepReport(skill=c.skill, args=c.args, success=True) for c in plan]
    return RunResult(instruction="x", success=True, plan=plan, steps=steps, **extra)


@pytest.fixture
def library(library_home: Path) -> SkillLibrary:
    return SkillLibrary()


def test_a_plan_is_generalised_into_typed_parameters() -> None:
    body, values = generalise(STACK_PLAN)
    assert body.params == {"block": "block", "box": "box", "block2": "block"}
    assert values == {"block": "red_block", "box": "blue_box", "block2": "green_block"}
    assert [s.args for s in body.steps][1] == {"target": "{box}", "relation": "in"}
    assert abstract(STACK, values) == "put {block} in {box}, then stack {block2} on {block}"
    regions = [
        SkillCall(skill="pick", args={"object": "red_block"}),
        SkillCall(skill="place", args={"target": "far left corner", "relation": "at"}),
    ]
    body, values = generalise(regions)
    assert body.params == {"block": "block", "region": "region"}
    assert abstract("move the red cube to the far left corner", values) == (
        "move {block} to {region}"
    )


def test_same_structure_adds_a_phrase_and_a_use_changed_structure_a_version(
    library: SkillLibrary,
) -> None:
    first = learn_from_run(library, STACK, succeeded(STACK_PLAN), 0)
    assert first is not None and first.kind == "composite" and first.version == 1
    assert first.name == "put_block_in_box_then_stack_block2_on_block"
    assert first.provenance.learned_from["instruction"] == STACK  # type: ignore[index]
    assert first.provenance.learned_from["seed"] == 0  # type: ignore[index]
    other = "put the yellow block in the red box, then stack the blue block on the yellow block"
    renamed = {"red_block": "yellow_block", "blue_box": "red_box", "green_block": "blue_block"}
    plan = [
        SkillCall(skill=c.skill, args={k: renamed.get(v, v) for k, v in c.args.items()})
        for c in STACK_PLAN
    ]
    again = learn_from_run(library, other, succeeded(plan), 3)
    composites = Composites(library).records(all_versions=True)
    assert len(composites) == 1
    assert again is not None and again.key == first.key
    assert again.examples == [STACK, other]
    assert again.metrics is not None and again.metrics.episodes == 2
    # The same instruction (so the same name), another structure: a new version of it.
    changed = [*STACK_PLAN, SkillCall(skill="home")]
    newer = learn_from_run(library, STACK, succeeded(changed), 0)
    assert newer is not None and newer.name == first.name and newer.version == 2
    assert len(Composites(library).records(all_versions=True)) == 2
    assert library.manifest().runs == 3


def test_what_is_not_learned(library: SkillLibrary) -> None:
    one = [SkillCall(skill="pick", args={"object": "red_block"})]
    assert learn_from_run(library, "pick up the red block", succeeded(one), 0) is None
    failed = succeeded(STACK_PLAN).model_copy(update={"success": False})
    assert learn_from_run(library, STACK, failed, 0) is None
    assert learn_from_run(library, STACK, succeeded(STACK_PLAN, replans=1), 0) is None
    assert learn_from_run(library, STACK, succeeded(STACK_PLAN), 0, success=False) is None
    learned = learn_from_run(library, STACK, succeeded(STACK_PLAN), 0)
    assert learned is not None
    call = [SkillCall(skill=learned.name, args={"block": "a_block", "box": "b_box"})]
    assert learn_from_run(library, STACK, succeeded(call), 0) is None  # one composite
    assert library.manifest().runs == 6


@pytest.mark.slow
def test_learned_on_red_blue_runs_on_green_yellow_on_physics(
    library: SkillLibrary, make_env: Callable[..., TabletopEnv]
) -> None:
    env = make_env(scene="default")
    env.reset(seed=0)
    result = run_instruction(env, RED_BLUE, OfflinePlanner())
    assert result.success
    record = learn_from_run(library, RED_BLUE, result, 0, scene="default", planner="offline")
    assert (
        record is not None
        and record.description == "put {block} in {box}, then put {block2} in {box2}"
    )
    other = make_env(scene="default")
    other.reset(seed=4)
    args = {"block": "green_block", "box": "blue_box", "block2": "yellow_block", "box2": "red_box"}
    outcome = execute_calls(
        other, [SkillCall(skill=record.name, args=args)], composites=Composites(library)
    )
    assert outcome.success, outcome.steps[0].reason
    [step] = outcome.steps
    assert step.details["composite"] == record.key and len(step.details["steps"]) == 4
    goal = [
        parse_predicate("in(green_block, blue_box)"),
        parse_predicate("in(yellow_block, red_box)"),
    ]
    assert other.check(goal).success  # judged on the settled physics
    used = library.get(record.name)
    assert used.metrics is not None and used.metrics.conditions["uses"] == 2
    assert used.metrics.success_rate == 1.0


@pytest.mark.slow
def test_a_failing_step_fails_the_composite_with_its_reason(
    library: SkillLibrary, crowded_env: TabletopEnv
) -> None:
    plan = [
        SkillCall(skill="pick", args={"object": "red_block"}),
        SkillCall(skill="place", args={"target": "green_block", "relation": "next_to"}),
    ]
    record = learn_from_run(
        library, "put the red block next to the green block", succeeded(plan), 0
    )
    assert record is not None
    call = SkillCall(skill=record.name, args={"block": "red_block", "block2": "pink_block"})
    outcome = execute_calls(crowded_env, [call], composites=Composites(library))
    assert not outcome.success
    [step] = outcome.steps
    assert step.skill == record.name
    assert step.reason.startswith(f"step 2 of 2 of {record.key}, place(")
    assert step.details["steps"][-1]["reason"] in step.reason
    used = library.get(record.name)
    assert used.metrics is not None and used.metrics.success_rate == 0.5


def test_bad_arguments_are_one_line_naming_what_is_allowed() -> None:
    body, _ = generalise(STACK_PLAN)
    names = ["red_block", "green_block", "blue_box"]
    with pytest.raises(InvalidParamsError, match=r"missing argument 'block2' \(parameters: "):
        expand("c", body, {"block": "red_block", "box": "blue_box"}, names)
    with pytest.raises(InvalidParamsError, match=r"box must name a box of the scene \(blue_box\)"):
        expand("c", body, {"block": "red_block", "box": "green_block", "block2": "x"}, names)


def test_a_tampered_composite_is_refused(library: SkillLibrary, env: TabletopEnv) -> None:
    record = learn_from_run(library, STACK, succeeded(STACK_PLAN), 0)
    assert record is not None
    path = library.root / record.artifacts[0].path
    path.write_text(path.read_text().replace('"in"', '"on"'))
    call = SkillCall(
        skill=record.name, args={"block": "red_block", "box": "blue_box", "block2": "green_block"}
    )
    before = env.data.qpos.copy()
    outcome = execute_calls(env, [call], composites=Composites(library))
    assert outcome.steps[0].error == "artifact_rejected"
    assert "refusing" in outcome.steps[0].reason and "\n" not in outcome.steps[0].reason
    assert (env.data.qpos == before).all()  # nothing moved
    result = CliRunner().invoke(
        app, ["skills", "run", record.name, "--arg", "block=red_block", "--arg", "box=blue_box"]
    )
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "artifact_rejected" in result.output


def test_code_in_a_record_is_refused_even_with_a_matching_sha256(library: SkillLibrary) -> None:
    record = learn_from_run(library, STACK, succeeded(STACK_PLAN), 0)
    assert record is not None
    path = library.root / record.artifacts[0].path
    body = json.loads(path.read_text())
    body["steps"][0]["skill"] = "__import__('os').system('echo pwned')"
    path.write_text(json.dumps(body))
    from claw.library.files import sha256_of

    with library._locked() as manifest:  # an attacker who also rewrote the manifest
        stored = next(r for r in manifest.skills if r.key == record.key)
        stored.artifacts[0] = stored.artifacts[0].model_copy(update={"sha256": sha256_of(path)})
    with pytest.raises(ArtifactError, match="does not validate"):
        Composites(library).load(library.get(record.name))


def test_a_composite_is_skill_names_and_references_never_code(library: SkillLibrary) -> None:
    learn_from_run(library, STACK, succeeded(STACK_PLAN), 0)
    for record in Composites(library).records():
        assert record.implementation == f"composite:{record.name}"
        body = Composites(library).load(record)
        data = json.loads((library.root / record.artifacts[0].path).read_text())
        assert set(data) == {"format", "params", "steps"}
        for step in body.steps:
            assert step.skill in skill_names()
            for value in step.args.values():
                assert (
                    value is None
                    or isinstance(value, int | float | bool)
                    or (value.startswith("{") and value[1:-1] in body.params)
                    or value in ("in", "on", "next_to", "left_of", "right_of", "at")
                )
    with pytest.raises(ValueError, match="not a registered skill"):
        CompositeBody.model_validate(
            {
                "params": {"block": "block"},
                "steps": [{"skill": "exec", "args": {"o": "{block}"}}] * 2,
            }
        )


def test_prune_dry_run_then_for_real(library: SkillLibrary) -> None:
    learn_from_run(library, STACK, succeeded(STACK_PLAN), 0)
    two = [
        SkillCall(skill="pick", args={"object": "red_block"}),
        SkillCall(skill="place", args={"target": "far left corner", "relation": "at"}),
    ]
    learn_from_run(library, "move the red block to the far left corner", succeeded(two), 0)
    learn_from_run(library, "move the green block to the far left corner", succeeded(two), 0)
    assert [r.key for r in prune(library, unused_runs=2, dry_run=True)] == [
        "put_block_in_box_then_stack_block2_on_block@1"
    ]
    assert prune(library, min_success=0.5, dry_run=True) == []
    assert len(Composites(library).records()) == 2  # a dry run removes nothing
    result = CliRunner().invoke(app, ["skills", "prune", "--unused-runs", "2", "--json"])
    assert json.loads(result.output)["removed"] == ["put_block_in_box_then_stack_block2_on_block@1"]
    assert [r.name for r in Composites(library).records()] == ["move_block_to_region"]
    assert not (library.root / "artifacts" / "put_block_in_box_then_stack_block2_on_block").exists()
    bad = CliRunner().invoke(app, ["skills", "prune"])
    assert bad.exit_code == 2 and "--min-success" in bad.output


def test_the_oracle_writes_fewer_steps_through_composites() -> None:
    body, _ = generalise(STACK_PLAN)
    plan = [*STACK_PLAN, SkillCall(skill="home")]
    short = compress(plan, [("stack_in_box", body)])
    assert [c.skill for c in short] == ["stack_in_box", "home"]
    assert short[0].args == {"block": "red_block", "box": "blue_box", "block2": "green_block"}
    assert compress(plan[1:], [("stack_in_box", body)]) == plan[1:]


# Written before measuring, in words a person might use; not tuned to the embedder.
LEARNED = {
    "in_then_next_to": (
        "put the red block in the blue box, then put the green block next to the red box"
    ),
    "in_and_in": "put the red block in the blue box and the green block in the red box",
    "tower": "put the blue block on the red block and the yellow block on the blue block",
    "corners": (
        "move the red block to the far left corner and the green block to the near right corner"
    ),
    "flank": (
        "put the green block left of the red box, then put the yellow block right of the red box"
    ),
}
PARAPHRASES: dict[str, list[str]] = {
    "in_then_next_to": [
        "drop the yellow cube into the red bin and then set the blue cube beside the blue bin",
        (
            "place the green block inside the red box, after that move the red block next to the "
            "blue box"
        ),
        "first put the blue block into the blue box, then place the yellow block by the red box",
        (
            "load the red cube into the red container and put the green cube alongside the blue "
            "container"
        ),
        "put one block in a box and another block next to the other box",
    ],
    "in_and_in": [
        "drop the yellow block into the red box and the green block into the blue box",
        "put the red one in the blue bin and the blue one in the red bin",
        "place the green block inside the blue box, and the red block inside the red box",
        (
            "fill the two boxes: the yellow block goes in the red box, the blue block goes in the "
            "blue box"
        ),
        "pack the red block into the red container and the green block into the blue container",
    ],
    "tower": [
        "stack the green block on the yellow block and then the red block on the green block",
        "build a tower: blue block on red block, yellow block on top of the blue block",
        "set the red cube on top of the green cube and the blue cube on top of the red cube",
        (
            "place the yellow block onto the blue block and then put the green block on the yellow "
            "block"
        ),
        "pile three blocks: green on red, then blue on green",
    ],
    "corners": [
        "move the blue block to the near left corner and the yellow block to the far right corner",
        "send the green cube to the far left corner and the red cube to the near right corner",
        "put the yellow block in the far right corner and the red block in the near left corner",
        (
            "carry the red block over to the near left corner and the blue block over to the far "
            "left corner"
        ),
        (
            "relocate the green block to the far right corner, and the blue one to the near left "
            "corner"
        ),
    ],
    "flank": [
        "place the red block to the left of the red box and the yellow block to its right",
        "put the blue cube on the left of the blue bin, then the green cube on the right of it",
        "set the yellow block left of the red box and then the blue block right of the red box",
        (
            "position the green block to the left of the blue box and the red block to the right "
            "of the blue box"
        ),
        (
            "flank the red box with two blocks: the green one on its left and the blue one on its "
            "right"
        ),
    ],
}


@pytest.fixture(scope="module")
def five_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The offline runs on physics (seed 0, an empty library) of the five instructions, by key:
    run once, and learned from by each test that needs them (into a library of its own)."""
    runs = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CLAW_HOME", str(tmp_path_factory.mktemp("home")))
        patch.setenv("CLAW_EMBEDDER", "hash")
        for key, text in LEARNED.items():
            env = TabletopEnv(scene="default")
            try:
                env.reset(seed=0)
                runs[key] = run_instruction(env, text, OfflinePlanner())
            finally:
                env.close()
    return runs


def learn_five(library: SkillLibrary, runs: dict[str, Any]) -> dict[str, str]:
    """Learn the five composites from their runs; their names by key."""
    names = {}
    for key, text in LEARNED.items():
        record = learn_from_run(library, text, runs[key], 0, scene="default", planner="offline")
        assert record is not None, text
        names[key] = record.name
    return names


@pytest.mark.slow
@pytest.mark.parametrize("embedder", ["minilm", "hash"])
def test_search_finds_a_composite_from_a_paraphrase(
    library_home: Path, five_runs: dict[str, Any], embedder: str
) -> None:
    library = SkillLibrary(embedder=embedder)
    names = learn_five(library, five_runs)
    assert len(set(names.values())) == 5
    found = [
        names[key] in [h.record.name for h in library.search(text, k=3)]
        for key, texts in PARAPHRASES.items()
        for text in texts
    ]
    recall = sum(found) / len(found)
    print(f"{embedder}: recall@3 {recall:.2f} on {len(found)} paraphrases")
    # MiniLM (the default) must reach the 0.9; the hashed n-grams (0.56 measured; chance
    # is about 3 in 14 records) must stay well above chance
    assert recall >= (0.9 if embedder == "minilm" else 0.5)


@pytest.mark.slow
def test_the_cli_learns_lists_and_runs_a_composite(library_home: Path) -> None:
    runner = CliRunner()
    learned = runner.invoke(app, ["run", RED_BLUE, "--learn", "--planner", "offline", "--json"])
    assert learned.exit_code == 0, learned.output
    again = runner.invoke(
        app, ["run", RED_BLUE.replace("red block", "red cube"), "--learn", "--seed", "2"]
    )
    assert again.exit_code == 0 and "learned: composite" in again.output
    listed = json.loads(runner.invoke(app, ["skills", "list", "--json"]).output)
    [composite] = [r for r in listed if r["kind"] == "composite"]
    assert len(composite["examples"]) == 2 and composite["metrics"]["episodes"] == 2
    assert composite["provenance"]["learned_from"]["instruction"] == RED_BLUE
    args = ["--arg", "block=green_block", "--arg", "box=blue_box"]
    args += ["--arg", "block2=yellow_block", "--arg", "box2=red_box"]
    ran = runner.invoke(app, ["skills", "run", composite["name"], *args, "--seed", "5", "--json"])
    assert ran.exit_code == 0, ran.output
    assert json.loads(ran.output)["success"] is True
    bad = runner.invoke(app, ["skills", "run", composite["name"], "--arg", "block"])
    assert bad.exit_code == 2 and "KEY=VALUE" in bad.output


@pytest.mark.slow
def test_the_llm_planner_offers_composites_and_the_oracle_answers_through_them(
    library: SkillLibrary, make_env: Callable[..., TabletopEnv]
) -> None:
    from claw.eval.mocks import oracle_planner
    from claw.eval.suite import Case

    case = Case(
        id="c",
        instruction="put the green block in the blue box, then put the yellow block in the red box",
        scene="default",
        goal=["in(green_block, blue_box)", "in(yellow_block, red_box)"],  # type: ignore[list-item]
    )
    env = make_env(scene="default")
    env.reset(seed=0)
    before = oracle_planner(case, env)
    plain = run_instruction(env, case.instruction, before)
    assert plain.success and len(plain.plan) == 4 and not before.offered
    system = before.messages[0]["content"]
    learn_from_run(library, case.instruction, plain, 0)
    env = make_env(scene="default")
    env.reset(seed=0)
    planner = oracle_planner(case, env)
    result = run_instruction(env, case.instruction, planner)
    assert [name for name, _, _ in planner.offered] == [Composites(library).names()[0]]
    assert planner.messages[0]["content"] == system  # the system prompt is unchanged
    assert "Learned composite skills" in planner.messages[-2]["content"]
    assert len(result.plan) == 1 and result.plan[0].skill == planner.offered[0][0]
    assert result.success  # judged on the settled physics against the goal


@pytest.mark.slow
def test_claw_eval_learn_registers_composites_with_provenance(
    library_home: Path, tmp_path: Path
) -> None:
    suite = load_suite("basic")
    picked = suite.cases[:3]  # next to, in, in: a new composite, and a use of one just learned
    path = tmp_path / "few.yaml"
    data = json.loads(suite.model_copy(update={"name": "few", "cases": picked}).model_dump_json())
    path.write_text(yaml.safe_dump(data))
    runner = CliRunner()
    first = runner.invoke(app, ["eval", "run", str(path), "--planner", "mock:oracle", "--learn"])
    assert first.exit_code == 0, first.output
    listed = json.loads(runner.invoke(app, ["skills", "list", "--json"]).output)
    composites = [r for r in listed if r["kind"] == "composite"]
    assert 1 <= len(composites) <= len(picked)
    for record in composites:
        learned = record["provenance"]["learned_from"]
        assert learned["instruction"] in [c.instruction for c in picked]
        assert learned["success"] is True and learned["planner"] == "mock:oracle"
    uses = sum(r["metrics"]["episodes"] for r in composites)
    again = runner.invoke(app, ["eval", "run", str(path), "--planner", "offline", "--learn"])
    assert again.exit_code == 0, again.output
    relisted = [r for r in json.loads(runner.invoke(app, ["skills", "list", "--json"]).output)
                if r["kind"] == "composite"]  # fmt: skip
    assert len(relisted) == len(composites)  # the same plans: no new skill, a use each
    assert sum(r["metrics"]["episodes"] for r in relisted) == 2 * uses
    assert "0 new composite(s)" in again.output
