"""The skill library: persistence, versions, built-ins, concurrency, crashes, integrity, search."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from claw.library.builtins import implementation_ref
from claw.library.exceptions import LibraryError
from claw.library.index import INDEX_FILE, META_FILE
from claw.library.manifest import Metrics, Provenance
from claw.library.storage import SkillLibrary
from claw.skills import skill_names
from claw.skills.basic import Home
from claw.skills.exceptions import ArtifactError, UnknownSkillError

EMBEDDER = "hash"  # fast and dependency-free; retrieval quality is tested in test_embedding


def make(root: Path, builtins: bool = False) -> SkillLibrary:
    return SkillLibrary(root, register_builtins=builtins, embedder=EMBEDDER)


def add(library: SkillLibrary, name: str, **kwargs: object) -> object:
    fields: dict[str, object] = {
        "kind": "controller",
        "implementation": "tests:Nothing",
        "description": f"{name.replace('_', ' ')} for a test",
    }
    fields.update(kwargs)
    return library.register(name, **fields)  # type: ignore[arg-type]


def test_round_trip_keeps_every_field(tmp_path: Path) -> None:
    weights = tmp_path / "weights.safetensors"
    weights.write_bytes(b"\x00\x01weights")
    library = make(tmp_path / "lib")
    written = add(
        library,
        "reach",
        kind="policy",
        examples=["reach over there"],
        params_schema={"type": "object", "properties": {"x": {"type": "number"}}},
        artifacts=[weights],
        metrics=Metrics(success_rate=0.97, episodes=200, conditions={"tolerance": 0.02}),
        provenance=Provenance(source="trained", training_config={"algo": "sac"}),
        tags=["learned"],
    )
    reopened = make(tmp_path / "lib").get("reach")
    assert reopened == written
    assert reopened.artifacts[0].bytes == len(b"\x00\x01weights")
    assert (
        library.artifact_paths(reopened)["weights.safetensors"].read_bytes() == b"\x00\x01weights"
    )


def test_registering_a_name_again_adds_a_version(tmp_path: Path) -> None:
    library = make(tmp_path)
    add(library, "wave", description="wave once")
    add(library, "wave", description="wave twice")
    assert library.get("wave").version == 2
    assert library.get("wave").description == "wave twice"
    assert library.get("wave", version=1).description == "wave once"
    assert [r.key for r in library.latest()] == ["wave@2"]
    with pytest.raises(UnknownSkillError, match="versions: 1, 2"):
        library.get("wave", version=3)
    with pytest.raises(UnknownSkillError, match="the library has: wave"):
        library.get("dance")


def test_builtins_are_registered_at_first_use_once(tmp_path: Path) -> None:
    library = make(tmp_path, builtins=True)
    assert {r.name for r in library.latest()} == set(skill_names())
    assert library.get("home").implementation == implementation_ref(Home)
    assert library.get("home").provenance.source == "builtin"
    before = library.records()
    assert make(tmp_path, builtins=True).records() == before  # nothing new the second time


def test_a_changed_builtin_gets_a_new_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path, builtins=True)
    monkeypatch.setattr(Home, "description", "Return to rest, carefully.")
    library = make(tmp_path, builtins=True)
    assert library.get("home").version == 2
    assert library.get("home").description == "Return to rest, carefully."
    assert library.get("home", version=1).description != library.get("home").description


def test_builtins_are_checked_once_per_version_and_set_of_classes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from claw.library import storage

    make(tmp_path, builtins=True)
    checks: list[str] = []
    real = storage.changed

    def counted(record: object, cls: type) -> bool:
        checks.append(cls.__name__)
        return real(record, cls)  # type: ignore[arg-type]  # the record as given

    monkeypatch.setattr(storage, "changed", counted)
    make(tmp_path, builtins=True)
    assert checks == []  # a second open checks nothing: the fingerprint is unchanged
    monkeypatch.setattr("claw.__version__", "99.0")
    make(tmp_path, builtins=True)
    assert "Home" in checks  # a new claw version checks every class again
    checks.clear()
    make(tmp_path, builtins=True)
    assert checks == []  # checked once for the new version
    library = make(tmp_path)
    library.manifest_path.write_text(library.manifest_path.read_text() + "\n")
    make(tmp_path, builtins=True)
    assert checks  # a manifest changed since the check is checked again


def test_a_fresh_library_asks_git_once(tmp_path: Path) -> None:
    code = textwrap.dedent(
        f"""
        import subprocess, sys
        started = []
        sys.addaudithook(lambda e, a: started.append(a) if e == "subprocess.Popen" else None)
        from claw.library.storage import SkillLibrary
        SkillLibrary({str(tmp_path / "lib")!r})
        print(len(started))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) <= 1  # git rev-parse, once (it was once per built-in record)


def test_skill_class_comes_from_the_registry_never_from_the_manifest(tmp_path: Path) -> None:
    library = make(tmp_path, builtins=True)
    assert library.skill_class(library.get("home")) is Home
    add(library, "home", implementation="os:system")
    with pytest.raises(UnknownSkillError, match="not a registered skill"):
        library.skill_class(library.get("home"))


