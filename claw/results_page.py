"""The results page, rendered from one ``claw bench all`` file (``scripts/results_page.py``):
the commit and date at the top, every table from the file, each with the command that
reproduces it, and plots (:mod:`claw.results_plots`). The same file renders the same page."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from claw.results import Entry, Results, load_results
from claw.results_plots import (
    PLOTS,
    plot_imitation,
    plot_latency,
    plot_startup,
    plot_suites,
    write_plot,
)

Table = Sequence[Sequence[Any]]


def table(header: Sequence[str], rows: Table, right_from: int = 1) -> str:
    """A markdown table; the columns from ``right_from`` on are right-aligned."""
    align = ["---" if k < right_from else "---:" for k in range(len(header))]
    lines = [header, align, *[[str(cell) for cell in row] for row in rows]]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


def pct(rate: float) -> str:
    return f"{100 * rate:.1f} %"


def _p50_p95(times: Mapping[str, float] | None) -> str:
    """A phase's ``p50 / p95`` (ms); a dash for a phase the file did not measure."""
    return "—" if times is None else f"{times['p50_ms']:.1f} / {times['p95_ms']:.1f}"


def mm(metres: float | None) -> str:
    return "—" if metres is None else f"{metres * 1000:.1f} mm"


def run_by(entry: Entry) -> str:
    return f"`{entry.command}` ({entry.seconds:.0f} s)"


