"""``claw scene list|show``: inspect built-in scenes and scene files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from claw.options import JsonFlag, seed_callback
from claw.output import errors, markup, scene_file

scene_app = typer.Typer(
    help="Inspect scenes: the built-in ones or your YAML files.", no_args_is_help=True
)


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
    seed: Annotated[
        int, typer.Option(callback=seed_callback, help="Seed of the sampled poses.")
    ] = 0,
    image: Annotated[
        Path | None, typer.Option(help="Also render the scene to this PNG file.")
    ] = None,
    camera: Annotated[str, typer.Option(help="operator, front, top or side.")] = "operator",
    as_json: JsonFlag = False,
) -> None:
    """Validate a scene and print its objects at their starting poses for a seed."""
    import math

    with errors(as_json):
        from claw.common.outputs import check_apart, check_output_file
        from claw.envs.arms import arm_names
        from claw.envs.scene import SceneSpec

        if image is not None:
            check_output_file(image, (".png",), what="image file")
        check_apart([scene_file(scene)], [("image file", image)])
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
            "on": p.on,
            "in": p.container,
        }
        for p in placed
    ]
    arms = [
        {"name": arm, "base": [round(v, 4) for v in base[:2]]}
        for arm, base in zip(arm_names(spec.arms), spec.arm_bases(), strict=True)
    ]
    if as_json:
        print(json.dumps({"scene": spec.name, "seed": seed, "arms": arms, "objects": rows}))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"scene {spec.name!r}, seed {seed}", title_justify="left")
    for column in rows[0]:
        table.add_column(column)
    for row in rows:
        table.add_row(*("" if v is None else markup(v) for v in row.values()))
    Console().print(table)
    if spec.arms > 1:
        print(
            "arms: " + ", ".join(f"{a['name']} at ({a['base'][0]}, {a['base'][1]})" for a in arms)
        )
    if image is not None:
        print(f"image: {image}")


def _render_scene(spec: Any, seed: int, path: Path, camera: str) -> None:
    import imageio.v3 as iio

    from claw.envs.tabletop import TabletopEnv

    env = TabletopEnv(scene=spec, render_mode="rgb_array", camera=camera)
    try:
        env.reset(seed=seed)
        frame = env.render()
        assert frame is not None  # an rgb_array env renders a frame
        iio.imwrite(path, frame)
    finally:
        env.close()
