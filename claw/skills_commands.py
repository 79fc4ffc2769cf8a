"""``claw skills list|show|search|run|prune``: what the skill library holds, retrieval by words,
running a skill (a learned composite) directly, and pruning composites."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Annotated

import typer

from claw.options import JsonFlag, Seed
from claw.output import EXIT_FAILED, EXIT_OK, errors, fail, markup, one_line, said_already

if TYPE_CHECKING:
    from claw.library.manifest import SkillRecord
    from claw.library.storage import SkillLibrary

skills_app = typer.Typer(
    help="The skill library: list, show, search, run skills; prune composites.",
    no_args_is_help=True,
)
KINDS = ("controller", "policy", "composite")


def _library() -> SkillLibrary:
    from claw.library.storage import SkillLibrary

    return SkillLibrary()


def _rate(record: object) -> str:
    metrics = getattr(record, "metrics", None)
    return "" if metrics is None else f"{100 * metrics.success_rate:.1f} % ({metrics.episodes})"


def _about(record: SkillRecord) -> str:
    """The description; for a composite, its uses, example phrases and where it came from."""
    if record.kind != "composite":
        return record.description
    learned = record.provenance.learned_from or {}
    commit = (record.provenance.git_commit or "?")[:8]
    scene = learned.get("scene", "?")
    if isinstance(scene, dict):  # a suite's inline scene: too long for a table cell
        scene = f"a scene of {len(scene.get('objects', []))} objects"
    return (
        f"{record.description} [{len(record.examples)} phrases; from "
        f"{learned.get('instruction', '?')!r}, seed {learned.get('seed', '?')}, "
        f"scene {scene}, commit {commit}]"
    )


@skills_app.command("list")
def skills_list(
    all_versions: Annotated[
        bool, typer.Option("--all", help="Every version, not only the latest.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """The skills in the library: the latest version of each implementation (a composite: its
    uses, measured success, example phrases and provenance)."""
    with errors(as_json):
        library = _library()
        records = library.records() if all_versions else library.latest_by_implementation()
        records = sorted(records, key=lambda r: (r.name, r.version))
    if as_json:
        print(json.dumps([r.model_dump(mode="json") for r in records]))
        return
    from rich.console import Console
    from rich.table import Table

    composites = [r for r in records if r.kind == "composite"]
    title = f"skills in {library.root}: {len(records) - len(composites)} primitive"
    title += f" records, {len(composites)} composite{'' if len(composites) == 1 else 's'}"
    table = Table(title=markup(title), title_justify="left")
    for column in ("skill", "version", "kind", "success (uses)", "description"):
        table.add_column(column)
    for r in records:
        table.add_row(*(markup(v) for v in (r.name, r.version, r.kind, _rate(r), _about(r))))
    Console().print(table)


@skills_app.command("show")
def skills_show(
    name: Annotated[str, typer.Argument(help="The skill's name.")],
    version: Annotated[int | None, typer.Option(help="A version (default: the latest).")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Everything the library records about a skill version."""
    with errors(as_json):
        record = _library().get(name, version)
    if as_json:
        print(record.model_dump_json())
        return
    from rich.console import Console
    from rich.pretty import Pretty

    console = Console()
    kind = markup(f"({record.kind}, {record.implementation})")
    console.print(f"[bold]{markup(record.key)}[/bold] {kind}")
    console.print(markup(record.description))
    if record.examples:
        console.print(markup("examples: " + "; ".join(record.examples)))
    params = ", ".join(record.params_schema.get("properties", {})) or "none"
    console.print(markup(f"parameters: {params}"))
    if record.kind == "composite":
        from claw.library.composites import Composites

        with errors():
            body = Composites(_library()).load(record)
        for i, step in enumerate(body.steps, 1):
            args = ", ".join(f"{k}={v}" for k, v in step.args.items())
            console.print(markup(f"  {i}. {step.skill}({args})"))
    if record.metrics is not None:
        console.print(markup(f"success: {_rate(record)} under {record.metrics.conditions}"))
    for artifact in record.artifacts:
        console.print(
            f"artifact: {artifact.path} sha256 {artifact.sha256[:16]}… {artifact.bytes} B"
        )
    console.print(Pretty(record.provenance.model_dump(mode="json")))
    if record.tags:
        console.print(markup("tags: " + ", ".join(record.tags)))


