"""``claw bench env|observations|skills|two-arm|library|policy|planner|words|imitation``:
speed and success figures (``all`` and ``startup``: :mod:`claw.bench_all_commands`; ``perception``:
:mod:`claw.bench_perception_command`)."""

from __future__ import annotations

from typing import Annotated

import typer

from claw.bench_all_commands import bench_all_command, bench_startup_command
from claw.bench_perception_command import bench_perception_command
from claw.options import (
    JsonFlag,
    PerceptionOption,
    PreferOption,
    SensorNoiseFlag,
    seed_callback,
)
from claw.output import errors, progress_bar, table

bench_app = typer.Typer(
    help="Measure: the env's physics, the skills, the library; all of it (claw bench all).",
    no_args_is_help=True,
)
bench_app.command("all")(bench_all_command)
bench_app.command("startup")(bench_startup_command)
bench_app.command("perception")(bench_perception_command)


@bench_app.command("env")
def bench_env_command(
    steps: Annotated[int, typer.Option(min=10, help="Env steps per timing run.")] = 2000,
    scene: Annotated[str, typer.Option(help="Built-in scene name or YAML file.")] = "default",
    seed: Annotated[
        int, typer.Option(callback=seed_callback, help="Seed of the scene and the random actions.")
    ] = 0,
    repeats: Annotated[int, typer.Option(min=1, help="Timing runs; the best is kept.")] = 3,
    as_json: JsonFlag = False,
) -> None:
    """Raw mj_step rate vs the physics rate inside env.step, their ratio, real-time factors."""
    with errors(as_json):
        from claw.envs.bench import bench_env, describe

        result = bench_env(steps=steps, scene=scene, seed=seed, repeats=repeats)
    if as_json:
        print(result.model_dump_json())
    else:
        table("claw bench env", describe(result))


