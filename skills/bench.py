"""``claw bench skills``: success rates and speed of the controller skills on seeded scenes."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from claw.envs.predicates import Predicate, evaluate
from claw.envs.regions import REGIONS
from claw.envs.relations import find_relation, relation_names
from claw.envs.state import WorldState
from claw.envs.tabletop import TabletopEnv
from claw.perception.sensing import TRUTH, Sensing
from claw.skills.base import Skill, SkillResult
from claw.skills.bench_tasks import TASKS, run_task
from claw.skills.exceptions import NoPlacement
from claw.skills.learned import PolicySkill, PolicySource
from claw.skills.placement import find_placement
from claw.skills.push import DIRECTIONS, push_outcome
from claw.skills.registry import get_skill, skill_implementations

SCENES = ("default", "dense")
PUSH_DISTANCE = (0.05, 0.15)  # m
DRAWS = 20  # tries at drawing a feasible task before the episode skips it


class BenchRow(BaseModel):
    skill: str
    relation: str = ""
    attempts: int = 0
    successes: int = 0
    sim_seconds: float = 0.0
    wall_seconds: float = 0.0
    physics_seconds: float = 0.0

    @property
    def success_rate(self) -> float:
        return self.successes / self.attempts if self.attempts else 0.0

    @property
    def mean_sim_seconds(self) -> float:
        return self.sim_seconds / self.attempts if self.attempts else 0.0

    @property
    def real_time_factor(self) -> float:
        return self.sim_seconds / self.wall_seconds if self.wall_seconds else 0.0

    def summary(self) -> dict[str, Any]:
        return {
            "skill": self.skill,
            "relation": self.relation,
            "attempts": self.attempts,
            "successes": self.successes,
            "success_rate": round(self.success_rate, 4),
            "mean_sim_seconds": round(self.mean_sim_seconds, 3),
            "real_time_factor": round(self.real_time_factor, 1),
        }


class BenchFailure(BaseModel):
    seed: int
    scene: str
    skill: str
    args: dict[str, Any]
    reason: str


class SkillBench(BaseModel):
    episodes: int
    seed: int
    sensing: Sensing = TRUTH
    """How the skills saw the world; success is judged on the truth either way."""
    rows: list[dict[str, Any]]
    pick_place_real_time_factor: float
    """Simulated over wall seconds of every pick and place, rendering off, one process."""
    physics_real_time_factor: float
    """Simulated over wall seconds spent inside ``mj_step`` during those picks and places."""
    control_overhead: float
    """The share of pick-and-place wall time spent outside ``mj_step`` (IK, planning, checks)."""
    infeasible_draws: dict[str, int] = Field(default_factory=dict)
    """Tasks drawn and redrawn because no skill could do them (no free spot, path blocked)."""
    failures: list[BenchFailure]
    wall_seconds: float


Verdict = Callable[[TabletopEnv, SkillResult], SkillResult]


def _timed(
    skill: Skill, row: BenchRow, env: TabletopEnv, verdict: Verdict, **args: Any
) -> SkillResult:
    physics = env.physics_wall_seconds
    tic = time.perf_counter()
    outcome = verdict(env, skill(env, **args))
    row.wall_seconds += time.perf_counter() - tic
    row.physics_seconds += env.physics_wall_seconds - physics
    row.attempts += 1
    row.successes += outcome.success
    row.sim_seconds += outcome.sim_seconds
    return outcome


def on_truth(predicate: Predicate) -> Verdict:
    """The verdict of ``predicate`` on the true state: where a perceiver is attached, the
    skill's own check read its belief, and the benchmark judges the truth."""

    def verdict(env: TabletopEnv, outcome: SkillResult) -> SkillResult:
        if env.perception is None:
            return outcome
        check = evaluate(predicate, env.true_world_state())
        reason = "" if check.holds else outcome.reason or f"on the truth: {check.reason}"
        return outcome.model_copy(update={"success": check.holds, "reason": reason})

    return verdict


