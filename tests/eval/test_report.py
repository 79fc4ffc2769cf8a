"""Reports (``--report DIR``: markdown, self-contained HTML, plots, failure GIFs), comparisons."""

from __future__ import annotations

import base64
import io
import json
import re
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import imageio.v3 as iio
import pytest
import yaml
from PIL import Image

from claw.eval.compare import compare, compare_files, load_report
from claw.eval.exceptions import InvalidReportError
from claw.eval.report import Report, _file_name, write_report
from claw.eval.runner import SuiteResult, run_suite
from claw.eval.suite import Suite

# The red block starts right of the blue box, so that "left of" needs a pick and a place.
SCENE = {
    "objects": [
        {"type": "block", "color": "red", "pose": [0.45, -0.12]},
        {"type": "box", "color": "blue", "pose": [0.5, 0.1]},
    ]
}
LEFT = "put the red block left of the blue box"
TINY: dict[str, Any] = {
    "name": "tiny",
    "scene": SCENE,
    "cases": [
        {"id": "left", "instruction": LEFT, "goal": ["left_of(red_block, blue_box)"],
         "tags": ["spatial"]},
        # A goal that cannot hold: left of and right of the same box.
        {"id": "impossible", "instruction": LEFT,
         "goal": ["left_of(red_block, blue_box)", "right_of(red_block, blue_box)"],
         "tags": ["spatial", "contradiction"]},
        {"id": "bad-object", "instruction": "put the purple block in the blue box",
         "expect_error": "unknown_object", "tags": ["error"]},
    ],
}  # fmt: skip
DATE = datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def fixed_suite() -> dict[str, Any]:
    """TINY with the impossible goal made possible, and one case swapped for another."""
    data = json.loads(json.dumps(TINY))
    data["cases"][1]["goal"] = ["left_of(red_block, blue_box)"]
    data["cases"][2] = {
        "id": "bad-object-2",
        "instruction": "put the pink block in the blue box",
        "expect_error": "unknown_object",
        "tags": ["error"],
    }
    return data


@pytest.fixture(scope="module")
def suite() -> Suite:
    return Suite.model_validate(TINY)


@pytest.fixture(scope="module")
def result(suite: Suite) -> SuiteResult:
    return run_suite(suite, "offline")


@pytest.fixture(scope="module")
def fixed() -> SuiteResult:
    """The fixed suite's result (offline): what the tiny suite's is compared with."""
    return run_suite(Suite.model_validate(fixed_suite()), "offline")


@pytest.fixture(scope="module")
def report(result: SuiteResult, suite: Suite, tmp_path_factory: pytest.TempPathFactory) -> Report:
    return write_report(result, tmp_path_factory.mktemp("report"), suite, date=DATE)


@pytest.mark.slow
def test_the_tiny_suite_fails_only_its_impossible_case(result: SuiteResult) -> None:
    assert [c.success for c in result.cases] == [True, False, True]
    assert result.cases[1].goal_recall == 0.5 and result.cases[1].sim_seconds > 0


@pytest.mark.slow
def test_report_files(report: Report, result: SuiteResult) -> None:
    folder = report.folder
    for name in ("report.md", "report.html", "results.json"):
        assert (folder / name).is_file(), name
    for plot in report.plots.values():
        assert plot.parent == folder / "plots"
        with Image.open(plot) as image:
            assert image.format == "PNG" and image.width >= 400
    assert SuiteResult.model_validate_json((folder / "results.json").read_text()) == result

    md = report.markdown.read_text()
    assert "# Evaluation report: tiny" in md
    assert "**Planner:** offline" in md and "2025-01-02 03:04:05" in md
    assert "| success rate | 66.7 % |" in md
    assert re.search(r"^\| contradiction \| 1 \| 0\.0 % \|", md, re.M)
    assert "## Failures (1)" in md
    assert "- **impossible**: goal not reached (right_of(red_block, blue_box)" in md
    assert "(failures/impossible.gif)" in md
    assert "(plots/success_per_tag.png)" in md and "(plots/sim_seconds_per_case.png)" in md
    assert "**left**" not in md  # only failures are listed as failures


