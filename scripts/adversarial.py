#!/usr/bin/env python3
"""An adversarial campaign against the ``claw`` command line, written as a hostile new user would.

It is written from README.md (the CLI synopsis, "Failure modes", the suite / scene / sweep formats,
the LLM planner's options) and from the text of issues 22 and 37 (its round-three findings: the
cases of group ``round3``, ids ``r3-*``, each naming its finding) only -- never from the project's
source -- so that it checks the promises, not the implementation.

Every case is one or more command lines ``python -m claw ...`` (or, for the Python API README
documents, ``python -c CODE``) run in a temporary folder of its own (its own ``HOME`` and
``CLAW_HOME``, ``MUJOCO_GL=egl``, ``CLAW_EMBEDDER=hash``, an ``OPENAI_API_KEY`` that must never be
shown), each with an expectation:

* the exit code is one the README's table allows for that input (0 success, 1 attempted and
  failed, 2 bad input, 3 planner unavailable or its plans unusable, 130 interrupted);
* no ``Traceback``, no death by a signal, no ANSI escape (``\\x1b``) in anything shown or written
  (an escape a result file keeps JSON-escaped, ``\\u001b``, from its input is listed as a note);
* an error is reported once: ONE line ``error: KIND: MESSAGE`` on stderr (``note:`` lines aside,
  and after a refused reading its ``read:`` and ``try:`` lines),
  or under ``--json`` one JSON object ``{"error": {"kind", "message"}}`` on stdout;
* a deadline: the command is killed after the documented deadline plus a margin (verdict ``hang``),
  or when its process tree grows past a memory cap (verdict ``memory``);
* for ``claw eval`` runs, "no result lost": the ``--json`` file exists and holds every case;
* the API key never appears in stdout, stderr or any file the run wrote (verdict ``leak``).

The cases are rows of a table, one YAML file per group in ``scripts/adversarial_cases/`` (the
row format: ``scripts/campaign/table.py``); adding a case is adding a row. The machinery is the
package ``scripts/campaign/``: the fake model server, process watching, verdict checks, fixtures,
generated inputs and the scenarios of several commands.

Hostile model answers come from a fake OpenAI-compatible server started here on 127.0.0.1 only;
its behaviour is chosen by the ``--api-base`` path (``http://127.0.0.1:PORT/b/BEHAVIOUR/CASE/v1``).

A library that cannot be written is made so for root by a private mount namespace
(``unshare -m``, the library bind-mounted read-only), by a file where the folder should be, or by a
path under /proc; cases needing what the machine lacks (Ray, unshare, llama-cpp-python) are
skipped with the reason. The whole set (454 cases) takes about 13 minutes with ``--jobs 2`` on 2
cores.

Usage::

    python scripts/adversarial.py [--json REPORT.json] [--jobs 2] [-k SUBSTRING] [--list] [--keep]

Exit status: 0 when every case passes (or is skipped with a reason), 1 otherwise.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from campaign.context import READ_ONLY_WRAP, Ctx
from campaign.fake_llm import FakeLLM
from campaign.fixtures import Fixtures, make_fixtures
from campaign.limits import CLASSES
from campaign.model import Case, Outcome
from campaign.table import TableError, load_cases
from campaign.verdicts import short


def capabilities() -> dict[str, str]:
    """What this machine lacks, as skip reasons (an empty reason: the capability is there)."""
    reasons: dict[str, str] = {}
    if importlib.util.find_spec("ray") is None:
        reasons["ray"] = "Ray is not installed (pip install -e '.[ray]')"
    if importlib.util.find_spec("llama_cpp") is not None:
        reasons["no-llama"] = "llama-cpp-python is installed: `claw llm serve` would serve"
    else:
        reasons["llama"] = "llama-cpp-python is not installed (the local extra)"
    probe = tempfile.mkdtemp(prefix="claw-adv-unshare-")
    try:
        result = subprocess.run(
            [
                *("unshare", "-m", "--propagation", "private"),
                *("sh", "-c", READ_ONLY_WRAP + " ; true", "sh", probe),
                *("sh", "-c", f"touch {probe}/x 2>/dev/null && echo writable || echo read-only"),
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if "read-only" not in result.stdout:
            reasons["unshare"] = (
                "cannot make a read-only bind mount (unshare -m / mount --bind): "
                + result.stderr.strip()[:100]
            )
    except (OSError, subprocess.SubprocessError) as exc:
        reasons["unshare"] = f"unshare is not available: {exc}"
    finally:
        shutil.rmtree(probe, ignore_errors=True)
    return reasons


def run_case(
    case: Case, root: Path, server: FakeLLM, fixtures: Fixtures, capabilities: dict[str, str]
) -> Outcome:
    """Run one case in a folder of its own under `root`; its verdict is its worst problem."""
    summary = (
        "claw " + " ".join(short(a, 40) for a in case.cmd.args)
        if case.cmd
        else f"(script) {case.id}"
    )
    if case.needs and capabilities.get(case.needs):
        return Outcome(case, summary, None, "skip", [], 0.0, skip_reason=capabilities[case.needs])
    ctx = Ctx(case, root, server, fixtures)
    started = time.monotonic()
    try:
        ctx.setup()
        if case.script is not None:
            case.script(ctx)
        elif case.cmd is not None:
            ctx.run(case.cmd)
        ctx.final_checks()
    except Exception as exc:  # the harness's own failure is reported, not hidden
        ctx.fail("inconsistent", f"harness error: {type(exc).__name__}: {exc}")
    seconds = time.monotonic() - started
    rank = {cls: n for n, cls in enumerate(CLASSES)}
    failures = [p.cls for p in ctx.problems if p.cls != "note"]
    verdict = min(failures, key=lambda c: rank.get(c, 99), default="ok")
    exit_code = ctx.runs[-1].rc if ctx.runs else None
    return Outcome(case, summary, exit_code, verdict, ctx.problems, seconds)


def run_all(cases: list[Case], jobs: int, keep: bool) -> tuple[list[Outcome], list[str]]:
    """Run every case, `jobs` at a time, beside one fake server: the outcomes, fixture warnings."""
    root = Path(tempfile.mkdtemp(prefix="claw-adversarial-"))
    server = FakeLLM()
    server.start()
    try:
        caps = capabilities()
        print(
            f"claw adversarial campaign: {len(cases)} cases, {jobs} at a time, in {root}",
            flush=True,
        )
        print(f"fake OpenAI-compatible server on 127.0.0.1:{server.port}", flush=True)
        fixtures = make_fixtures(root)
        for warning in fixtures.warnings:
            print(f"warning: {warning}", flush=True)
        outcomes: list[Outcome | None] = [None] * len(cases)
        done = 0

        def work(n: int) -> None:
            nonlocal done
            outcome = run_case(cases[n], root / "cases", server, fixtures, caps)
            outcomes[n] = outcome
            done += 1
            print(
                f"[{done:>3}/{len(cases)}] {outcome.verdict:<12} "
                f"{outcome.seconds:6.1f} s  {cases[n].id}",
                flush=True,
            )

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            list(pool.map(work, range(len(cases))))
        return [o for o in outcomes if o is not None], fixtures.warnings
    finally:
        server.stop()
        if not keep:
            shutil.rmtree(root, ignore_errors=True)


def print_table(outcomes: list[Outcome]) -> None:
    """One line per case (id, command, exit, verdict) and its first problems."""
    print(f"{'case':<36} {'command':<64} {'exit':>4}  verdict")
    for o in outcomes:
        print(
            f"{o.case.id[:36]:<36} {short(o.command, 64):<64} "
            f"{o.exit if o.exit is not None else '-'!s:>4}  {o.verdict}"
        )
        for p in [p for p in o.problems if p.cls != "note"][:4]:
            print(f"{'':<36}   {p.cls}: {short(p.message, 220)}")
        if o.skip_reason:
            print(f"{'':<36}   skipped: {o.skip_reason}")


def tally(outcomes: list[Outcome]) -> tuple[int, int, int, dict[str, int]]:
    """(passed, failed, skipped, failures by class) of the outcomes."""
    failed = [o.verdict for o in outcomes if o.verdict not in ("ok", "skip")]
    skipped = sum(o.verdict == "skip" for o in outcomes)
    by_class = {cls: failed.count(cls) for cls in sorted(set(failed))}
    return len(outcomes) - len(failed) - skipped, len(failed), skipped, by_class


def report(outcomes: list[Outcome], warnings: list[str], seconds: float) -> dict[str, object]:
    """The campaign's JSON report: every case's verdict and problems, and the counts."""
    passed, failed, skipped, by_class = tally(outcomes)
    cases = [
        {
            "id": o.case.id,
            "group": o.case.group,
            "command": o.command,
            "exit": o.exit,
            "verdict": o.verdict,
            "problems": [{"class": p.cls, "message": p.message} for p in o.problems],
            "seconds": round(o.seconds, 2),
            "skip_reason": o.skip_reason or None,
        }
        for o in outcomes
    ]
    return {
        "cases": cases,
        "passed": passed,
        "failed": failed,
        "skipped": skipped,
        "failures_by_class": by_class,
        "seconds": round(seconds, 1),
        "fixture_warnings": warnings,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the campaign (or list it); 0 when every case passed or was skipped, 1 otherwise."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--json", metavar="FILE", help="write the report as JSON")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    parser.add_argument(
        "-k",
        dest="select",
        action="append",
        default=[],
        help="only cases whose id or group contains this",
    )
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders")
    args = parser.parse_args(argv)

    try:
        cases = load_cases()
    except TableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.select:
        cases = [c for c in cases if any(s in c.id or s == c.group for s in args.select)]
    if args.list:
        for c in cases:
            print(f"{c.group:<12} {c.id}")
        print(f"{len(cases)} cases")
        return 0

    # A shell that starts this in the background ignores SIGINT, and so would every command it
    # runs: the Ctrl-C cases need claw to get SIGINT as a terminal sends it.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    started = time.monotonic()
    outcomes, warnings = run_all(cases, args.jobs, args.keep)
    seconds = time.monotonic() - started
    print()
    print_table(outcomes)
    passed, failed, skipped, by_class = tally(outcomes)
    print()
    print("failures by class: " + (", ".join(f"{k} {v}" for k, v in by_class.items()) or "none"))
    print(f"{passed} passed, {failed} failed, {skipped} skipped in {seconds:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(report(outcomes, warnings, seconds), indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