def pushed_on_truth(args: dict[str, Any], start: np.ndarray) -> Verdict:
    """The verdict of a push from ``start`` (the object's true x-y before it) on the truth."""

    def verdict(env: TabletopEnv, outcome: SkillResult) -> SkillResult:
        if env.perception is None:
            return outcome
        goal = start + args["distance"] * np.array(DIRECTIONS[args["direction"]])
        final = env.true_world_state().get(args["object"]).xy
        done, reason, _ = push_outcome(args["object"], args["direction"], start, final, goal)
        return outcome.model_copy(update={"success": done, "reason": "" if done else reason})

    return verdict


def _of_type(world: WorldState, kind: str) -> list[str]:
    """The scene's objects of type ``kind``, in scene order."""
    return [name for name, obj in world.objects.items() if obj.type == kind]


def _draw_place_task(
    env: TabletopEnv, relation: str, rng: np.random.Generator
) -> tuple[str, str, str | None] | None:
    """A block and a target (and a second one, for ``between``) for which a free spot exists
    (checked as if the block were held)."""
    world = env.true_world_state()
    blocks = _of_type(world, "block")
    for _ in range(DRAWS):
        obj = str(rng.choice(blocks))
        if relation == "at":
            target = str(rng.choice(list(REGIONS)))
        elif relation == "in":
            boxes = _of_type(world, "box")
            if not boxes:
                return None
            target = str(rng.choice(boxes))
        else:
            pool = [n for n in (blocks if relation == "on" else env.object_names) if n != obj]
            target = str(rng.choice(pool))
        second = None
        related = find_relation(relation)
        if related is not None and related.targets == 2:
            second = str(rng.choice([n for n in env.object_names if n not in (obj, target)]))
        try:
            find_placement(world, obj, relation, target, target2=second)
        except NoPlacement:
            continue
        return obj, target, second
    return None


def _draw_push_task(env: TabletopEnv, rng: np.random.Generator) -> dict[str, Any] | None:
    push = get_skill("push")
    blocks = _of_type(env.true_world_state(), "block")
    for _ in range(DRAWS):
        args = {
            "object": str(rng.choice(blocks)),
            "direction": str(rng.choice(list(DIRECTIONS))),
            "distance": round(float(rng.uniform(*PUSH_DISTANCE)), 3),
        }
        if not push.preconditions(env, push.Params(**args)):
            return args
    return None


def _run_tasks(
    episode_seed: int,
    rng: np.random.Generator,
    row: Callable[[str, str], BenchRow],
    failures: list[BenchFailure],
    skills: tuple[Skill[Any], Skill[Any]],
    sensing: Sensing,
) -> None:
    """One episode of every multi-step task, each on its own scene sampled from the seed."""
    for name, make in TASKS.items():
        task = make(rng)
        outcome = run_task(task, episode_seed, skills, sensing)
        tally = row("task", name)
        tally.attempts += 1
        tally.successes += outcome.success
        tally.sim_seconds += outcome.sim_seconds
        tally.wall_seconds += outcome.wall_seconds
        if not outcome.success:
            failures.append(
                BenchFailure(
                    seed=episode_seed,
                    scene=str(task.scene["name"]),
                    skill="task",
                    args={"task": name, "moves": task.moves},
                    reason=outcome.reason,
                )
            )


def bench_skill(name: str, prefer: str | None, policies: PolicySource | None) -> Skill[Any]:
    """The implementation of ``name`` to bench: ``prefer`` where the skill has it, else the
    controller; a policy's network from ``policies`` (``None``: the shipped ones), loaded now."""
    implementation = prefer if prefer in skill_implementations(name) else None
    skill = get_skill(name, implementation)
    if isinstance(skill, PolicySkill):
        skill.policies = policies
    skill.prepare()
    return skill


