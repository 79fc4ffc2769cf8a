"""The planner registry (``register_planner`` / ``make_planner``), the ``Planner`` protocol every
planner implements, and the env + recorder session of ``claw.runtime``."""

from __future__ import annotations

from pathlib import Path

import pytest

import claw.eval  # noqa: F401  (registers replay:FILE and mock:*)
from claw.envs import TabletopEnv
from claw.eval.cassette import Cassette
from claw.eval.suite import load_suite
from claw.planner import ModelSettings, registry
from claw.planner.exceptions import InvalidPlannerError
from claw.planner.llm.planner import FallbackPlanner, LLMPlanner
from claw.planner.offline import OfflinePlanner
from claw.runtime import (
    BasePlanner,
    Planner,
    PlannerContext,
    Session,
    make_planner,
    parse_planner,
    planner_names,
    register_planner,
    run_instruction,
)
from claw.skills.plans import Plan

NAMES = (
    "offline, a litellm model, local (claw llm serve), offline+MODEL, mock:oracle, mock:literal, "
    "mock:noisy:P or mock:faulty:P (P from 0 to 1), replay:FILE"
)


@pytest.fixture
def own_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Families registered in a test are gone after it."""
    monkeypatch.setattr(registry, "_families", dict(registry._families))


def test_claws_own_planners_are_listed_first() -> None:
    assert planner_names() == NAMES
    with pytest.raises(InvalidPlannerError, match="the planner name is empty; planners: offline"):
        parse_planner("  ")


@pytest.mark.parametrize(
    ("text", "family", "argument"),
    [
        ("offline", "offline", ""),
        ("local", "local", ""),
        ("gpt-4o-mini", "model", "gpt-4o-mini"),
        ("ollama/llama3", "model", "ollama/llama3"),
        ("offline:x", "model", "offline:x"),  # a family named exactly takes no argument
        ("replay", "model", "replay"),  # a family with an argument needs its colon
        ("mock:noisy:0.3", "mock", "noisy:0.3"),
    ],
)
def test_a_name_is_its_familys(text: str, family: str, argument: str) -> None:
    spec = parse_planner(text)
    assert (spec.family, spec.argument) == (family, argument)


def test_no_name_is_the_hybrid_of_claw_model_else_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAW_MODEL", raising=False)
    assert parse_planner(None).family == "offline"
    monkeypatch.setenv("CLAW_MODEL", "gpt-4o-mini")
    spec = parse_planner(None)
    assert (spec.text, spec.family, spec.argument) == (
        "offline+gpt-4o-mini",
        "offline+",
        "gpt-4o-mini",
    )
    for named in ("offline", "offline+local"):  # named as it is
        monkeypatch.setenv("CLAW_MODEL", named)
        assert parse_planner(None).text == named
    assert parse_planner("gpt-4o-mini").family == "model"  # a planner named is that planner


def test_a_replay_spec_reads_its_cassette(tmp_path: Path) -> None:
    tape = tmp_path / "tape.json"
    Cassette(tape, model="gpt-4o-mini").save()
    spec = parse_planner(f"replay:{tape}")
    assert spec.reads == tape
    planner = make_planner(spec)
    assert isinstance(planner, LLMPlanner) and planner.model == "gpt-4o-mini"


def test_a_family_registers_like_a_gymnasium_env(own_registry: None) -> None:
    class Echo(BasePlanner):
        def __init__(self, words: str) -> None:
            self.name = f"echo:{words}"

        def plan(self, instruction: str, env: TabletopEnv) -> Plan:
            return Plan()

        def replan(self, instruction: str, plan: Plan, env: TabletopEnv, failure: object) -> Plan:
            return Plan()

    def echo(context: PlannerContext) -> Planner:
        return Echo(context.spec.argument)

    register_planner("echo", echo, takes_argument=True)
    assert planner_names().endswith(", echo:ARG")
    planner = make_planner("echo:hello there")  # an argument may have spaces; a model may not
    assert planner.name == "echo:hello there" and planner.model is None and planner.usage is None
    with pytest.raises(InvalidPlannerError, match="is not a model name"):
        parse_planner("echo hello")
    with pytest.raises(ValueError, match="no colon or space"):
        register_planner("a:b", echo)


def test_the_mocks_need_a_case_and_its_env() -> None:
    with pytest.raises(InvalidPlannerError, match="ground truth: use it with claw eval"):
        make_planner("mock:oracle")
    suite = load_suite("basic")
    env = TabletopEnv(scene=suite.scene_of(suite.cases[0]))
    try:
        env.reset(seed=suite.cases[0].seed)
        settings = ModelSettings(llm_mode="goal")
        planner = make_planner(
            "mock:oracle", env=env, ground_truth=suite.cases[0], settings=settings
        )
        assert isinstance(planner, LLMPlanner) and planner.mode == "goal"
    finally:
        env.close()


def test_a_fallback_planner_is_the_whole_protocol() -> None:
    planner = make_planner("gpt-4o-mini", fallback="offline")
    assert isinstance(planner, FallbackPlanner) and isinstance(planner.fallback, OfflinePlanner)
    assert planner.model == "gpt-4o-mini" and planner.usage is planner.first.usage
    planner.max_steps = 7
    assert planner.first.max_steps == planner.fallback.max_steps == 7

    def hook(messages: list[dict[str, str]], answer: str) -> None:
        pass

    planner.on_answer = hook
    assert planner.first.on_answer is hook and planner.on_answer is hook
    assert planner.structured_as is None  # nothing asked yet
    with pytest.raises(InvalidPlannerError, match="--fallback must be 'offline', not 'x'"):
        make_planner("gpt-4o-mini", fallback="x")


def test_an_offline_planner_has_the_protocols_defaults() -> None:
    planner = make_planner("offline")
    assert isinstance(planner, OfflinePlanner)
    assert (planner.model, planner.usage, planner.structured_as, planner.on_answer) == (
        None,
        None,
        None,
        None,
    )


def test_a_session_records_a_run_to_its_video(tmp_path: Path) -> None:
    video = tmp_path / "run.gif"
    with Session("default", video=video, frame_size=(48, 64), fps=2) as session:
        session.reset(seed=0)
        result = run_instruction(
            session.env, "push the red block 5 cm to the left", OfflinePlanner()
        )
        assert result.error is None, result.error
        assert session.save_video() == video
    assert video.stat().st_size > 0
    with Session("default") as plain:
        plain.reset(seed=0)
        assert plain.recorder is None and plain.save_video() is None