@bench_app.command("observations")
def bench_observations_command(
    task: Annotated[str, typer.Option(help="reach, push or pick_place.")] = "pick_place",
    steps: Annotated[int, typer.Option(min=10, help="Env steps per timing run.")] = 200,
    views: Annotated[
        str, typer.Option(metavar="VIEW[,VIEW]", help="Cameras: wrist, front, front@tool, …")
    ] = "wrist,front@tool",
    size: Annotated[int, typer.Option(min=16, help="Image height and width (pixels).")] = 64,
    frame_stack: Annotated[int, typer.Option(min=1, help="Frames per observation.")] = 1,
    sensor_noise: SensorNoiseFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """What each observation mode of a training env (state, depth, rgbd, state+…) costs per
    step, on the same random actions."""
    with errors(as_json):
        from claw.envs.bench_observations import bench_observations, describe

        result = bench_observations(
            task=task,
            steps=steps,
            views=tuple(v.strip() for v in views.split(",") if v.strip()),
            image_size=(size, size),
            frame_stack=frame_stack,
            sensor_noise=sensor_noise,
        )
    if as_json:
        print(result.model_dump_json())
    else:
        table("claw bench observations", describe(result))


@bench_app.command("skills")
def bench_skills_command(
    episodes: Annotated[int, typer.Option(min=1, help="Seeded episodes (scenes alternate).")] = 20,
    seed: Annotated[
        int, typer.Option(callback=seed_callback, help="Seed of the first episode.")
    ] = 0,
    record: Annotated[
        bool,
        typer.Option(
            "--record", help="Store the success rates in the skill library (the executor's choice)."
        ),
    ] = False,
    tasks: Annotated[
        bool,
        typer.Option(
            help="Also the multi-step tasks (blocks at one region, a full box, a pick from a "
            "box, a five-block tower, an unstack), one of each per episode."
        ),
    ] = True,
    prefer: PreferOption = None,
    perception: PerceptionOption = "truth",
    sensor_noise: SensorNoiseFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Pick-and-place for every relation and pushes on seeded default and dense scenes, and
    multi-step tasks judged by their goal; with --prefer learned, by the learned claws (the
    skill library's latest policies) where a skill has one; with --perception camera, the
    skills aim at what the cameras see, every trial judged on the truth."""
    from rich.console import Console
    from rich.table import Table

    from claw.skills.bench import bench_skills

    learned = prefer is not None and prefer.value == "learned"
    with errors(as_json):
        from claw.envs.seeding import check_seeds
        from claw.perception.sensing import Sensing

        check_seeds(seed, episodes)
        sensing = Sensing(perception=perception, sensor_noise=sensor_noise).check()
    if record:  # before the work whose figures it must store
        with errors(as_json):
            if learned:
                raise ValueError("--record stores the controllers' figures; drop --prefer learned")
            if sensing.perception != "truth" or sensing.sensor_noise:
                raise ValueError(
                    "--record stores the figures seen on the truth; drop --perception and "
                    "--sensor-noise"
                )
            from claw.library.storage import SkillLibrary

            SkillLibrary().check_writable()
    with errors(as_json):
        from claw.library import policy_source

        policies = policy_source() if learned else None
    with errors(as_json), progress_bar("episodes", episodes, as_json) as done:
        result = bench_skills(
            episodes,
            seed,
            progress=done,
            tasks=tasks,
            prefer=prefer.value if prefer is not None else None,
            policies=policies,
            sensing=sensing,
        )
    if record:
        import shlex
        import sys

        from claw.library.metrics import record_controller_metrics

        with errors(as_json):
            recorded = record_controller_metrics(result, "claw " + shlex.join(sys.argv[1:]))
        Console(stderr=True).print(f"recorded in the library: {', '.join(recorded)}")
    if as_json:
        print(result.model_dump_json())
        return
    seen = "" if perception == "truth" else f", seen by {perception}"
    seen += ", sensor noise on" if sensor_noise else ""
    table = Table(title=f"claw bench skills: {episodes} episodes from seed {seed}{seen}")
    for column in ("skill", "relation", "attempts", "success", "mean sim s", "real-time"):
        table.add_column(column, justify="left" if column in ("skill", "relation") else "right")
    for row in result.rows:
        table.add_row(
            row["skill"],
            row["relation"],
            str(row["attempts"]),
            f"{100 * row['success_rate']:.1f} %",
            f"{row['mean_sim_seconds']:.2f}",
            f"{row['real_time_factor']:.1f}x",
        )
    out = Console()
    out.print(table)
    out.print(
        f"pick-and-place real-time factor: {result.pick_place_real_time_factor}x "
        f"(its physics alone {result.physics_real_time_factor}x: control overhead "
        f"{100 * result.control_overhead:.0f} %)"
    )
    if result.infeasible_draws:
        drawn = ", ".join(f"{k}: {v}" for k, v in result.infeasible_draws.items())
        out.print(f"episodes with no feasible task drawn: {drawn}")
    for failure in result.failures:
        out.print(
            f"[red]failed[/red] TabletopEnv(scene={failure.scene!r}).reset(seed={failure.seed}); "
            f"{failure.skill} {failure.args}: {failure.reason}"
        )
    out.print(f"{result.wall_seconds} s wall")


@bench_app.command("planner")
def bench_planner_command(
    suites: Annotated[
        list[str] | None,
        typer.Option(
            "--suite", help="Suite file or built-in name (repeat for more; default: those shipped)."
        ),
    ] = None,
    repeats: Annotated[int, typer.Option(min=1, help="Timings per instruction (the median).")] = 5,
    perception: PerceptionOption = "truth",
    sensor_noise: SensorNoiseFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Offline planning latency per instruction: reading, grounding, the whole plan, and a
    replanning step (the world perceived afresh, then planned; with --perception camera, a
    new capture and estimate) (p50/p95)."""
    from rich.console import Console
    from rich.table import Table

    with errors(as_json):
        from claw.eval.bench import PHASES, bench_planner
        from claw.perception.sensing import Sensing

        sensing = Sensing(perception=perception, sensor_noise=sensor_noise)
        result = bench_planner(suites, repeats=repeats, sensing=sensing)
    if as_json:
        print(result.model_dump_json())
        return
    seen = "" if perception == "truth" else f", seen by {perception}"
    seen += ", sensor noise on" if sensor_noise else ""
    title = f"claw bench planner: median of {repeats} timings per instruction{seen}"
    table = Table(title=title)
    for column in ("suite", "instructions (refused)", "phase", "p50 ms", "p95 ms", "max ms"):
        table.add_column(column, justify="right" if column.endswith("ms") else "left")
    for row in [*result.suites, result.overall]:
        for k, phase in enumerate(PHASES):
            times = row.phases[phase]
            first = (row.suite, f"{row.instructions} ({row.refused})") if k == 0 else ("", "")
            table.add_row(
                *first, phase, f"{times.p50_ms:.2f}", f"{times.p95_ms:.2f}", f"{times.max_ms:.1f}"
            )
    out = Console()
    out.print(table)
    out.print(f"first plan of the process: {result.first_plan_ms:.1f} ms")
    per_clause = ", ".join(f"{r.suite} {r.parses_per_clause:.1f}" for r in result.suites)
    out.print(f"parses per clause: {per_clause}; all {result.overall.parses_per_clause:.1f}")
    slowest = ", ".join(f"{case} {ms:.1f} ms" for case, ms in result.slowest)
    out.print(f"slowest: {slowest}")


@bench_app.command("words")
def bench_words_command(
    lists: Annotated[
        list[str] | None,
        typer.Option(
            "--list", help="Word list file (repeat for more; default: the shipped words_*.yaml)."
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Words the lexicon lacks, grounded by meaning: matches, refusals, lookup latency."""
    from rich.console import Console
    from rich.table import Table

    with errors(as_json):
        from claw.eval.words import bench_words

        result = bench_words(lists)
    if as_json:
        print(result.model_dump_json())
        return
    table = Table(title=f"claw bench words: threshold {result.threshold}, margin {result.margin}")
    columns = ("list", "n", "right", "wrong", "refused", "distractors refused",
               "false", "p50/p95 ms")  # fmt: skip
    for column in columns:
        table.add_column(column, justify="left" if column == "list" else "right")
    for row in result.lists:
        table.add_row(
            row.name, str(row.n), f"{row.correct}/{row.with_meaning}", str(row.wrong),
            str(row.refused), f"{row.correct_refusals}/{row.distractors}",
            str(row.false_matches), f"{row.lookup_p50_ms:.0f}/{row.lookup_p95_ms:.0f}",
        )  # fmt: skip
    out = Console()
    out.print(table)
    source = "from disk" if result.prototypes_from_disk else "computed"
    out.print(f"cold load: {result.cold_load_s} s (model, prototypes {source}); "
              f"a cached lookup: {result.cached_lookup_us} µs")  # fmt: skip
    for row in result.lists:
        if row.known:
            out.print(f"{row.name}: {row.known} words the lexicon knows, not counted")
        if row.outside_position:
            out.print(f"{row.name}: {row.outside_position} mean what their position rules out")
        if row.mistakes:
            wrong = ", ".join(f"{w.word} -> {w.got}" for w in row.mistakes)
            out.print(f"{row.name} matched wrongly: {wrong}", markup=False)


@bench_app.command("two-arm")
def bench_two_arm_command(
    episodes: Annotated[int, typer.Option(min=1, help="Seeded episodes per task.")] = 40,
    seed: Annotated[
        int, typer.Option(callback=seed_callback, help="Seed of the first episode.")
    ] = 0,
    as_json: JsonFlag = False,
) -> None:
    """Handover, joint lift, and two pick-and-places in parallel vs one after the other."""
    with errors(as_json):
        from claw.envs.seeding import check_seeds
        from claw.runtime.bench_two_arms import bench_two_arms, describe

        check_seeds(seed, episodes)
        result = bench_two_arms(episodes=episodes, seed=seed)
    if as_json:
        print(result.model_dump_json())
    else:
        table("claw bench two-arm", describe(result))


@bench_app.command("library")
def bench_library_command(
    skills: Annotated[int, typer.Option(min=1, help="Synthetic skills in the library.")] = 10_000,
    queries: Annotated[int, typer.Option(min=10, help="Queries timed.")] = 200,
    embedder: Annotated[
        str | None, typer.Option(help="minilm, hash or litellm:MODEL (default: CLAW_EMBEDDER).")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Index build time, query latency (embedding and search apart) and memory."""
    with errors(as_json):
        from claw.library.bench import bench_library

        result = bench_library(skills=skills, queries=queries, embedder=embedder)
    if as_json:
        print(result.model_dump_json())
        return
    table(
        "claw bench library",
        [
            ("skills / indexed rows", f"{result.skills:,} / {result.rows:,} ({result.index_kind})"),
            ("embedder", result.embedder),
            (
                "manifest write / load",
                f"{result.manifest_write_seconds} s / {result.manifest_load_seconds} s",
            ),
            ("embedding every row", f"{result.embed_seconds} s"),
            ("building the index", f"{result.index_build_seconds} s"),
            ("index size", f"{result.index_bytes / 2**20:.1f} MiB"),
            (
                "query embedding p50 / p99",
                f"{result.query_embed_ms_p50} / {result.query_embed_ms_p99} ms",
            ),
            ("search p50 / p99", f"{result.search_ms_p50} / {result.search_ms_p99} ms"),
            ("peak memory (RSS)", f"{result.peak_rss_mb} MiB"),
        ],
    )


@bench_app.command("imitation")
def bench_imitation_command(
    demos: Annotated[int, typer.Option(min=1, help="Expert episodes recorded.")] = 200,
    dagger: Annotated[int, typer.Option(min=0, help="DAgger rounds after cloning.")] = 8,
    episodes: Annotated[int, typer.Option(min=1, help="Fresh episodes measuring each.")] = 200,
    seed: Annotated[
        int, typer.Option(callback=seed_callback, help="Seed of the demonstrations and training.")
    ] = 0,
    hyperparams: Annotated[
        list[str] | None,
        typer.Option("--hyperparams", help="Override a pick config value: KEY=VALUE (repeatable)."),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Learned pick-and-place from the controllers' demonstrations: the expert, behaviour
    cloning and DAgger measured on the same fresh episodes, in one run (minutes)."""
    from claw.learning.bench import bench_imitation

    with errors(as_json):
        from claw.envs.seeding import check_seeds

        check_seeds(seed, demos, "--demos")
        result = bench_imitation(demos, dagger, episodes, seed, hyperparams or [])
    if as_json:
        print(result.model_dump_json())
        return
    rows = [
        (
            row.learner,
            f"{row.success_rate:.1%} of {row.episodes} ({row.env_steps} env steps)",
        )
        for row in result.rows
    ]
    rows += [
        ("recording", f"{result.record_seconds} s"),
        ("training", f"{result.train_seconds} s"),
    ]
    table(f"claw bench imitation ({result.env_id}, {result.demonstrations} demos)", rows)


@bench_app.command("policy")
def bench_policy_command(
    policy: Annotated[
        str,
        typer.Argument(
            help="reach, push or pick_place (the library's policy), or a policy folder."
        ),
    ],
    episodes: Annotated[int, typer.Option(min=1, help="Evaluation episodes.")] = 200,
    seed: Annotated[int | None, typer.Option(help="Seed of the first episode.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """A learned claw's success in its training env on fresh seeds (and its controller alone)."""
    import json

    with errors(as_json):
        from claw.envs.seeding import check_seeds
        from claw.learning.evaluate import EVALUATION_SEED, bench_policy

        first = check_seeds(EVALUATION_SEED if seed is None else seed, episodes)
        results = bench_policy(policy, episodes, first)
    if as_json:
        print(json.dumps(results))
        return
    rows = []
    for label, r in results.items():
        within = ", ".join(f"{float(t) * 100:g} cm {v:.1%}" for t, v in r["success_within"].items())
        rows.append(
            (
                label,
                f"success {r['success_rate']:.1%} of {r['episodes']} (threshold "
                f"{r['threshold'] * 100:g} cm); within {within}; median final distance "
                f"{r['median_final_distance'] * 1000:.1f} mm; {r['wall_seconds']} s",
            )
        )
    trained = results["policy"]
    table(f"claw bench policy {policy} ({trained['env_id']}, {trained['algo']})", rows)
