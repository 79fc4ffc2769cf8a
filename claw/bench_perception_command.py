"""``claw bench perception``: the camera perceiver against the truth on randomised layouts."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from claw.options import JsonFlag, SensorNoiseFlag, seed_callback
from claw.output import errors, progress_bar


def bench_perception_command(
    scenes: Annotated[
        list[str] | None,
        typer.Option("--scenes", help="Scenes to lay out (repeatable; default: every built-in)."),
    ] = None,
    episodes: Annotated[
        int, typer.Option(min=1, help="Randomised layouts, one estimate each.")
    ] = 40,
    seed: Annotated[
        int, typer.Option(callback=seed_callback, help="Seed of the first layout.")
    ] = 0,
    sensor_noise: SensorNoiseFlag = False,
    cameras: Annotated[
        list[str] | None,
        typer.Option("--camera", help="A view to see through (repeatable; default: front, side)."),
    ] = None,
    image: Annotated[
        Path | None,
        typer.Option(help="Write a picture of the last estimate (PNG): matched pixels, boxes."),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Detection precision and recall, position, yaw and size errors, colour and type accuracy
    and milliseconds per estimate of the camera perceiver, against the simulator's truth."""
    from rich.console import Console
    from rich.table import Table

    from claw.perception.bench import bench_perception
    from claw.perception.sensors import DEFAULT_CAMERAS

    with errors(as_json):
        if image is not None:
            from claw.common.outputs import check_output_file

            check_output_file(image, suffixes=(".png",), what="--image file")
    with errors(as_json), progress_bar("layouts", episodes, as_json) as done:
        result = bench_perception(
            scenes,
            episodes,
            seed,
            sensor_noise=sensor_noise,
            cameras=tuple(cameras or DEFAULT_CAMERAS),
            image=image,
            progress=done,
        )
    if as_json:
        print(result.model_dump_json())
        return
    noise = "sensor noise on" if sensor_noise else "no sensor noise"
    table = Table(title=f"claw bench perception: {episodes} layouts from seed {seed}, {noise}")
    columns = ("scene", "objects", "precision", "recall", "position p50/p95 mm",
               "yaw p50/p95 deg", "size p50/p95 mm", "colour", "type")  # fmt: skip
    for column in columns:
        table.add_column(column, justify="left" if column == "scene" else "right")
    for row in [*result.rows, result.overall]:
        table.add_row(
            row.scene,
            str(row.objects),
            f"{100 * row.precision:.1f} %",
            f"{100 * row.recall:.1f} %",
            f"{row.position_mm.p50:.1f} / {row.position_mm.p95:.1f}",
            f"{row.yaw_deg.p50:.1f} / {row.yaw_deg.p95:.1f}",
            f"{row.size_mm.p50:.1f} / {row.size_mm.p95:.1f}",
            f"{100 * row.color_accuracy:.1f} %",
            f"{100 * row.type_accuracy:.1f} %",
        )
    out = Console()
    out.print(table)
    out.print(
        f"estimate {result.estimate_ms.p50:.0f} ms p50, {result.estimate_ms.p95:.0f} ms p95; "
        f"the first of an episode (calibration checked) {result.first_estimate_ms.p50:.0f} ms "
        f"p50; capture {result.capture_ms.p50:.0f} ms p50; views {', '.join(result.cameras)}"
    )
    for miss in result.misses[:10]:
        out.print(f"[yellow]not seen[/yellow] {miss}")
    if image is not None:
        out.print(f"picture: {image}")
    out.print(f"{result.wall_seconds} s wall")