@pytest.mark.slow
def test_the_html_is_self_contained(report: Report) -> None:
    page = report.html.read_text()
    sources = re.findall(r'src="([^"]*)"', page)
    assert sources and all(s.startswith("data:image/") for s in sources)
    pngs = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    gifs = re.findall(r'src="data:image/gif;base64,([^"]+)"', page)
    assert len(pngs) == 2 and len(gifs) == 1
    for png in pngs:
        assert Image.open(io.BytesIO(base64.b64decode(png))).format == "PNG"
    frames = iio.imread(base64.b64decode(gifs[0]), extension=".gif", index=None)
    assert frames.shape[0] > 1
    assert "impossible" in page and "right_of(red_block, blue_box)" in page
    assert "&lt; 5.0 cm" in page  # reasons are escaped
    assert "<table>" in page and "<style>" in page


@pytest.mark.slow
def test_a_failed_case_gets_a_gif_that_decodes(report: Report, result: SuiteResult) -> None:
    assert [f.case.id for f in report.failures] == ["impossible"]
    failure = report.failures[0]
    assert failure.gif == report.folder / "failures" / "impossible.gif"
    assert failure.note == ""  # the recorded run is the evaluated one
    frames = iio.imread(failure.gif, index=None)
    # 10 frames per simulated second, 240 x 320
    assert frames.shape[1:] == (240, 320, 3)
    assert frames.shape[0] >= int(result.cases[1].sim_seconds * 10)
    assert frames[0].std() > 5 and not (frames[0] == frames[-1]).all()
    assert sorted(p.name for p in (report.folder / "failures").iterdir()) == ["impossible.gif"]


@pytest.mark.slow
def test_without_the_suite_there_are_no_gifs(result: SuiteResult, tmp_path: Path) -> None:
    stale = tmp_path / "failures" / "old.gif"
    stale.parent.mkdir()
    stale.write_bytes(b"GIF89a")
    written = write_report(result, tmp_path, date=DATE)
    assert not stale.exists()
    assert written.failures[0].gif is None and "no recording" in written.failures[0].note
    assert "data:image/gif" not in written.html.read_text()
    assert "no recording" in written.markdown.read_text()


@pytest.mark.slow
def test_a_passing_run_says_so(tmp_path: Path) -> None:
    only = Suite.model_validate({**TINY, "cases": [TINY["cases"][0]]})
    written = write_report(run_suite(only, "offline"), tmp_path, only)
    assert written.failures == []
    assert "every case succeeded" in written.markdown.read_text()
    assert not list((tmp_path / "failures").iterdir())


def test_file_names_of_odd_ids() -> None:
    used: set[str] = set()
    assert _file_name("a/b c", used) == "a_b_c"
    assert _file_name("a b/c", used) == "a_b_c_2"
    assert _file_name("..", used) == "case"


@pytest.mark.slow
def test_compare(result: SuiteResult, fixed: SuiteResult) -> None:
    other = fixed
    comparison = compare(result, other, "a.json", "b.json")
    assert [(c.id, c.change, c.a, c.b) for c in comparison.changed] == [
        ("impossible", "fixed", False, True)
    ]
    assert comparison.fixed and not comparison.broken
    success = comparison.overall["success_rate"]
    assert (success.a, success.b) == (0.6667, 1.0) and success.delta == pytest.approx(0.3333)
    assert comparison.per_tag["contradiction"]["success_rate"].delta == 1.0
    assert comparison.per_tag["spatial"]["goal_recall"].delta == pytest.approx(0.25)
    assert comparison.per_tag["error"]["success_rate"].delta == 0.0
    assert comparison.only_in_a == ["bad-object"] and comparison.only_in_b == ["bad-object-2"]
    back = compare(other, result)
    assert [(c.id, c.change) for c in back.changed] == [("impossible", "broken")]
    assert back.overall["success_rate"].delta == pytest.approx(-0.3333)


