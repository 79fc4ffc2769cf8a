"""The skill library when things go wrong: tampered weights on every run path, folders that
cannot be written, undecodable manifests, what killed writers leave, tolerances of figures."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from claw.library.builtins import bundled_metrics, implementation_ref
from claw.library.exceptions import LibraryError
from claw.library.manifest import Metrics
from claw.library.storage import SkillLibrary
from claw.library.store import ORPHAN_AGE
from claw.skills.exceptions import ArtifactError
from claw.skills.executor import execute_calls
from claw.skills.learned import POLICIES_DIR, LearnedMoveTo, LearnedPush, PolicySkill
from claw.skills.policy import WEIGHTS_FILE, PolicyNetwork
from claw.skills.push import TOLERANCE

EMBEDDER = "hash"
PUSH_LEFT = "push the red block 10 cm to the left"
PUSH_CALL = {"skill": "push", "args": {"object": "red_block", "direction": "left", "distance": 0.1}}


def make(root: Path, builtins: bool = False) -> SkillLibrary:
    return SkillLibrary(root, register_builtins=builtins, embedder=EMBEDDER)


def run_in_fresh_process(script: str, claw_home: str) -> subprocess.CompletedProcess[str]:
    """``script`` in a new interpreter (nothing imported beforehand), ``CLAW_HOME`` set."""
    env = {**os.environ, "CLAW_HOME": claw_home, "CLAW_EMBEDDER": EMBEDDER}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )


# -- 1. the run path always takes policies from the library --------------------------------------

RUN_PREFER_LEARNED = """
    import json, sys
    import numpy as np
    from claw.envs.tabletop import TabletopEnv
    from claw.runtime import run_instruction
    from claw.planner.offline import OfflinePlanner

    env = TabletopEnv("default")
    env.reset(seed=4)
    before = env.data.qpos.copy()
    result = run_instruction(env, sys.argv[1], OfflinePlanner(), prefer="learned").model_dump()
    print(json.dumps({"error": result["error"], "steps": result["steps"],
                      "unmoved": bool(np.array_equal(before, env.data.qpos))}))