def bench_skills(
    episodes: int = 20,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
    tasks: bool = True,
    prefer: str | None = None,
    policies: PolicySource | None = None,
    sensing: Sensing = TRUTH,
) -> SkillBench:
    """Seeded pick-and-place trials for every relation, and pushes, on default and dense scenes;
    with ``tasks``, the multi-step tasks of :mod:`claw.skills.bench_tasks` on as many seeds
    (rows ``task``: success when every move succeeded and the goal holds at the end). With
    ``prefer="learned"``, the learned implementations run where a skill has one. With
    ``sensing``, the skills see through a perceiver (and the sensor model), and every trial is
    judged on the true state."""
    pick, place, push = (bench_skill(n, prefer, policies) for n in ("pick", "place", "push"))
    envs = {name: TabletopEnv(scene=name) for name in SCENES}
    for env in envs.values():
        sensing.check().attach(env)
    options = sensing.reset_options()
    rows: dict[tuple[str, str], BenchRow] = {}
    skipped: dict[str, int] = defaultdict(int)
    failures: list[BenchFailure] = []

    def row(skill: str, relation: str = "") -> BenchRow:
        return rows.setdefault((skill, relation), BenchRow(skill=skill, relation=relation))

    def record(episode_seed: int, scene: str, outcome: SkillResult, args: dict[str, Any]) -> None:
        if not outcome.success:
            failures.append(
                BenchFailure(
                    seed=episode_seed,
                    scene=scene,
                    skill=outcome.skill,
                    args=args,
                    reason=outcome.reason,
                )
            )

    start = time.perf_counter()
    for episode in range(episodes):
        episode_seed = seed + episode
        scene = SCENES[episode % len(SCENES)]
        env = envs[scene]
        rng = np.random.default_rng([seed, episode])
        for relation in relation_names():
            env.reset(seed=episode_seed, options=options)
            task = _draw_place_task(env, relation, rng)
            if task is None:
                skipped[f"place {relation}"] += 1
                continue
            obj, target, second = task
            held = on_truth(Predicate.of("holding", obj))
            picked = _timed(pick, row("pick"), env, held, object=obj)
            record(episode_seed, scene, picked, {"object": obj})
            if not picked.success:
                continue
            args = {"target": target, "relation": relation}
            if second is not None:
                args["target2"] = second
            put = on_truth(Predicate.of(relation, obj, target, *([second] if second else [])))
            placed = _timed(place, row("place", relation), env, put, **args)
            record(episode_seed, scene, placed, {"object": obj, **args})
        env.reset(seed=episode_seed, options=options)
        push_args = _draw_push_task(env, rng)
        if push_args is None:
            skipped["push"] += 1
        else:
            start_xy = env.true_world_state().get(push_args["object"]).xy.copy()
            moved = pushed_on_truth(push_args, start_xy)
            pushed = _timed(push, row("push", push_args["direction"]), env, moved, **push_args)
            record(episode_seed, scene, pushed, push_args)
        if tasks:
            rng_tasks = np.random.default_rng([seed, episode, 1])
            _run_tasks(episode_seed, rng_tasks, row, failures, (pick, place), sensing)
        if progress is not None:
            progress(episode + 1)

    for env in envs.values():
        env.close()
    pick_row = rows.get(("pick", ""), BenchRow(skill="pick"))  # single picks and places only
    place_rows = [r for (skill, _), r in rows.items() if skill == "place"]
    sim = pick_row.sim_seconds + sum(r.sim_seconds for r in place_rows)
    wall = pick_row.wall_seconds + sum(r.wall_seconds for r in place_rows)
    physics = pick_row.physics_seconds + sum(r.physics_seconds for r in place_rows)
    return SkillBench(
        episodes=episodes,
        seed=seed,
        sensing=sensing,
        rows=[r.summary() for r in sorted(rows.values(), key=lambda r: (r.skill, r.relation))],
        pick_place_real_time_factor=round(sim / wall, 1) if wall else 0.0,
        physics_real_time_factor=round(sim / physics, 1) if physics else 0.0,
        control_overhead=round(1.0 - physics / wall, 3) if wall else 0.0,
        infeasible_draws=dict(skipped),
        failures=failures,
        wall_seconds=round(time.perf_counter() - start, 1),
    )