class Page:
    """The page's sections, each from the entries of one benchmark."""

    def __init__(self, results: Results, img: str, source: str) -> None:
        self.results, self.img, self.source = results, img, source
        self.plots: dict[str, Callable[[Any], None]] = {}
        """Each plot of the page by file name: draws on the axes it is given."""

    def ok(self, prefix: str) -> list[Entry]:
        """The entries named ``prefix`` or ``prefix/…`` that ran."""
        return [
            e for e in self.results.entries
            if (e.name == prefix or e.name.startswith(prefix + "/")) and e.status == "ok"
        ]  # fmt: skip

    def header(self) -> str:
        r = self.results
        sha = r.commit.sha or "unknown"
        dirty = " (with changes to tracked files)" if r.commit.dirty else ""
        m = r.machine
        lines = [
            "# Results",
            "",
            f"Rendered by `python scripts/results_page.py` from `{self.source}`, which "
            f"`{r.command}` wrote: no figure here is typed by hand.",
            "",
            f"- **commit** `{sha}`{dirty}",
            f"- **date** {r.date}; the whole run {r.wall_seconds / 60:.1f} min",
            f"- **machine** {m.cpu}, {m.cores} cores, {m.memory_gib:g} GiB, {m.os}",
            "- **versions** " + ", ".join(f"{k} {v or '—'}" for k, v in r.versions.items()),
        ]
        if r.quick:
            lines += ["", "**A `--quick` run: tiny budgets, smoke figures, not results.**"]
        failed = r.failed()
        if failed:
            lines += ["", "Failed runs:", ""]
            lines += [f"- `{e.name}`: {e.error} (`{e.command}`)" for e in failed]
        return "\n".join(lines)

    def startup(self) -> str:
        entries = self.ok("startup")
        if not entries:
            return ""
        e = entries[0]
        s = e.result
        rows = [
            ("cold `claw \"…\"` (a new process)", f"{s['cold_median']:.3f} s",
             f"{s['cold_ratio']:.2f}×"),
            ("the first run (a fresh `CLAW_HOME`: caches built)", f"{s['first_run_median']:.3f} s",
             f"{s['first_run_ratio']:.2f}×"),
            ("floor: MuJoCo + numpy, same scene and physics", f"{s['floor_median']:.3f} s", "1×"),
        ]  # fmt: skip
        self.plots["startup.png"] = partial(plot_startup, s)
        return "\n".join([
            "## Startup",
            "",
            f"`claw \"{s['instruction']}\"` against its floor ({s['physics_steps']} physics "
            f"steps, {s['sim_seconds']} s simulated), medians of {s['repeats']} interleaved "
            f"runs; target: cold (every run after the first) ≤ {s['target_ratio']:g}× the floor.",
            "",
            table(["process", "median wall", "× floor"], rows),
            "",
            f"A run imports **{s['modules']}** modules; the first starts **{s['subprocesses']}** "
            f"processes ({', '.join(sorted(set(s['subprocess_programs']))) or 'none'}).",
            "",
            f"![startup runs]({self.img}/startup.png)",
            "",
            f"Command: {run_by(e)}",
        ])  # fmt: skip

    def env(self) -> str:
        entries = self.ok("env")
        rows = [
            (r["scene"], f"{r['raw_steps_per_second']:,.0f}",
             f"{r['env_physics_steps_per_second']:,.0f}", f"{r['ratio']:.3f}",
             f"{r['raw_real_time_factor']:.0f}× / {r['env_real_time_factor']:.0f}×",
             f"{r['env_step_ms']:.2f} ms")
            for r in (e.result for e in entries)
        ]  # fmt: skip
        header = ["scene", "raw mj_step steps/s", "inside env.step steps/s", "ratio",
                  "real-time (raw / env)", "env.step"]  # fmt: skip
        return section("Physics", entries, table(header, rows))

    def skills(self) -> str:
        parts = []
        for e in self.ok("skills"):
            if e.name == "skills/camera":  # beside the truth in the perception section
                continue
            rows = [
                (r["skill"], r["relation"], f"{r['successes']}/{r['attempts']}",
                 pct(r["success_rate"]), f"{r['mean_sim_seconds']:.2f}",
                 f"{r['real_time_factor']:.1f}×")
                for r in e.result["rows"]
            ]  # fmt: skip
            header = ["skill", "relation", "successes", "rate", "mean sim s", "real-time"]
            parts.append(f"**{e.name.split('/')[1]}**\n\n" + table(header, rows, 2))
        return section("Skills", self.ok("skills"), "\n\n".join(parts))

    def perception(self) -> str:
        seen = self.ok("perception")
        rows = [
            ("sensor noise" if e.result["sensor_noise"] else "no sensor noise",
             e.result["episodes"], pct(o["precision"]), pct(o["recall"]),
             f"{o['position_mm']['p50']:.1f} / {o['position_mm']['p95']:.1f}",
             f"{o['yaw_deg']['p50']:.1f} / {o['yaw_deg']['p95']:.1f}",
             f"{o['size_mm']['p50']:.1f} / {o['size_mm']['p95']:.1f}",
             f"{pct(o['color_accuracy'])} / {pct(o['type_accuracy'])}",
             f"{e.result['estimate_ms']['p50']:.0f} / {e.result['first_estimate_ms']['p50']:.0f}")
            for e in seen for o in [e.result["overall"]]
        ]  # fmt: skip
        header = ["camera", "layouts", "precision", "recall", "position p50 / p95 mm",
                  "yaw p50 / p95 °", "size p50 / p95 mm", "colour / type",
                  "ms per estimate (first of an episode)"]  # fmt: skip
        parts = [table(header, rows)] if rows else []
        suites = self.seen_suites()
        if suites:
            parts.append(suites)
        skills = self._seen_skills()
        if skills:
            parts.append(skills)
        replanning = self._replanning()
        if replanning:
            parts.append(replanning)
        entries = [*seen, *self.ok("seeing"), *self.ok("skills/camera"), *self.ok("replanning")]
        return section("Perception: through the cameras", entries, "\n\n".join(parts))

    def seen_suites(self) -> str:
        """The suites planned offline on the truth and through the cameras, judged on the truth."""
        by = {e.name: e.result for e in [*self.ok("eval"), *self.ok("seeing")]}
        names = sorted({n.split("/")[1] for n in by if n.startswith("seeing/")})
        rows = []
        for name in names:
            cells = [name]
            for key in (f"eval/{name}/offline", f"seeing/{name}/camera",
                        f"seeing/{name}/camera+noise"):  # fmt: skip
                r = by.get(key)
                cells.append(f"{r['successes']}/{r['cases']} ({pct(r['success_rate'])})" if r
                             else "—")  # fmt: skip
            rows.append(cells)
        header = ["suite (offline)", "truth", "camera", "camera + sensor noise"]
        return "**The suites, judged on the truth:**\n\n" + table(header, rows) if rows else ""

    def _replanning(self) -> str:
        rows = [
            (e.name.split("/")[1], result["overall"]["instructions"],
             *(f"{result['overall']['phases'][p]['p50_ms']:.0f} / "
               f"{result['overall']['phases'][p]['p95_ms']:.0f}" for p in ("plan", "replan")))
            for e in self.ok("replanning") for result in [e.result]
        ]  # fmt: skip
        header = ["seen by", "instructions", "plan on a perceived world p50 / p95 ms",
                  "replanning step (perceive + plan) p50 / p95 ms"]  # fmt: skip
        return "**Replanning steps through the cameras:**\n\n" + table(header, rows) if rows else ""

    def _seen_skills(self) -> str:
        truth = {(r["skill"], r["relation"]): r for e in self.ok("skills/controller")
                 for r in e.result["rows"]}  # fmt: skip
        rows = [
            (r["skill"], r["relation"], pct(truth[key]["success_rate"]) if key in truth else "—",
             pct(r["success_rate"]),
             f"{100 * (r['success_rate'] - truth[key]['success_rate']):+.1f}"
             if key in truth else "—")
            for e in self.ok("skills/camera") for r in e.result["rows"]
            for key in [(r["skill"], r["relation"])]
        ]  # fmt: skip
        header = ["skill", "relation", "truth", "camera", "points"]
        return "**The skills, judged on the truth:**\n\n" + table(header, rows, 2) if rows else ""

    def two_arm(self) -> str:
        entries = self.ok("two-arm")
        rows = [
            (r["task"], f"{r['successes']}/{r['episodes']}", f"{r['sim_seconds']:.1f}",
             f"{r['wall_seconds']:.2f}")
            for e in entries for r in e.result["rows"]
        ]  # fmt: skip
        header = ["task", "success", "simulated s / episode", "wall s / episode"]
        return section("Two arms", entries, table(header, rows))

    def library(self) -> str:
        entries = self.ok("library")
        rows = [
            (f"{r['skills']:,} / {r['rows']:,} ({r['index_kind']})", r["embedder"],
             f"{r['search_ms_p50']:.2f} / {r['search_ms_p99']:.2f}",
             f"{r['query_embed_ms_p50']:.1f} / {r['query_embed_ms_p99']:.1f}",
             f"{r['index_build_seconds']:.1f} s", f"{r['index_bytes'] / 2**20:.1f} MiB",
             f"{r['peak_rss_mb']:.0f} MiB")
            for r in (e.result for e in entries)
        ]  # fmt: skip
        header = ["skills / rows", "embedder", "search p50 / p99 ms", "embed p50 / p99 ms",
                  "index build", "index", "peak RSS of the process"]  # fmt: skip
        return section("Skill library", entries, table(header, rows))

    def planner(self) -> str:
        entries = self.ok("planner")
        if not entries:
            return ""
        result = entries[0].result
        rows = [
            (s["suite"], f"{s['instructions']} ({s['refused']})",
             *(_p50_p95(s["phases"].get(p)) for p in ("parse", "plan", "replan")),
             f"{s['parses_per_clause']:.1f}")
            for s in [*result["suites"], result["overall"]]
        ]  # fmt: skip
        self.plots["planner_latency.png"] = partial(plot_latency, result)
        header = ["suite", "instructions (refused)", "reading p50 / p95 ms",
                  "whole plan p50 / p95 ms", "replanning step p50 / p95 ms",
                  "lark searches / clause"]  # fmt: skip
        body = (f"{table(header, rows)}\n\nFirst plan of the process: "
                f"{result['first_plan_ms']:.1f} ms.\n\n"
                f"![planner latency]({self.img}/planner_latency.png)")  # fmt: skip
        return section("Planner latency", entries, body)

    def words(self) -> str:
        entries = self.ok("words")
        rows = [
            (w["name"], w["n"], f"{w['correct']}/{w['with_meaning']}", w["wrong"], w["refused"],
             f"{w['correct_refusals']}/{w['distractors']}", w["false_matches"],
             f"{w['lookup_p50_ms']:.0f} / {w['lookup_p95_ms']:.0f}")
            for e in entries for w in e.result["lists"]
        ]  # fmt: skip
        header = ["list", "n", "right", "wrong", "refused", "distractors refused",
                  "false matches", "lookup p50 / p95 ms"]  # fmt: skip
        return section("Words the lexicon lacks", entries, table(header, rows))

    def suites(self) -> str:
        evals = self.ok("eval")
        by = {(Path(e.result["file"]).stem, e.result["planner"]): e.result for e in evals}
        names = sorted({suite for suite, _ in by})
        rows = []
        for name in names:
            off, hyb = by.get((name, "offline")), by.get((name, "offline+mock:oracle"))
            rows.append((
                name, (off or hyb or {}).get("cases", "—"),
                f"{off['successes']} ({pct(off['success_rate'])})" if off else "—",
                pct(off["read_right"]) if off else "—",
                f"{hyb['successes']} ({pct(hyb['success_rate'])})" if hyb else "—",
                pct(hyb["read_by_model"]) if hyb else "—",
            ))  # fmt: skip
        if not rows:
            return ""
        self.plots["suites.png"] = partial(plot_suites, by)
        header = ["suite", "cases", "offline success", "offline read right",
                  "offline+mock:oracle success", "read by the model"]  # fmt: skip
        body = f"{table(header, rows)}\n\n![success per suite]({self.img}/suites.png)"
        return section("Suites: success per planner", evals, body)

    def trust(self) -> str:
        from claw.eval.tallies import TrustCounts

        entries = self.ok("trust")
        header = ["suite", "read right", "refused", "wrong ran", "traps planned",
                  "offline success", "hybrid"]  # fmt: skip
        head = table(header, []).splitlines()
        rows = [TrustCounts.model_validate(e.result).row() for e in entries]
        body = "\n".join([*head, *rows])
        note = (
            "Offline: goal cases read right, refused and wrong readings that ran; traps "
            "(`expect_error` cases) planned; the hybrid (`offline+mock:oracle`) success."
        )
        return section("Trust: the four counts", entries, f"{note}\n\n{body}")

    def policies(self) -> str:
        entries = self.ok("policy")
        rows = []
        for e in entries:
            alone = e.result.get("controller_only")
            for label, r in [("policy", e.result["policy"]), ("controller alone", alone)]:
                if r is None:
                    continue
                rows.append((
                    f"{e.name.split('/')[1]} ({label})", r["env_id"],
                    "—" if r["controller_only"] else r.get("algo", "—"),
                    f"{pct(r['success_rate'])} ({r['threshold'] * 100:g} cm)",
                    pct(r["success_within"].get("0.02", 0.0)),
                    mm(r["median_final_distance"]), r["episodes"],
                ))  # fmt: skip
        header = ["policy", "env", "algorithm", "success (threshold)", "within 2 cm",
                  "median final distance", "episodes"]  # fmt: skip
        return section("Learned claws", entries, table(header, rows))

    def imitation(self) -> str:
        entries = self.ok("imitation")
        if not entries:
            return ""
        result = entries[0].result
        rows = [
            (r["learner"], f"{r['env_steps']:,}", f"{pct(r['success_rate'])} of {r['episodes']}",
             mm(r["mean_final_distance"]))
            for r in result["rows"]
        ]  # fmt: skip
        self.plots["imitation.png"] = partial(plot_imitation, result)
        header = ["learner", "env steps of training", "success on fresh episodes",
                  "mean final distance"]  # fmt: skip
        body = (f"{result['demonstrations']} demonstrations, {result['dagger_rounds']} DAgger "
                f"rounds ({result['chosen_stage']} kept): recording {result['record_seconds']} s, "
                f"training {result['train_seconds']} s.\n\n{table(header, rows)}\n\n"
                f"Learning curve (each stage on its validation episodes):\n\n"
                f"![imitation learning curve]({self.img}/imitation.png)")  # fmt: skip
        return section("Learned pick-and-place from demonstrations", entries, body)


