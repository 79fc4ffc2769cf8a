"""``claw bench all``'s results file, ``claw bench startup``, and the page rendered from a file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from claw.results import Results, load_results

FIXTURE = Path(__file__).parents[1] / "data" / "results_small.json"
SCRIPT = Path(__file__).parents[2] / "scripts" / "results_page.py"


def claw(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "claw", *map(str, args)], capture_output=True, text=True, timeout=120
    )


def render(results: Path, out: Path) -> str:
    """The page rendered in this process, as ``scripts/results_page.py`` renders it."""
    from claw.results_page import render

    return render(load_results(results), out, out.parent / "img" / "results", "results.json")


def test_the_results_model_round_trips() -> None:
    results = load_results(FIXTURE)
    again = Results.model_validate_json(results.model_dump_json())
    assert again == results
    assert results.entry("startup") is not None and results.entry("nothing") is None
    assert [e.name for e in results.failed()] == ["words"]


def test_a_quick_run_writes_a_valid_file(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = claw("bench", "all", "--quick", "--only", "env", "--json", out)
    assert result.returncode == 0, result.stderr
    results = load_results(out)
    assert results.quick and results.budget["env_steps"] == 200
    assert results.commit.sha is None or len(results.commit.sha) == 40
    assert {"claw", "python", "mujoco", "numpy", "torch", "gymnasium", "stable-baselines3",
            "litellm", "lark", "faiss"} <= set(results.versions)  # fmt: skip
    assert results.machine.cores >= 1 and results.machine.cpu and results.date
    assert [e.name for e in results.entries] == ["env/default", "env/dense"]
    for entry in results.entries:
        assert entry.status == "ok" and entry.command.startswith("claw bench env --scene ")
        assert entry.result["raw_steps_per_second"] > 0
    assert "--quick" in results.command


def test_a_failing_bench_is_recorded_and_the_others_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from claw import bench_plan
    from claw.bench_all import bench_all

    def broken() -> dict[str, int]:
        raise RuntimeError("it broke\nsecond line")

    monkeypatch.setattr(bench_plan, "env_runs", lambda b: [
        bench_plan.Run("env/broken", "env", "claw bench env", broken),
        bench_plan.Run("env/fine", "env", "claw bench env", lambda: {"figure": 1}),
    ])  # fmt: skip
    results = bench_all("claw bench all", tmp_path / "r.json", quick=True, only=["env"])
    assert [(e.name, e.status, e.error) for e in results.entries] == [
        ("env/broken", "failed", "RuntimeError: it broke"),
        ("env/fine", "ok", None),
    ]
    assert load_results(tmp_path / "r.json") == results


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = claw("bench", "all", "--only", "env,nonsense", "--json", tmp_path / "r.json")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error: invalid_input: unknown benchmark 'nonsense'; allowed: env, library, skills, "
        "planner, words, two-arm, imitation, policy, eval, perception, startup"
    )
    assert not (tmp_path / "r.json").exists()
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    rendered = subprocess.run(
        [sys.executable, str(SCRIPT), str(bad), "--out", str(tmp_path / "page.md")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert rendered.returncode == 2 and rendered.stderr.startswith("error: invalid_input: ")
    assert len(rendered.stderr.strip().splitlines()) == 1


def test_the_page_shows_the_file_s_figures(tmp_path: Path) -> None:
    results = load_results(FIXTURE)
    startup = results.entry("startup")
    assert startup is not None
    page = render(FIXTURE, tmp_path / "results.md")
    assert (tmp_path / "results.md").read_text() == page
    assert "0123456789abcdef0123456789abcdef01234567" in page and "2026-01-02T03:04:05" in page
    assert f"{startup.result['first_run_ratio']:.2f}×" in page
    assert f"`{startup.command}`" in page
    assert "| basic (2) |" in page  # the trust table's row
    assert "words`: OSError: a fixture's failed run" in page
    assert "--quick" in page
    for plot in ("startup", "planner_latency", "suites", "imitation"):
        assert f"img/results/{plot}.png" in page
        assert (tmp_path / "img" / "results" / f"{plot}.png").stat().st_size > 0


def test_the_page_follows_the_file_and_only_the_file(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    render(FIXTURE, first / "results.md")
    render(FIXTURE, second / "results.md")
    for name in ("results.md", "img/results/startup.png", "img/results/suites.png"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    changed = json.loads(FIXTURE.read_text())
    for entry in changed["entries"]:
        if entry["name"] == "startup":
            entry["result"]["first_run_ratio"] = 9.876
    edited = tmp_path / "changed.json"
    edited.write_text(json.dumps(changed))
    page = render(edited, second / "results.md")
    assert "9.88×" in page and "9.88×" not in (first / "results.md").read_text()


@pytest.mark.slow
def test_startup_measures_claw_against_its_floor() -> None:
    from claw.bench_startup import bench_startup

    result = bench_startup(repeats=1)
    assert result.run_success and result.physics_steps > 1000
    assert (
        len(result.first_run_seconds) == len(result.cold_seconds) == len(result.floor_seconds) == 1
    )
    assert result.first_run_ratio > 1 and result.floor_median > 0
    assert result.modules > 100 and result.subprocesses == len(result.subprocess_programs)


def test_the_census_counts_modules_compiled_from_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from claw.startup_probe import _from_source

    (tmp_path / "claw_fresh_module.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    before = _from_source()
    import claw_fresh_module  # noqa: F401

    try:
        assert _from_source() == before + 1
    finally:
        del sys.modules["claw_fresh_module"]


def test_the_census_writes_its_counts(tmp_path: Path) -> None:
    out = tmp_path / "census.json"
    probe = [sys.executable, "-m", "claw.startup_probe", "census", str(out), "--version"]
    done = subprocess.run(probe, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    said = json.loads(out.read_text())
    assert said["modules"] > 10 and said["from_source"] >= 0 and said["starts"] == []


def test_the_readme_block_is_rewritten_and_the_rest_kept(tmp_path: Path) -> None:
    from claw.results_page import README_END, README_START, readme_block, write_readme

    results = load_results(FIXTURE)
    readme = tmp_path / "README.md"
    readme.write_text(f"# title\n\n{README_START}\nold figures\n{README_END}\n\nmore\n")
    assert write_readme(results, readme)
    assert readme.read_text() == (
        f"# title\n\n{README_START}\n{readme_block(results)}\n{README_END}\n\nmore\n"
    )
    plain = tmp_path / "page.md"
    plain.write_text("# nothing to rewrite\n")
    assert not write_readme(results, plain) and plain.read_text() == "# nothing to rewrite\n"


def test_startup_children_get_the_users_rendering_backend_not_claws(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import claw
    from claw.bench_startup import _environment

    monkeypatch.setattr(claw, "MUJOCO_GL_GIVEN", None)
    monkeypatch.setenv("MUJOCO_GL", "egl")  # as `import claw.envs` sets it without a display
    assert "MUJOCO_GL" not in _environment(tmp_path)
    monkeypatch.setattr(claw, "MUJOCO_GL_GIVEN", "osmesa")
    assert _environment(tmp_path)["MUJOCO_GL"] == "osmesa"
    assert _environment(tmp_path)["CLAW_HOME"] == str(tmp_path)
