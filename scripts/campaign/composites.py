"""Scenarios of learned composite skills: names, prune races, bodies rewritten on disk.

README "Composite skills": dedup by structure, versions by name; bodies are sha256-checked and
validated (more than 50 steps or over 256 KiB is artifact_rejected even with its sha256
rewritten); "composites counted as their steps" against --max-steps; names cut at 64 characters
get 8 hex digits of the structure's hash; prune deletes under the lock. Issue 22 items 5, 10, 14.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable

from .answers import plan
from .context import Ctx
from .limits import FAST, PHYS, llm_deadline
from .model import Cmd
from .process import Run
from .texts import TWO_BOXES

#: Two instructions whose abstracted names agree on their first 64 characters (issue 22 item 5).
LONG_LEFT = TWO_BOXES + ", then push the green block 5 cm to the left"
LONG_RIGHT = TWO_BOXES + ", then push the green block 5 cm to the right"
COMPOSITE_ARGS = [
    "--arg",
    "block=red_block",
    "--arg",
    "box=red_box",
    "--arg",
    "block2=blue_block",
    "--arg",
    "box2=blue_box",
]


def _learn(ctx: Ctx, instruction: str) -> Run:
    return ctx.run(Cmd([instruction, "--scene", "composite.yaml", "--learn"], {0}, PHYS))


def composite_64(ctx: Ctx) -> None:
    """Issue 22 item 5: two composites whose names agree on 64 characters stay two skills."""
    _learn(ctx, LONG_LEFT)
    _learn(ctx, LONG_RIGHT)
    listed = ctx.run(Cmd(["skills", "list", "--json"], {0}))
    try:
        records = json.loads(listed.stdout)
    except ValueError:
        return  # reported by the standard checks
    records = records.get("skills", records) if isinstance(records, dict) else records
    composites = [r for r in records if isinstance(r, dict) and r.get("kind") == "composite"]
    names = {str(r.get("name")) for r in composites}
    if len(names) < 2:
        ctx.fail(
            "inconsistent",
            f"two different learned tasks listed as {len(names)} composite name(s): "
            f"{sorted(names)}",
        )
    for name in sorted(names)[:2]:
        ctx.run(Cmd(["skills", "show", name], {0}))
        ctx.run(
            Cmd(
                [
                    "skills",
                    "run",
                    name,
                    *COMPOSITE_ARGS,
                    "--arg",
                    "block3=green_block",
                    "--scene",
                    "composite.yaml",
                ],
                {0, 1},
                PHYS,
                stdout_nonempty=True,
            )
        )


def prune_race(ctx: Ctx) -> None:
    """Issue 22 item 14: prune while --learn writes must not lose the fresh artifact."""
    done = threading.Event()
    learned: list[Run] = []

    def learn() -> None:
        learned.append(_learn(ctx, TWO_BOXES))
        done.set()

    thread = threading.Thread(target=learn)
    thread.start()
    for _ in range(20):  # bounded: at most 20 prunes while the learn runs
        if done.is_set():
            break
        ctx.run(Cmd(["skills", "prune", "--min-success", "0.5"], {0}))
    thread.join(PHYS + 30)
    run = learned[0] if learned else None
    if run and "artifact_rejected" in run.stdout + run.stderr:
        ctx.fail("lost-result", "the learn run lost its artifact to a concurrent prune")
    names = [str(r.get("name")) for r in ctx.composites()]
    if not names:
        ctx.fail("lost-result", "no composite in the manifest after --learn succeeded")
    for name in names:
        ctx.run(
            Cmd(
                ["skills", "run", name, *COMPOSITE_ARGS, "--scene", "composite.yaml"],
                {0, 1},
                PHYS,
                stdout_nonempty=True,
            )
        )


def _rewrite_composite(
    ctx: Ctx, body_change: Callable[[dict[str, object]], dict[str, object]], fix_sha: bool
) -> str:
    """Learn the two-box composite, then rewrite its body (and, if asked, its sha256)."""
    _learn(ctx, TWO_BOXES)
    manifest_path = ctx.claw_home / "library" / "manifest.json"
    manifest = json.loads(manifest_path.read_bytes())
    record = next(r for r in manifest["skills"] if r.get("kind") == "composite")
    artifact = record["artifacts"][0]
    path = ctx.claw_home / "library" / artifact["path"]
    data = json.dumps(body_change(json.loads(path.read_bytes())), indent=1).encode()
    path.write_bytes(data)
    if fix_sha:
        artifact["sha256"] = hashlib.sha256(data).hexdigest()
        artifact["bytes"] = len(data)
        manifest_path.write_text(json.dumps(manifest, indent=1))
    return str(record["name"])


def composite_huge(ctx: Ctx) -> None:
    """Issue 22 item 10: a stored 20,002-step composite is refused at load, sha256 or not."""

    def change(body: dict[str, object]) -> dict[str, object]:
        return {
            **body,
            "steps": [{"skill": "open_gripper", "args": {}}, {"skill": "close_gripper", "args": {}}]
            * 10_001,
        }

    name = _rewrite_composite(ctx, change, fix_sha=True)
    args = ["skills", "run", name, *COMPOSITE_ARGS, "--scene", "composite.yaml"]
    ctx.run(Cmd(args, {2}, FAST + 15, kinds={"artifact_rejected"}))


def composite_51(ctx: Ctx) -> None:
    """README: a body of more than 50 steps is refused even with its sha256 rewritten."""

    def change(body: dict[str, object]) -> dict[str, object]:
        return {**body, "steps": [{"skill": "home", "args": {}}] * 51}

    name = _rewrite_composite(ctx, change, fix_sha=True)
    args = ["skills", "run", name, *COMPOSITE_ARGS, "--scene", "composite.yaml"]
    ctx.run(Cmd(args, {2}, kinds={"artifact_rejected"}))


def composite_256k(ctx: Ctx) -> None:
    """README: a body file over 256 KiB is refused even with its sha256 rewritten (valid JSON)."""

    def change(body: dict[str, object]) -> dict[str, object]:
        return body

    name = _rewrite_composite(ctx, change, fix_sha=False)
    manifest_path = ctx.claw_home / "library" / "manifest.json"
    manifest = json.loads(manifest_path.read_bytes())
    record = next(r for r in manifest["skills"] if r.get("name") == name)
    path = ctx.claw_home / "library" / record["artifacts"][0]["path"]
    data = path.read_bytes().rstrip() + b" " * (300 * 1024) + b"\n"  # whitespace: the same JSON
    path.write_bytes(data)
    record["artifacts"][0]["sha256"] = hashlib.sha256(data).hexdigest()
    record["artifacts"][0]["bytes"] = len(data)
    manifest_path.write_text(json.dumps(manifest, indent=1))
    args = ["skills", "run", name, *COMPOSITE_ARGS, "--scene", "composite.yaml"]
    ctx.run(Cmd(args, {2}, kinds={"artifact_rejected"}))


def composite_tampered(ctx: Ctx) -> None:
    """README: a body whose sha256 differs is refused (artifact_rejected, before anything moves)."""
    name = _rewrite_composite(
        ctx, lambda body: {**body, "format": 1, "note": "tampered"}, fix_sha=False
    )
    ctx.run(
        Cmd(
            ["skills", "run", name, *COMPOSITE_ARGS, "--scene", "composite.yaml"],
            {2},
            kinds={"artifact_rejected"},
        )
    )


def composite_code(ctx: Ctx) -> None:
    """README: a body naming no registered skill is refused even with a matching sha256."""

    def change(body: dict[str, object]) -> dict[str, object]:
        return {**body, "steps": [{"skill": "__import__('os').system('touch PWNED')", "args": {}}]}

    name = _rewrite_composite(ctx, change, fix_sha=True)
    ctx.run(
        Cmd(
            ["skills", "run", name, *COMPOSITE_ARGS, "--scene", "composite.yaml"],
            {2},
            kinds={"artifact_rejected"},
        )
    )
    if (ctx.dir / "PWNED").exists():
        ctx.fail("side-effect", "a composite body's text was executed (PWNED exists)")


def composite_max_steps(ctx: Ctx) -> None:
    """Issue 22 item 10: --max-steps counts a composite's expanded steps."""
    _learn(ctx, TWO_BOXES)
    names = [str(r.get("name")) for r in ctx.composites()]
    if not names:
        ctx.fail("lost-result", "the learn run stored no composite")
        return
    args = {"block": "red_block", "box": "red_box", "block2": "blue_block", "box2": "blue_box"}
    ctx.server.custom[ctx.token] = plan(
        [{"skill": names[0], "args": args}], ["in(red_block, red_box)", "in(blue_block, blue_box)"]
    )
    ctx.run(
        Cmd(
            [
                TWO_BOXES,
                "--scene",
                "composite.yaml",
                "--planner",
                "openai/whatever",
                "--api-base",
                "{API:custom}",
                "--timeout",
                "10",
                "--max-steps",
                "1",
            ],
            {2},  # README: "composites counted as their steps"
            llm_deadline(10, 3),
            kinds={"plan_too_long"},
        )
    )