"""


@pytest.mark.slow
def test_prefer_learned_refuses_tampered_library_weights_in_a_fresh_process(
    tmp_path: Path,
) -> None:
    library = make(tmp_path / "library", builtins=True)
    record = next(
        r for r in library.latest_by_implementation() if r.implementation.endswith("LearnedPush")
    )
    weights = library.root / next(a.path for a in record.artifacts if a.path.endswith(WEIGHTS_FILE))
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0x01
    weights.write_bytes(bytes(data))

    script = RUN_PREFER_LEARNED.replace("sys.argv[1]", repr(PUSH_LEFT))
    done = run_in_fresh_process(script, str(tmp_path))
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout.strip().splitlines()[-1])
    assert run["error"] is not None and run["error"]["kind"] == "artifact_rejected", run
    assert str(weights) in run["error"]["message"]
    assert run["unmoved"]  # refused before anything moved


def test_the_executor_takes_policies_from_the_source_its_caller_gives(clear_env) -> None:
    asked: list[type[PolicySkill]] = []

    class Refusing:
        def policy(self, cls: type[PolicySkill]) -> PolicyNetwork:
            asked.append(cls)
            raise ArtifactError("not these weights")

    before = clear_env.data.qpos.copy()
    outcome = execute_calls(clear_env, [PUSH_CALL], prefer="learned", policies=Refusing())
    assert asked == [LearnedPush]
    assert outcome.steps[0].error == "artifact_rejected"
    assert (clear_env.data.qpos == before).all()


# -- 2. a library that cannot be written --------------------------------------------------------


def unwritable_root() -> Path:
    """A folder nobody can create, root included (tests run as root, where chmod stops nothing)."""
    return Path("/sys") / f"claw_test_{uuid.uuid4().hex[:8]}" / "library"


@pytest.fixture
def file_in_the_way(tmp_path: Path) -> Path:
    """A library folder whose parent is a regular file."""
    blocker = tmp_path / "home"
    blocker.write_text("not a folder")
    return blocker / "library"


@pytest.mark.parametrize("where", ["sys", "file"])
def test_an_unwritable_library_is_read_with_builtins_in_memory_and_noted_once(
    where: str, file_in_the_way: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = unwritable_root() if where == "sys" else file_in_the_way
    library = make(root, builtins=True)
    again = make(root, builtins=True)
    notes = [r.getMessage() for r in caplog.records if r.name.startswith("claw.")]
    err = "\n".join(notes)
    assert len(notes) == 1 and notes[0].startswith("note:") and "\n" not in err, err
    assert str(root) in err and "read-only" in err
    assert library.read_only is not None
    assert {r.name for r in library.latest()} == {r.name for r in again.latest()}
    assert library.get("push").name == "push"
    assert library.policy(LearnedPush).config.task == "push"  # the shipped files, checked
    assert library.measured_success()[("push", "learned")] > 0
    assert library.search("push the block", k=1)[0].record.name == "push"  # index in memory
    with pytest.raises(LibraryError, match=f"cannot write the skill library at {root}"):
        library.register("wave", kind="controller", implementation="t:T", description="wave")
    with pytest.raises(LibraryError, match=str(root)):
        library.check_writable()
    assert [r.getMessage() for r in caplog.records if r.name.startswith("claw.")] == notes
    assert not root.exists()


def test_register_policy_refuses_an_unwritable_library_before_measuring(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import claw.learning.register as register

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("measured although the result could not be stored")

    monkeypatch.setattr(register, "evaluate_policy", never)
    root = unwritable_root()
    with pytest.raises(LibraryError, match=str(root)) as refused:
        register.register_policy(POLICIES_DIR / "push", episodes=1, library=make(root))
    assert len(str(refused.value).splitlines()) == 1


RUN_TWO = """
    import json
    from claw.envs.tabletop import TabletopEnv
    from claw.runtime import run_instruction
    from claw.planner.offline import OfflinePlanner

    results = []
    for instruction, prefer in [("put the red block next to the blue box", None),
                                ("push the red block 10 cm to the left", "learned")]:
        env = TabletopEnv("default")
        env.reset(seed=4)
        result = run_instruction(env, instruction, OfflinePlanner(), prefer=prefer)
        results.append({"error": result.model_dump()["error"], "success": result.success})
    print(json.dumps(results))