def section(title: str, entries: list[Entry], body: str) -> str:
    """A titled table and its commands ("" where nothing ran)."""
    if not entries:
        return ""
    commands = "\n".join(f"- {run_by(e)}" for e in entries)
    return f"## {title}\n\n{body}\n\nCommands:\n\n{commands}"


def render(results: Results, out: Path, img_dir: Path, source: str) -> str:
    """Write the page to ``out`` and its plots to ``img_dir``; the page's text (``source``: how
    it names the results file)."""
    img = Path(os.path.relpath(img_dir, out.parent)).as_posix()
    page = Page(results, img, source)
    sections = [
        page.header(), page.startup(), page.suites(), page.trust(), page.planner(), page.env(),
        page.skills(), page.perception(), page.two_arm(), page.library(), page.words(),
        page.policies(), page.imitation(),
    ]  # fmt: skip
    text = "\n\n".join(s for s in sections if s) + "\n"
    img_dir.mkdir(parents=True, exist_ok=True)
    for name in PLOTS:  # a plot the file no longer makes is not left behind
        (img_dir / name).unlink(missing_ok=True)
    for name, plot in sorted(page.plots.items()):
        write_plot(plot, img_dir / name)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return text


README_START = "<!-- measured: rendered from docs/results.json by scripts/results_page.py -->"
README_END = "<!-- /measured -->"
"""The README's block of figures lies between these lines; the script rewrites it."""


