"""The multi-step tasks of ``claw bench skills``: real tasks on physics, judged by their goal."""

from __future__ import annotations

import numpy as np
import pytest

from claw.skills.bench import bench_skills
from claw.skills.bench_tasks import TASKS, Task, run_task

WORKING = [
    "2 at a region",
    "fill a 12 cm box",
    "pick from a box",
    "five-block tower",
    "unstack five",
]


@pytest.mark.slow
@pytest.mark.parametrize("name", WORKING)
def test_a_task_succeeds_on_physics(name: str) -> None:
    task = TASKS[name](np.random.default_rng(0))
    outcome = run_task(task, seed=0)
    assert outcome.success, outcome.reason
    assert outcome.sim_seconds > 0 and len(task.moves) >= 1


def test_a_goal_that_does_not_hold_fails_the_task() -> None:
    task = Task(
        scene={"objects": [{"type": "block", "color": "red"}, {"type": "block", "color": "green"}]},
        moves=[],
        goal=["on(red_block, green_block)"],
    )
    outcome = run_task(task, seed=0)
    assert not outcome.success and "red_block" in outcome.reason


@pytest.mark.slow
def test_a_failed_move_is_the_reason() -> None:
    task = Task(
        scene={"objects": [{"type": "block", "color": "red"}, {"type": "block", "color": "green"}]},
        moves=[("red_block", "in", "green_block")],  # only boxes take things in
        goal=["on(red_block, green_block)"],
    )
    outcome = run_task(task, seed=0)
    assert not outcome.success and outcome.reason.startswith("place red_block in green_block")


def test_tasks_are_drawn_from_the_seed() -> None:
    for make in TASKS.values():
        first, again = make(np.random.default_rng(3)), make(np.random.default_rng(3))
        assert first == again


@pytest.mark.slow
def test_the_bench_reports_task_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    from claw.skills import bench

    monkeypatch.setattr(bench, "TASKS", {name: TASKS[name] for name in WORKING[:1]})
    # no single-skill trials (seconds): test_executor.py's bench smoke test runs those
    monkeypatch.setattr(bench, "relation_names", lambda: [])
    monkeypatch.setattr(bench, "_draw_push_task", lambda env, rng: None)
    result = bench_skills(episodes=1, seed=0)
    rows = {(r["skill"], r["relation"]): r for r in result.rows}
    assert set(rows) == {("task", WORKING[0])}
    assert rows[("task", WORKING[0])]["attempts"] == 1
    assert rows[("task", WORKING[0])]["success_rate"] == 1.0
