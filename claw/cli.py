"""The ``claw`` command line (typer); heavy libraries are imported inside the commands using them.

Exit codes: 0 success, 1 attempted and failed, 2 bad input (one line on stderr), 3 planner/LLM
unavailable.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_UNAVAILABLE = 0, 1, 2, 3

app = typer.Typer(
    name="claw",
    help="Natural-language instructions to robot skills on a MuJoCo tabletop.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
bench_app = typer.Typer(help="Measure speed: the env's physics, the skills, the library.")
scene_app = typer.Typer(help="Inspect scenes: the built-in ones or your YAML files.")
app.add_typer(bench_app, name="bench")
app.add_typer(scene_app, name="scene")


@contextmanager
def _errors(as_json: bool = False) -> Iterator[None]:
    """Turn claw's expected errors into one line on stderr (or a JSON error) and exit code 2."""
    from claw.envs.errors import ClawError

    try:
        yield
    except (ClawError, ValueError, FileNotFoundError) as exc:
        kind = getattr(exc, "kind", "invalid_input")
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if as_json:
            print(json.dumps({"error": {"kind": kind, "message": message}}))
        else:
            print(f"error: {kind}: {message}", file=sys.stderr)
        raise typer.Exit(EXIT_BAD_INPUT) from None


def _table(title: str, rows: list[tuple[str, Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    for key, value in rows:
        table.add_row(key, str(value))
    Console().print(table)


@bench_app.command("env")
def bench_env_command(
    steps: Annotated[int, typer.Option(min=10, help="Env steps per timing run.")] = 2000,
    scene: Annotated[str, typer.Option(help="Built-in scene name or YAML file.")] = "default",
    seed: Annotated[int, typer.Option(help="Seed of the scene and the random actions.")] = 0,
    repeats: Annotated[int, typer.Option(min=1, help="Timing runs; the best is kept.")] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Raw mj_step rate vs the physics rate inside env.step, their ratio, real-time factors."""
    with _errors(as_json):
        from claw.envs.bench import bench_env, describe

        result = bench_env(steps=steps, scene=scene, seed=seed, repeats=repeats)
    if as_json:
        print(result.model_dump_json())
    else:
        _table("claw bench env", describe(result))


@bench_app.command("skills")
def bench_skills_command(
    episodes: Annotated[int, typer.Option(min=1, help="Seeded episodes (scenes alternate).")] = 20,
    seed: Annotated[int, typer.Option(help="Seed of the first episode.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Pick-and-place for every relation and pushes on seeded default and dense scenes."""
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from claw.skills.bench import bench_skills

    console = Console(stderr=True)
    with Progress(console=console, transient=True, disable=as_json) as bar:
        task = bar.add_task("episodes", total=episodes)
        result = bench_skills(
            episodes, seed, progress=lambda done: bar.update(task, completed=done)
        )
    if as_json:
        print(result.model_dump_json())
        return
    table = Table(title=f"claw bench skills: {episodes} episodes from seed {seed}")
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
        f"(raw physics {result.raw_real_time_factor}x: control overhead "
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


@scene_app.command("list")
def scene_list() -> None:
    """The built-in scenes."""
    from claw.envs.scene import SceneSpec, builtin_scenes

    for name in builtin_scenes():
        spec = SceneSpec.load(name)
        print(f"{name}: {', '.join(spec.object_names())}")


@scene_app.command("show")
def scene_show(
    scene: Annotated[str, typer.Argument(help="Built-in scene name or YAML file.")] = "default",
    seed: Annotated[int, typer.Option(help="Seed of the sampled poses.")] = 0,
    image: Annotated[
        Path | None, typer.Option(help="Also render the scene to this PNG file.")
    ] = None,
    camera: Annotated[str, typer.Option(help="operator, front, top or side.")] = "operator",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Validate a scene and print its objects at their starting poses for a seed."""
    import math

    with _errors(as_json):
        from claw.envs.scene import SceneSpec

        spec = SceneSpec.load(scene)
        placed = spec.sample(seed)
        if image is not None:
            _render_scene(spec, seed, image, camera)
    rows = [
        {
            "name": p.name,
            "x": round(p.x, 4),
            "y": round(p.y, 4),
            "z": round(p.z, 4),
            "yaw_deg": round(math.degrees(p.yaw), 1),
            "size": p.size,
            "in": p.container,
        }
        for p in placed
    ]
    if as_json:
        print(json.dumps({"scene": spec.name, "seed": seed, "objects": rows}))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"scene {spec.name!r}, seed {seed}", title_justify="left")
    for column in rows[0]:
        table.add_column(column)
    for row in rows:
        table.add_row(*("" if v is None else str(v) for v in row.values()))
    Console().print(table)
    if image is not None:
        print(f"image: {image}")


def _render_scene(spec: Any, seed: int, path: Path, camera: str) -> None:
    import imageio.v3 as iio

    from claw.envs.tabletop import TabletopEnv

    if path.suffix.lower() != ".png":
        raise ValueError(f"image file {str(path)!r} must end in .png")
    env = TabletopEnv(scene=spec, render_mode="rgb_array", camera=camera)
    try:
        env.reset(seed=seed)
        path.parent.mkdir(parents=True, exist_ok=True)
        iio.imwrite(path, env.render())
    finally:
        env.close()


def main() -> None:
    """Entry point of the ``claw`` console script."""
    app()