def readme_block(results: Results) -> str:
    """The README's figures: the suites judged on the truth, planned on the truth and seen
    through the cameras (without and with the sensor model)."""
    suites = Page(results, "", "").seen_suites()
    commit = (results.commit.sha or "unknown")[:12]
    said = f"From `claw bench all` at {commit} on {results.date[:10]}: [results](docs/results.md)."
    return "\n\n".join(part for part in (suites, said) if part)


def write_readme(results: Results, readme: Path) -> bool:
    """Rewrite ``readme``'s block of figures (between :data:`README_START` and
    :data:`README_END`); whether it has one."""
    text = readme.read_text()
    start, end = text.find(README_START), text.find(README_END)
    if start < 0 or end < start:
        return False
    block = f"{README_START}\n{readme_block(results)}\n{README_END}"
    readme.write_text(text[:start] + block + text[end + len(README_END) :])
    return True


def main(argv: list[str]) -> int:
    """``scripts/results_page.py RESULTS.json [--out FILE] [--img DIR] [--readme FILE]``: 0, or
    2 for a file that is not a results file (one line on stderr)."""
    parser = argparse.ArgumentParser(
        prog="results_page.py", description="Render the results page from claw bench all's file."
    )
    parser.add_argument("results", type=Path, help="a claw bench all --json file")
    parser.add_argument("--out", type=Path, default=Path("docs/results.md"))
    parser.add_argument("--img", type=Path, default=None, help="default: img/results by --out")
    parser.add_argument(
        "--readme", type=Path, default=Path("README.md"), help="whose block of figures to rewrite"
    )
    args = parser.parse_args(argv)
    try:
        results = load_results(args.results)
    except (OSError, ValueError) as exc:
        reason = str(exc).splitlines()[0]
        print(f"error: invalid_input: {args.results}: {reason}", file=sys.stderr)
        return 2
    img = args.img if args.img is not None else args.out.parent / "img" / "results"
    render(results, args.out, img, args.results.as_posix())
    print(f"wrote {args.out} and its plots in {img}")
    if args.readme.is_file() and write_readme(results, args.readme):
        print(f"rewrote the figures of {args.readme}")
    return 0