@skills_app.command("search")
def skills_search(
    query: Annotated[str, typer.Argument(help="What you want done, in words.")],
    k: Annotated[int, typer.Option("-k", min=1, help="How many skills.")] = 5,
    kind: Annotated[
        str | None, typer.Option(help="Only 'controller', 'policy' or 'composite' skills.")
    ] = None,
    tag: Annotated[list[str] | None, typer.Option(help="Only skills with this tag.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """The skills whose descriptions and examples are closest to a request."""
    with errors(as_json):
        if kind is not None and kind not in KINDS:
            raise ValueError(f"--kind must be one of {', '.join(KINDS)}, not {kind!r}")
        if not query.strip():
            raise ValueError("the query is empty; say what the skill should do")
        hits = _library().search(query, k=k, kind=kind, tags=tag or ())
    if as_json:
        print(
            json.dumps(
                [
                    {
                        "skill": h.record.name,
                        "version": h.record.version,
                        "score": round(h.score, 4),
                        "matched": h.matched,
                        "kind": h.record.kind,
                    }
                    for h in hits
                ]
            )
        )
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=markup(f"skills for {query!r}"), title_justify="left")
    for column in ("rank", "skill", "score", "matched text"):
        table.add_column(column)
    for rank, hit in enumerate(hits, 1):
        table.add_row(str(rank), markup(hit.record.key), f"{hit.score:.3f}", markup(hit.matched))
    Console().print(table)


def _args(pairs: list[str]) -> dict[str, object]:
    """``KEY=VALUE`` pairs as arguments (a number where the value is one)."""
    args: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--arg takes KEY=VALUE (e.g. --arg block=red_block), got {pair!r}")
        number = re.fullmatch(r"-?\d+(?:\.\d+)?", value.strip())
        args[key.strip()] = float(value) if number else value
    return args


@skills_app.command("run")
def skills_run(
    name: Annotated[str, typer.Argument(help="A skill or composite of the library.")],
    arg: Annotated[
        list[str] | None, typer.Option("--arg", help="KEY=VALUE, once per parameter.")
    ] = None,
    scene: Annotated[str, typer.Option(help="Built-in scene name or YAML file.")] = "default",
    seed: Seed = 0,
    as_json: JsonFlag = False,
) -> None:
    """Run one skill (a composite: its steps, each judged on physics) in a scene; its use and
    measured success are recorded in the library (one that cannot be written: a note says so,
    and the result and exit code are the run's)."""
    from claw.envs.tabletop import TabletopEnv
    from claw.library.composites import Composites
    from claw.skills.executor import execute_calls
    from claw.skills.plans import SkillCall

    with errors(as_json):
        call = SkillCall(skill=name, args=_args(arg or []))
        library = _library()
        composites = Composites(library)
        env = TabletopEnv(scene=scene)
        try:
            env.reset(seed=seed)
            outcome = execute_calls(
                env,
                [call],
                measured=library.measured_success(),
                policies=library,
                composites=composites,
            )
        finally:
            env.close()
        if outcome.steps and outcome.steps[0].error is None:
            composites.note_run(strict=False)
    step = outcome.steps[0]
    if step.error is not None:
        fail(step.error, step.reason, as_json)
    if as_json:
        print(step.model_dump_json())
    else:
        from rich.console import Console

        console = Console()
        said: list[str] = []  # the reasons on screen: the verdict repeats none
        for sub in step.details.get("steps", [step.model_dump()]):
            mark = "[green]✓[/green]" if sub["success"] else "[red]✗[/red]"
            args = ", ".join(f"{k}={v!r}" for k, v in sub["args"].items())
            reason = "" if sub["success"] else f"  [red]{markup(sub['reason'])}[/red]"
            said += [] if sub["success"] else [sub["reason"]]
            line = markup(f"{sub['skill']}({args})")
            console.print(f"{mark} {line}{reason}")
        if step.success:
            console.print(f"[bold green]success[/bold green]: {markup(call)}")
        else:
            why = "" if said_already(step.reason, said) else f"  why: {markup(step.reason)}"
            console.print(f"[bold red]failed[/bold red]: {markup(call)}{why}")
    raise typer.Exit(EXIT_OK if step.success else EXIT_FAILED)


@skills_app.command("prune")
def skills_prune(
    min_success: Annotated[
        float | None, typer.Option(help="Remove composites measured below this success (0-1).")
    ] = None,
    unused_runs: Annotated[
        int | None, typer.Option(help="Remove composites unused for this many runs.")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Only list what would be removed.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Remove learned composites that work badly or are not used (built-ins are never removed)."""
    from claw.library.composites import prune

    with errors(as_json):
        removed = prune(_library(), min_success, unused_runs, dry_run)
    if as_json:
        print(json.dumps({"dry_run": dry_run, "removed": [r.key for r in removed]}))
        return
    verb = "would remove" if dry_run else "removed"
    print(f"{verb} {len(removed)} composite{'' if len(removed) == 1 else 's'}")
    for record in removed:
        print(f"  {one_line(record.key)}  {_rate(record)}  {one_line(record.description)}")
