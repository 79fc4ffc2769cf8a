"""Reports of a suite run: ``report.md``, a self-contained ``report.html``, PNG plots, failure GIFs.

``write_report(result, folder, suite)`` writes, into ``folder``::

    report.md               suite, planner, date, metric tables, failures, links to the files
    report.html             the same in one file: plots and GIFs embedded as data URIs
    results.json            the results as ``claw eval --json`` writes them (compare reads it)
    plots/*.png             success rate per tag, simulated seconds per case
    failures/<case id>.gif  every failed case, run again while recording (cases are deterministic)

Plots are drawn with Pillow (installed with imageio), so reports need no plotting library.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from claw.eval.cases import CaseResult, run_case
from claw.eval.runner import SuiteResult, share_key
from claw.eval.suite import Suite
from claw.eval.tallies import MODEL_TOKENS, cases_key, success_key
from claw.planner.llm.completion import ModelSettings

PLOTS_DIR, FAILURES_DIR = "plots", "failures"
SUCCESS_PLOT, SIM_PLOT = "success_per_tag.png", "sim_seconds_per_case.png"
MARKDOWN_FILE, HTML_FILE, RESULTS_FILE = "report.md", "report.html", "results.json"
PLOTS = tuple(f"{PLOTS_DIR}/{name}" for name in (SUCCESS_PLOT, SIM_PLOT))
WRITTEN = (MARKDOWN_FILE, HTML_FILE, RESULTS_FILE, *PLOTS)
"""The files a report writes into its folder, besides ``failures/*.gif``."""


def _percent(value: float) -> str:
    return f"{100 * value:.1f} %"


# (key in SuiteResult.overall / per_tag, label, format)
METRICS: list[tuple[str, str, Callable[[float], str]]] = [
    ("cases", "cases", lambda v: f"{v:.0f}"),
    ("read_right", "read right (planned goal)", _percent),
    ("success_rate", "success rate", _percent),
    ("goal_recall", "goal recall", lambda v: f"{v:.3f}"),
    ("executability", "executability", lambda v: f"{v:.3f}"),
    ("replans", "replans / case", lambda v: f"{v:.2f}"),
    ("recovered_by_replanning", "recovered by replanning", lambda v: f"{v:.0f}"),
    ("plan_steps", "plan steps / case", lambda v: f"{v:.2f}"),
    ("read_right_cases", "read right (cases)", lambda v: f"{v:.0f}"),
    ("refused", "refused (goal cases)", lambda v: f"{v:.0f}"),
    ("wrong_reading_ran", "wrong reading ran", lambda v: f"{v:.0f}"),
    ("trap_planned", "trap planned (error cases)", lambda v: f"{v:.0f}"),
    (share_key("offline"), "read by offline", _percent),
    (share_key("model"), "read by the model", _percent),
    (cases_key("offline"), "cases read by offline", lambda v: f"{v:.0f}"),
    (success_key("offline"), "success of those read by offline", _percent),
    (cases_key("model"), "cases read by the model", lambda v: f"{v:.0f}"),
    (success_key("model"), "success of those read by the model", _percent),
    ("llm_calls", "LLM calls / case", lambda v: f"{v:.2f}"),
    ("llm_tokens", "LLM tokens / case", lambda v: f"{v:.1f}"),
    ("llm_prompt_tokens", "LLM prompt tokens / case", lambda v: f"{v:.1f}"),
    ("llm_completion_tokens", "LLM completion tokens / case", lambda v: f"{v:.1f}"),
    ("llm_tokens_total", "LLM tokens in all", lambda v: f"{v:.0f}"),
    (MODEL_TOKENS, "LLM tokens / case the model read", lambda v: f"{v:.1f}"),
    ("llm_cached", "answers from the answer cache", lambda v: f"{v:.0f}"),
    ("sim_seconds", "sim seconds / case", lambda v: f"{v:.2f}"),
    ("wall_seconds", "wall seconds / case", lambda v: f"{v:.2f}"),
]
TAG_METRICS = [
    "cases", "read_right", "success_rate", "goal_recall", "executability", "replans", "sim_seconds"
]  # fmt: skip


def format_metric(key: str, value: float | None) -> str:
    """``value`` of metric ``key`` as the reports show it (``-`` for a missing value)."""
    if value is None:
        return "-"
    for name, _, fmt in METRICS:
        if name == key:
            return fmt(value)
    return f"{value:g}"


def metric_label(key: str) -> str:
    return next((label for name, label, _ in METRICS if name == key), key)


@dataclass
class Failure:
    """A failed case and its recording (``gif`` is None when none could be made, with ``note``)."""

    case: CaseResult
    gif: Path | None = None
    note: str = ""


@dataclass
class Report:
    """The files a report consists of."""

    folder: Path
    markdown: Path
    html: Path
    results: Path
    plots: dict[str, Path] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)


def write_report(
    result: SuiteResult,
    folder: str | Path,
    suite: Suite | None = None,
    *,
    date: datetime | None = None,
    progress: Callable[[CaseResult], None] | None = None,
    settings: ModelSettings | None = None,
) -> Report:
    """Write the report of ``result`` into ``folder`` (created; its GIFs and plots replaced).

    With ``suite`` (the suite ``result`` came from) every failed case is run again with the same
    planner (a model asked as ``settings`` say) while recording a GIF; ``progress`` is called
    after each such run. Without it the report has no GIFs.
    """
    folder = Path(folder)
    plots_dir, failures_dir = folder / PLOTS_DIR, folder / FAILURES_DIR
    folder.mkdir(exist_ok=True)  # its parent must exist: check_output_dir before the run
    plots_dir.mkdir(exist_ok=True)
    failures_dir.mkdir(exist_ok=True)
    for stale in failures_dir.glob("*.gif"):
        stale.unlink()
    date = date or datetime.now(timezone.utc)

    results_path = folder / RESULTS_FILE
    results_path.write_text(result.model_dump_json(indent=1))
    plots = {
        "success_per_tag": plots_dir / SUCCESS_PLOT,
        "sim_seconds_per_case": plots_dir / SIM_PLOT,
    }
    success_plot(result).save(plots["success_per_tag"])
    sim_seconds_plot(result).save(plots["sim_seconds_per_case"])
    failures = record_failures(result, suite, failures_dir, progress, settings)

    report = Report(
        folder=folder,
        markdown=folder / MARKDOWN_FILE,
        html=folder / HTML_FILE,
        results=results_path,
        plots=plots,
        failures=failures,
    )
    report.markdown.write_text(render_markdown(result, report, date))
    report.html.write_text(render_html(result, report, date))
    return report


def record_failures(
    result: SuiteResult,
    suite: Suite | None,
    folder: Path,
    progress: Callable[[CaseResult], None] | None = None,
    settings: ModelSettings | None = None,
) -> list[Failure]:
    """Every failed case of ``result``, recorded again to ``folder/<id>.gif`` given ``suite``."""
    failed = [case for case in result.cases if not case.success]
    if suite is None:
        return [Failure(case, note="no recording (the suite was not given)") for case in failed]
    index = {case.id: i for i, case in enumerate(suite.cases)}
    used: set[str] = set()
    failures = []
    for case in failed:
        if case.id not in index:
            failures.append(Failure(case, note="no recording (the case is not in the suite)"))
            continue
        name = _file_name(case.id, used)
        path = folder / f"{name}.gif"
        again = run_case(
            suite,
            index[case.id],
            result.planner,
            video=path,
            prefer=result.prefer,
            settings=settings,
        )
        if progress is not None:
            progress(again)
        if not path.exists():
            failures.append(Failure(case, note=f"no recording: {again.reason or 'no frames'}"))
            continue
        note = ""
        if again.success != case.success or again.reason != case.reason:
            verdict = "succeeded" if again.success else f"failed: {again.reason}"
            note = f"the recorded run differs from the evaluated one; it {verdict}"
        failures.append(Failure(case, gif=path, note=note))
    return failures


def _file_name(case_id: str, used: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", case_id).strip("._") or "case"
    name, n = base, 2
    while name.lower() in used:
        name, n = f"{base}_{n}", n + 1
    used.add(name.lower())
    return name


# --- plots (Pillow) ---------------------------------------------------------------------------

GREEN, RED, BLUE, GRAY = (46, 160, 67), (207, 34, 46), (9, 105, 218), (208, 215, 222)
TEXT = (31, 35, 40)


def _font(size: int) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: a fixed bitmap font
        return ImageFont.load_default()


def bar_chart(
    title: str,
    labels: Sequence[str],
    values: Sequence[float],
    texts: Sequence[str],
    colors: Sequence[tuple[int, int, int]],
    vmax: float,
    width: int = 720,
) -> Any:
    """A horizontal bar chart as a PIL image: one row per label, ``texts`` written by the bars."""
    from PIL import Image, ImageDraw

    font, title_font = _font(13), _font(16)
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))

    def text_width(text: str, f: Any = font) -> float:
        return measure.textlength(text, font=f)

    row, pad, top = 22, 12, 40
    label_w = int(min(max((text_width(s) for s in labels), default=0), width * 0.4)) + pad
    value_w = int(max((text_width(s) for s in texts), default=0)) + pad
    bar_x0 = pad + label_w
    bar_w = max(width - bar_x0 - value_w - pad, 50)
    height = top + row * max(len(labels), 1) + pad
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((pad, 10), title, fill=TEXT, font=title_font)
    vmax = vmax if vmax > 0 else 1.0
    for i, (label, value, text, color) in enumerate(
        zip(labels, values, texts, colors, strict=True)
    ):
        y = top + i * row
        shown = label
        while text_width(shown) > label_w - pad and len(shown) > 2:
            shown = shown[:-2] + "…"
        draw.text((pad, y + 3), shown, fill=TEXT, font=font)
        draw.rectangle((bar_x0, y + 3, bar_x0 + bar_w, y + row - 3), fill=(246, 248, 250))
        length = round(bar_w * min(max(value, 0.0), vmax) / vmax)
        if length > 0:
            draw.rectangle((bar_x0, y + 3, bar_x0 + length, y + row - 3), fill=color)
        draw.text((bar_x0 + bar_w + 6, y + 3), text, fill=TEXT, font=font)
    draw.line((bar_x0, top - 2, bar_x0, height - pad + 2), fill=GRAY)
    return image


def success_plot(result: SuiteResult) -> Any:
    """Success rate overall and per tag."""
    rows = [("all", result.overall), *result.per_tag.items()]
    return bar_chart(
        f"Success rate per tag: {result.suite}, {result.planner}",
        [tag for tag, _ in rows],
        [m["success_rate"] for _, m in rows],
        [
            f"{_percent(m['success_rate'])} ({round(m['success_rate'] * m['cases'])}"
            f"/{m['cases']:.0f})"
            for _, m in rows
        ],
        [BLUE if tag == "all" else GREEN for tag, _ in rows],
        vmax=1.0,
    )


def sim_seconds_plot(result: SuiteResult) -> Any:
    """Simulated seconds of every case, green when it succeeded, red when it failed."""
    cases = result.cases
    return bar_chart(
        f"Simulated seconds per case: {result.suite}, {result.planner} (red: failed)",
        [c.id for c in cases],
        [c.sim_seconds for c in cases],
        [f"{c.sim_seconds:.1f} s" for c in cases],
        [GREEN if c.success else RED for c in cases],
        vmax=max((c.sim_seconds for c in cases), default=1.0),
    )


# --- markdown ---------------------------------------------------------------------------------


def _header(result: SuiteResult, date: datetime) -> list[tuple[str, str]]:
    return [
        ("Suite", result.suite),
        ("Planner", result.planner),
        ("Date", date.strftime("%Y-%m-%d %H:%M:%S %Z").strip()),
        ("Cases", str(len(result.cases))),
        ("Wall time", f"{result.wall_seconds:.1f} s"),
    ]


def _tag_rows(result: SuiteResult) -> list[tuple[str, dict[str, float]]]:
    return [("all", result.overall), *result.per_tag.items()]


def _case_cells(case: CaseResult) -> list[str]:
    return [
        case.id,
        ", ".join(case.tags),
        "yes" if case.success else "no",
        f"{case.goal_recall:.3f}",
        f"{case.executable:.3f}",
        str(case.replans),
        case.reader or "-",
        str(case.llm_tokens),
        f"{case.sim_seconds:.2f}",
    ]


CASE_COLUMNS = [
    "case", "tags", "success", "goal recall", "executable", "replans", "read by", "tokens",
    "sim s",
]  # fmt: skip


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _md_cell(text: str) -> str:
    return _one_line(text).replace("|", "\\|")


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    return lines


def render_markdown(result: SuiteResult, report: Report, date: datetime) -> str:
    """``report.md``: links (relative to the report folder) to the plots and GIFs."""
    rel = lambda path: path.relative_to(report.folder).as_posix()  # noqa: E731
    lines = [f"# Evaluation report: {result.suite}", ""]
    lines += [f"- **{key}:** {value}" for key, value in _header(result, date)]
    lines += ["", "## Overall", ""]
    lines += _md_table(
        ["metric", "value"],
        [[label, format_metric(key, result.overall.get(key))] for key, label, _ in METRICS],
    )
    lines += ["", "## Per tag", ""]
    lines += _md_table(
        ["tag", *(metric_label(k) for k in TAG_METRICS)],
        [[tag, *(format_metric(k, m.get(k)) for k in TAG_METRICS)] for tag, m in _tag_rows(result)],
    )
    lines += ["", f"## Failures ({len(report.failures)})", ""]
    if not report.failures:
        lines.append("None: every case succeeded.")
    for failure in report.failures:
        case = failure.case
        item = f"- **{case.id}**: {_one_line(case.reason) or 'failed'}"
        if failure.gif is not None:
            item += f" ([GIF]({rel(failure.gif)}))"
        if failure.note:
            item += f" *({_one_line(failure.note)})*"
        lines.append(item)
    lines += ["", "## Plots", ""]
    lines += [
        f"![Success rate per tag]({rel(report.plots['success_per_tag'])})",
        "",
        f"![Simulated seconds per case]({rel(report.plots['sim_seconds_per_case'])})",
    ]
    failed_gifs = [(f.case.id, f.gif) for f in report.failures if f.gif is not None]
    if failed_gifs:
        lines += ["", "## Failed cases, recorded", ""]
        for case_id, gif in failed_gifs:
            lines += [f"### {case_id}", "", f"![{case_id}]({rel(gif)})", ""]
    lines += ["", "## Cases", ""]
    lines += _md_table(CASE_COLUMNS, [_case_cells(c) for c in result.cases])
    lines += ["", f"Full results: [{rel(report.results)}]({rel(report.results)})", ""]
    return "\n".join(lines)


# --- html -------------------------------------------------------------------------------------

CSS = """
body { font: 14px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328;
       max-width: 1000px; margin: 2em auto; padding: 0 1em; }
h1 { font-size: 1.6em; border-bottom: 1px solid #d0d7de; padding-bottom: .3em; }
h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #d0d7de; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { border: 1px solid #d0d7de; padding: 4px 10px; text-align: right; }
th { background: #f6f8fa; }
td:first-child, th:first-child { text-align: left; }
td.text { text-align: left; }
tr.fail td:first-child { color: #cf222e; font-weight: 600; }
dl.meta { display: grid; grid-template-columns: max-content auto; gap: 2px 1em; }
dl.meta dt { font-weight: 600; } dl.meta dd { margin: 0; }
figure { display: inline-block; margin: .5em 1em 1em 0; vertical-align: top; }
figcaption { font-size: .9em; color: #59636e; max-width: 320px; }
img { max-width: 100%; }
.note { color: #59636e; font-style: italic; }
"""


def data_uri(path: Path) -> str:
    """The file as a ``data:`` URI (PNG or GIF), for a page that needs no other file."""
    mime = {".png": "image/png", ".gif": "image/gif"}[path.suffix.lower()]
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def _anchor(case_id: str) -> str:
    return "case-" + re.sub(r"[^A-Za-z0-9_-]", lambda m: f".{ord(m.group()):x}", case_id)


def _html_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], classes: Sequence[str] = ()
) -> str:
    esc = html.escape
    out = ["<table>", "<tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr>"]
    for i, row in enumerate(rows):
        cls = f' class="{classes[i]}"' if i < len(classes) and classes[i] else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def render_html(result: SuiteResult, report: Report, date: datetime) -> str:
    """``report.html``: one file, every image embedded."""
    esc = html.escape
    title = f"Evaluation report: {result.suite}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
        '<dl class="meta">',
        *(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in _header(result, date)),
        "</dl>",
        "<h2>Overall</h2>",
        _html_table(
            ["metric", "value"],
            [[label, format_metric(key, result.overall.get(key))] for key, label, _ in METRICS],
        ),
        "<h2>Per tag</h2>",
        _html_table(
            ["tag", *(metric_label(k) for k in TAG_METRICS)],
            [
                [tag, *(format_metric(k, m.get(k)) for k in TAG_METRICS)]
                for tag, m in _tag_rows(result)
            ],
        ),
        "<h2>Plots</h2>",
        *(
            f'<figure><img alt="{esc(alt)}" src="{data_uri(report.plots[key])}"></figure>'
            for key, alt in (
                ("success_per_tag", "Success rate per tag"),
                ("sim_seconds_per_case", "Simulated seconds per case"),
            )
        ),
        f"<h2>Failures ({len(report.failures)})</h2>",
    ]
    if not report.failures:
        parts.append("<p>None: every case succeeded.</p>")
    else:
        parts.append(
            "<table><tr><th>case</th><th>reason</th></tr>"
            + "".join(
                f'<tr class="fail"><td><a href="#{_anchor(f.case.id)}">{esc(f.case.id)}</a></td>'
                f'<td class="text">{esc(_one_line(f.case.reason) or "failed")}</td></tr>'
                for f in report.failures
            )
            + "</table>"
        )
        for failure in report.failures:
            case = failure.case
            parts.append(f'<figure id="{_anchor(case.id)}">')
            if failure.gif is not None:
                parts.append(f'<img alt="{esc(case.id)}" src="{data_uri(failure.gif)}">')
            parts.append(f"<figcaption><b>{esc(case.id)}</b>: {esc(_one_line(case.reason))}")
            if failure.note:
                parts.append(f'<br><span class="note">{esc(_one_line(failure.note))}</span>')
            parts.append("</figcaption></figure>")
    parts += [
        "<h2>Cases</h2>",
        _html_table(
            CASE_COLUMNS,
            [_case_cells(c) for c in result.cases],
            ["" if c.success else "fail" for c in result.cases],
        ),
        "</body></html>",
        "",
    ]
    return "\n".join(parts)