def test_damaged_manifest_is_a_clear_error(tmp_path: Path) -> None:
    library = make(tmp_path)
    add(library, "wave")
    library.manifest_path.write_text('{"format": 1, "skills": [{"name": 3')
    with pytest.raises(LibraryError, match=str(library.manifest_path)):
        library.records()
    library.manifest_path.write_text('{"format": 1, "skills": [{"name": "x"}]}')
    with pytest.raises(LibraryError, match="damaged"):
        library.records()


def test_tampered_artifact_is_refused(tmp_path: Path) -> None:
    weights = tmp_path / "policy.safetensors"
    weights.write_bytes(b"good weights")
    library = make(tmp_path / "lib")
    record = add(library, "reach", kind="policy", artifacts=[weights])
    stored = library.root / record.artifacts[0].path  # type: ignore[attr-defined]
    stored.write_bytes(b"evil weights")
    with pytest.raises(ArtifactError, match="refusing to load it"):
        library.artifact_paths(record)  # type: ignore[arg-type]
    stored.unlink()
    with pytest.raises(ArtifactError, match="missing"):
        library.artifact_paths(record)  # type: ignore[arg-type]


WRITER = textwrap.dedent(
    """
    import sys
    from claw.library.storage import SkillLibrary
    library = SkillLibrary(sys.argv[1], register_builtins=False, embedder="hash")
    for i in range(int(sys.argv[3])):
        library.register(f"{sys.argv[2]}_{i}", kind="controller", implementation="t:T",
                         description=f"skill {i} of writer {sys.argv[2]}")
    """
)


@pytest.mark.slow
def test_two_processes_registering_fifty_each_leave_exactly_a_hundred(tmp_path: Path) -> None:
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), name, "50"])
        for name in ("alpha", "beta")
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    library = make(tmp_path)
    records = library.records()
    assert len(records) == 100
    assert len({r.key for r in records}) == 100
    hits = library.search("skill 7 of writer beta", k=3)
    assert hits[0].record.name == "beta_7"
    meta = json.loads((tmp_path / META_FILE).read_text())
    assert len({key for key, _ in meta["rows"]}) == 100  # the index covers every record


KILLED_WRITER = textwrap.dedent(
    """
    import os, sys, time
    from claw.library import storage
    real_replace = os.replace
    def slow_replace(src, dst):
        print("writing", flush=True)
        time.sleep(30)  # killed here: the new manifest is written but not yet in place
        real_replace(src, dst)
    storage.os.replace = slow_replace
    library = storage.SkillLibrary(sys.argv[1], register_builtins=False, embedder="hash")
    library.register("doomed", kind="controller", implementation="t:T", description="never")
    """
)


@pytest.mark.slow
def test_a_write_killed_midway_leaves_the_previous_library_intact(tmp_path: Path) -> None:
    library = make(tmp_path)
    add(library, "survivor")
    before = library.manifest_path.read_bytes()
    writer = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "writing"
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=10)
    assert library.manifest_path.read_bytes() == before
    assert [r.name for r in make(tmp_path).records()] == ["survivor"]
    add(make(tmp_path), "after")  # the lock died with the writer: the library stays writable
    assert [r.name for r in make(tmp_path).records()] == ["survivor", "after"]


def test_index_is_persisted_and_reused(tmp_path: Path) -> None:
    library = make(tmp_path, builtins=True)
    library.search("pick up the cube")
    stamp = (tmp_path / INDEX_FILE).stat().st_mtime_ns
    time.sleep(0.01)
    make(tmp_path, builtins=True).search("open the claw")
    assert (tmp_path / INDEX_FILE).stat().st_mtime_ns == stamp  # loaded, not rebuilt


@pytest.mark.parametrize("damage", ["garbage", "delete", "stale_meta"])
def test_damaged_or_stale_index_is_rebuilt(tmp_path: Path, damage: str) -> None:
    library = make(tmp_path, builtins=True)
    expected = [h.record.name for h in library.search("open the gripper", k=3)]
    if damage == "garbage":
        (tmp_path / INDEX_FILE).write_bytes(b"not an index")
    elif damage == "delete":
        (tmp_path / INDEX_FILE).unlink()
    else:
        (tmp_path / META_FILE).write_text('{"fingerprint": "old", "rows": []}')
    again = make(tmp_path, builtins=True)
    assert [h.record.name for h in again.search("open the gripper", k=3)] == expected
    assert json.loads((tmp_path / META_FILE).read_text())["fingerprint"] != "old"


def test_a_new_skill_is_found_without_rebuilding_by_hand(tmp_path: Path) -> None:
    library = make(tmp_path, builtins=True)
    library.search("anything")
    add(library, "water_plants", description="Water the plants with the watering can.")
    assert library.search("water the plants", k=1)[0].record.name == "water_plants"


def test_filters_by_kind_and_tags(tmp_path: Path) -> None:
    library = make(tmp_path, builtins=True)
    add(library, "learned_push", kind="policy", description="Push a block", tags=["learned"])
    assert {h.record.kind for h in library.search("push a block", k=10, kind="policy")} == {
        "policy"
    }
    assert [h.record.name for h in library.search("push", k=5, tags=["learned"])] == [
        "learned_push"
    ]
    assert library.search("push", k=5, tags=["nonexistent"]) == []
    hits = library.search("push the block", k=3, kind="controller")
    assert hits[0].record.name == "push" and all(h.record.kind == "controller" for h in hits)
