"""``claw skills list|show|search``: what the skill library holds, and retrieval by words."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from claw.options import JsonFlag
from claw.output import errors, markup

if TYPE_CHECKING:
    from claw.library.storage import SkillLibrary

skills_app = typer.Typer(
    help="The skill library: list, show and search skills.", no_args_is_help=True
)


def _library() -> SkillLibrary:
    from claw.library.storage import SkillLibrary

    return SkillLibrary()


def _rate(record: object) -> str:
    metrics = getattr(record, "metrics", None)
    return "" if metrics is None else f"{100 * metrics.success_rate:.1f} % ({metrics.episodes})"


@skills_app.command("list")
def skills_list(
    all_versions: Annotated[
        bool, typer.Option("--all", help="Every version, not only the latest.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """The skills in the library: the latest version of each implementation."""
    with errors(as_json):
        library = _library()
        records = library.records() if all_versions else library.latest_by_implementation()
        records = sorted(records, key=lambda r: (r.name, r.version))
    if as_json:
        print(json.dumps([r.model_dump(mode="json") for r in records]))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=markup(f"skills in {library.root}"), title_justify="left")
    for column in ("skill", "version", "kind", "success", "description"):
        table.add_column(column)
    for r in records:
        table.add_row(*(markup(v) for v in (r.name, r.version, r.kind, _rate(r), r.description)))
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
    kind: Annotated[str | None, typer.Option(help="Only 'controller' or 'policy' skills.")] = None,
    tag: Annotated[list[str] | None, typer.Option(help="Only skills with this tag.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """The skills whose descriptions and examples are closest to a request."""
    with errors(as_json):
        if kind not in (None, "controller", "policy"):
            raise ValueError(f"--kind must be 'controller' or 'policy', not {kind!r}")
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