"""


@pytest.mark.slow
def test_runs_work_offline_with_an_unwritable_claw_home() -> None:
    home = unwritable_root().parent
    done = run_in_fresh_process(RUN_TWO, str(home))
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert [r["error"] for r in results] == [None, None]
    assert all(r["success"] for r in results), results
    notes = [line for line in done.stderr.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and str(home / "library") in notes[0], done.stderr


# -- 3. a manifest that is not UTF-8 --------------------------------------------------------------


def test_a_manifest_that_is_not_utf8_is_an_error_naming_it(tmp_path: Path) -> None:
    library = make(tmp_path)
    library.register("wave", kind="controller", implementation="t:T", description="wave")
    library.manifest_path.write_bytes(b'{"format": 1, "skills": [\xff\xfe\x80]}')
    with pytest.raises(LibraryError, match=str(library.manifest_path)) as damaged:
        library.records()
    assert "UTF-8" in str(damaged.value) and len(str(damaged.value).splitlines()) == 1


# -- 4. what killed writers leave ---------------------------------------------------------------


def test_a_write_removes_old_orphans_and_keeps_what_is_named_or_recent(tmp_path: Path) -> None:
    source = tmp_path / "weights.bin"
    source.write_bytes(b"weights")
    library = make(tmp_path / "lib")
    record = library.register(
        "reach", kind="policy", implementation="t:T", description="d", artifacts=[source]
    )
    root = library.root
    named = root / record.artifacts[0].path
    past = time.time() - 10 * ORPHAN_AGE

    def aged(path: Path) -> Path:
        for p in [path, *path.rglob("*")] if path.is_dir() else [path]:
            os.utime(p, (past, past))
        return path

    def folder(rel: str) -> Path:
        path = root / rel
        path.mkdir(parents=True)
        (path / "policy.safetensors").write_bytes(b"half written")
        return path

    old_tmp = root / ".manifest.json.k1ll3d"
    old_tmp.write_bytes(b"{}")
    aged(old_tmp)
    old_index_tmp = root / ".index.json.x9"
    old_index_tmp.write_bytes(b"{}")
    aged(old_index_tmp)
    new_tmp = root / ".manifest.json.writing"  # a live writer's, just made
    new_tmp.write_bytes(b"{")
    orphan = aged(folder("artifacts/ghost/v1"))
    orphan_version = aged(folder("artifacts/reach/v7"))
    recent = folder("artifacts/ghost2/v1")
    aged(named.parent)  # named by the manifest: kept however old

    library.register("wave", kind="controller", implementation="t:T", description="wave")

    assert not old_tmp.exists() and not old_index_tmp.exists()
    assert not orphan.exists() and not orphan.parent.exists()
    assert not orphan_version.exists()
    assert new_tmp.exists() and recent.exists()
    assert named.read_bytes() == b"weights"
    assert library.artifact_paths(library.get("reach"))["weights.bin"] == named
    assert {r.name for r in library.records()} == {"reach", "wave"}


# -- 6. the learned push's recorded success at the controller's 2 cm ----------------------------


def test_shipped_policy_figures_are_recorded_at_the_skills_tolerance(tmp_path: Path) -> None:
    evaluation = json.loads((POLICIES_DIR / "push" / "policy.json").read_text())["evaluation"]
    metrics = bundled_metrics(LearnedPush)
    assert metrics is not None
    assert TOLERANCE == 0.02
    assert metrics.conditions["tolerance"] == TOLERANCE
    assert metrics.success_rate == evaluation["success_within"]["0.02"]
    assert metrics.conditions["env_threshold"] == 0.05
    reach = bundled_metrics(LearnedMoveTo)
    assert reach is not None and reach.conditions["tolerance"] == 0.02

    library = make(tmp_path, builtins=True)
    record = library.get("push", version=2)
    assert record.implementation == implementation_ref(LearnedPush)
    assert record.metrics is not None and record.metrics.success_rate == metrics.success_rate
    assert library.measured_success()[("push", "learned")] == evaluation["success_within"]["0.02"]


def test_a_library_holding_the_five_cm_figure_gets_the_two_cm_one(tmp_path: Path) -> None:
    library = make(tmp_path, builtins=True)
    old = Metrics(success_rate=0.985, episodes=200, conditions={"threshold": 0.05})
    library.record_metrics("push", implementation_ref(LearnedPush), old)  # as before the fix
    again = make(tmp_path, builtins=True)
    latest = max(
        (r for r in again.records() if r.implementation == implementation_ref(LearnedPush)),
        key=lambda r: r.version,
    )
    assert latest.version == 3 and latest.metrics is not None
    assert latest.metrics.conditions["tolerance"] == TOLERANCE
    assert make(tmp_path, builtins=True).records() == again.records()  # once


def test_register_policy_records_success_at_the_skills_tolerance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import claw.learning.register as register

    folder = tmp_path / "policy"
    shutil.copytree(POLICIES_DIR / "push", folder)
    asked: dict[str, object] = {}

    def fake_evaluation(network: object, episodes: int, thresholds: tuple[float, ...]) -> dict:
        asked["thresholds"] = thresholds
        return {
            "success_rate": 0.9,
            "episodes": episodes,
            "threshold": 0.05,
            "success_within": {"0.02": 0.5, "0.05": 0.9},
            "seed": 1_000_000,
        }

    monkeypatch.setattr(register, "evaluate_policy", fake_evaluation)
    (record,) = register.register_policy(folder, episodes=4, library=make(tmp_path / "lib"))
    assert TOLERANCE in asked["thresholds"]  # type: ignore[operator]
    assert record.metrics is not None and record.metrics.success_rate == 0.5
    assert record.metrics.conditions["tolerance"] == TOLERANCE
    assert record.metrics.conditions["env_success_rate"] == 0.9