@pytest.mark.slow
def test_compare_a_tag_only_one_side_has(result: SuiteResult) -> None:
    data = json.loads(result.model_dump_json())
    data["per_tag"]["new"] = data["per_tag"].pop("contradiction")
    comparison = compare(result, SuiteResult.model_validate(data))
    assert comparison.per_tag["new"]["success_rate"].a is None
    assert comparison.per_tag["new"]["success_rate"].delta is None
    assert comparison.per_tag["contradiction"]["cases"].b is None
    assert comparison.changed == []


@pytest.mark.slow
def test_reports_that_cannot_be_read(tmp_path: Path, result: SuiteResult) -> None:
    with pytest.raises(InvalidReportError, match="not found"):
        load_report(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(InvalidReportError, match="not a JSON file"):
        load_report(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text('{"instruction": "x"}')
    with pytest.raises(InvalidReportError, match="not a claw eval --json report"):
        load_report(tmp_path / "other.json")
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "results.json").write_text(result.model_dump_json())
    (tmp_path / "a.json").write_text(result.model_dump_json())
    assert compare_files(tmp_path / "a.json", tmp_path / "r").changed == []


@pytest.mark.slow
def test_the_command_writes_a_report_and_compares(
    tmp_path: Path,
    fixed: SuiteResult,
    claw_in_process: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    claw = claw_in_process  # the commands in this process: a new one per command adds only imports
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(TINY))
    a, b, out = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "out"
    run = claw("eval", tmp_path / "tiny.yaml", "--json", a, "--report", out)
    assert run.returncode == 1, run.stdout + run.stderr  # a case failed
    assert "report.html" in run.stdout
    assert (out / "report.md").is_file() and (out / "failures" / "impossible.gif").is_file()
    assert "data:image/gif;base64," in (out / "report.html").read_text()
    assert json.loads(a.read_text())["per_tag"]["contradiction"]["success_rate"] == 0.0
    b.write_text(
        fixed.model_dump_json()
    )  # as --json writes it (claw eval: tests/eval/test_eval.py)

    diff = claw("eval", "compare", a, b, "--json", tmp_path / "cmp.json")
    assert diff.returncode == 0, diff.stdout + diff.stderr
    assert "fixed" in diff.stdout and "impossible" in diff.stdout and "+33.3 pp" in diff.stdout
    assert "only in A: bad-object" in diff.stdout
    saved = json.loads((tmp_path / "cmp.json").read_text())
    assert saved["changed"][0]["id"] == "impossible" and saved["changed"][0]["change"] == "fixed"
    assert saved["per_tag"]["contradiction"]["success_rate"]["delta"] == 1.0
    # A report folder stands for its results.json.
    assert "broken" in claw("eval", "compare", b, out).stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["compare", "a.json"], "compare needs at least two results, got 1"),
        (["compare", "a.json", "b.json", "--report", "x"], "No such option: --report"),
        (["compare", "missing.json", "missing.json"], "invalid_report"),
        (["basic", "extra.json"], "unexpected extra argument(s) (extra.json)"),
    ],
)
def test_command_misuse(args: list[str], needle: str, tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "claw", "eval", *args],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 2 and needle in run.stderr, run.stdout + run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and run.stdout == ""


def test_a_case_whose_scene_cannot_be_built_has_no_gif(tmp_path: Path) -> None:
    overlap = {
        "objects": [{"type": "block", "color": c, "pose": [0.45, 0.0]} for c in ["red", "blue"]]
    }
    case = {
        "id": "overlap",
        "instruction": LEFT,
        "scene": overlap,
        "goal": ["at(red_block, center)"],
    }
    broken = Suite.model_validate({"name": "broken", "cases": [case]})
    written = write_report(run_suite(broken, "offline"), tmp_path, broken)
    assert written.failures[0].gif is None
    assert "no recording: invalid scene" in written.failures[0].note
    assert "overlap" in written.html.read_text()
