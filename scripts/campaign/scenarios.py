"""Scenarios: cases of several commands, or of one command with checks of their own.

A row names one by `script: NAME`, or `script: {NAME: {ARGUMENT: VALUE}}`; a scenario whose
parameter `cmd` is there gets the row's own command (`args`, `exits`, ...) to run.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable

from . import composites
from .context import Ctx
from .inputs import TINY_IDS
from .limits import PHYS, TRAIN
from .model import Cmd
from .texts import INSTR
from .verdicts import short

#: The text output's check lines (a predicate and its reason) and "why:" lines (finding 15).
CHECK_LINE = re.compile(r"^(?:[✓✗] [a-z_]+\(.*\):|why:)")


def eleven_objects(ctx: Ctx) -> None:
    """Issue 22 item 15: one limit, checked in one place -- show, run and a suite agree."""
    shown = ctx.run(Cmd(["scene", "show", "eleven.yaml"], {0, 2}, kinds={"invalid_scene"}))
    ran = ctx.run(
        Cmd(
            ["push the red block 2 cm to the left", "--scene", "eleven.yaml"],
            {0, 1, 2},
            PHYS,
            kinds={"invalid_scene"},
        )
    )
    suite = ctx.run(
        Cmd(
            ["eval", "eleven_suite.yaml", "--json", "r.json"],
            {0, 1, 2},
            PHYS,
            kinds={"invalid_suite", "invalid_scene"},
            eval_json="r.json",
            eval_ids=["c1"],
        )
    )
    accepted = {
        "scene show": shown.rc == 0,
        "claw run": ran.rc in (0, 1),
        "claw eval": suite.rc in (0, 1),
    }
    if len(set(accepted.values())) > 1:
        ctx.fail(
            "inconsistent", f"an 11-object scene accepted by some and refused by others: {accepted}"
        )


def sweep_cells(ctx: Ctx, out: str, cells: int, sweep: str) -> None:
    """Issue 22 item 6: every cell gets its own file, or the sweep is refused before it runs."""
    run = ctx.run(
        Cmd(
            ["eval", "sweep", sweep, "--out", out],
            {0, 1, 2},
            PHYS * 2,
            kinds={"invalid_input", "invalid_suite"},
        )
    )
    if run.rc in (0, 1):
        files = [p for p in (ctx.dir / out).glob("*.json") if p.name != "table.json"]
        if len(files) != cells:
            ctx.fail(
                "lost-result",
                f"{cells} cells but {len(files)} cell files in {out}: "
                f"{sorted(p.name for p in files)}",
            )
        if not (ctx.dir / out / "table.json").exists():
            ctx.fail("lost-result", f"no {out}/table.json")


def compare_json(ctx: Ctx) -> None:
    run = ctx.run(Cmd(["eval", "compare", "a.json", "b.json", "--json", "out.json"], {0, 1}))
    if run.rc in (0, 1):
        try:
            json.loads((ctx.dir / "out.json").read_bytes())
        except (OSError, ValueError):
            ctx.fail("lost-result", "compare --json out.json wrote no JSON file")


def eval_selection(ctx: Ctx, args: list[str], expected: list[str]) -> None:
    """README: -k EXPR, --tags T, --limit N run part of a suite; the JSON result records
    "selection": {"k", "tags", "limit", "selected", "total"}."""
    cmd = Cmd(
        ["eval", "tiny.yaml", *args, "--json", "r.json"],
        {0, 1},
        PHYS,
        eval_json="r.json",
        eval_ids=expected,
    )
    run = ctx.run(cmd)
    if run.rc not in (0, 1) or not (ctx.dir / "r.json").exists():
        return
    try:
        selection = json.loads((ctx.dir / "r.json").read_bytes()).get("selection")
    except (ValueError, AttributeError):
        return  # reported by the standard checks
    keys = {"k", "tags", "limit", "selected", "total"}
    if not isinstance(selection, dict) or not keys <= set(selection):
        ctx.fail("wrong-output", f"the JSON's selection is {selection!r}, not {sorted(keys)}")
    elif selection.get("selected") != len(expected) or selection.get("total") != len(TINY_IDS):
        ctx.fail("wrong-output", f"selection counts {selection!r} for {len(expected)} selected")


def claw_home_empty(ctx: Ctx) -> None:
    """Issue 22 item 17: CLAW_HOME="" means the default, never ./library."""
    ctx.run(Cmd(["skills", "list"], {0}, env={"CLAW_HOME": ""}, cwd="cwd"))
    ctx.run(Cmd([INSTR], {0, 1}, PHYS, env={"CLAW_HOME": ""}, cwd="cwd"))
    if (ctx.dir / "cwd" / "library").exists():
        ctx.fail("side-effect", "CLAW_HOME='' created ./library in the current directory")


def nothing_moved(ctx: Ctx, cmd: Cmd) -> None:
    """A refusal "before anything moves": under --json, no step ran and nothing was replanned."""
    run = ctx.run(cmd)
    try:
        result = json.loads(run.stdout)
    except ValueError:
        return  # reported by the standard checks
    if not isinstance(result, dict):
        return
    steps, replans = result.get("steps") or [], result.get("replans") or 0
    if steps or replans:
        ctx.fail(
            "side-effect",
            f"refused only after {len(steps)} steps ran and {replans} replans "
            f"(error {result.get('error')!r:.120})",
        )


def no_repeated_lines(ctx: Ctx, cmd: Cmd) -> None:
    """Finding 15: each check line and each "why:" line is printed once."""
    run = ctx.run(cmd)
    seen: set[str] = set()
    repeated: list[str] = []
    for line in run.stdout.splitlines():
        text = line.strip()
        if CHECK_LINE.match(text):
            if text in seen:
                repeated.append(text)
            seen.add(text)
    if not seen and run.rc in (0, 1):
        ctx.fail("wrong-output", "no check line in the text output")
    if repeated:
        ctx.fail("wrong-output", "printed twice: " + short(" | ".join(repeated[:3]), 200))


def damaged_datasets(ctx: Ctx) -> None:
    """Finding 18: Minari's own warnings (a file path and a source line) never reach stderr for
    a damaged dataset: one whose metadata is not JSON (a case file), one whose data is cut
    short (a recorded dataset, truncated here); `demos list` and `demos show` stay one-line."""
    env: dict[str, str | None] = {"MINARI_DATASETS_PATH": "{HOME}/.minari/datasets"}
    quiet: dict[str, object] = {"clean_stderr": True, "env": env}
    record = ["demos", "record", "reach", "--episodes", "2", "--out", "good"]
    ctx.run(Cmd(record, {0}, TRAIN, **quiet))  # type: ignore[arg-type]
    root = ctx.home / ".minari" / "datasets" / "claw" / "reach"
    good, cut = root / "good-v0", root / "cut-v0"
    if not (good / "data" / "main_data.hdf5").exists():
        ctx.fail("lost-result", "demos record wrote no claw/reach/good-v0")
    else:
        shutil.copytree(good, cut)
        meta = cut / "data" / "metadata.json"
        data = json.loads(meta.read_bytes())
        data["dataset_id"] = "claw/reach/cut-v0"
        meta.write_text(json.dumps(data))
        hdf5 = cut / "data" / "main_data.hdf5"
        hdf5.write_bytes(hdf5.read_bytes()[:100])
    # README: `demos list` is one note: line per dataset Minari skipped; `demos show` of one
    # that cannot be read is invalid_config.
    damaged = {"invalid_config"}
    for args, exits, note in (
        (["demos", "list"], {0}, "note:"),
        (["demos", "list", "--json"], {0}, None),
        (["demos", "show", "good"], {0}, None),
        (["demos", "show", "broken"], {2}, None),
        (["demos", "show", "claw/reach/broken-v0", "--json"], {2}, None),
        (["demos", "show", "claw/reach/cut-v0"], {0, 2}, None),
    ):
        ctx.run(Cmd(args, exits, TRAIN, kinds=damaged, stderr_has=note, **quiet))  # type: ignore[arg-type]


#: Every scenario a row may name, by its name.
SCRIPTS: dict[str, Callable[..., None]] = {
    script.__name__: script
    for script in (
        eleven_objects,
        composites.composite_64,
        composites.prune_race,
        composites.composite_huge,
        composites.composite_51,
        composites.composite_256k,
        composites.composite_tampered,
        composites.composite_code,
        composites.composite_max_steps,
        sweep_cells,
        compare_json,
        eval_selection,
        claw_home_empty,
        nothing_moved,
        no_repeated_lines,
        damaged_datasets,
    )
}
