"""The adversarial campaign's case table (scripts/adversarial_cases/) reads whole: every row
validates, ids are unique, and what a row names (a generator, a scenario, a check, a fake-model
behaviour, a text) exists. Nothing is run."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
API = re.compile(r"\{API:([a-z0-9_]+)\}")
#: Behaviours the fake server answers itself: by the instruction's marker, or set by a scenario.
SERVER_ROUTED = {"route", "custom"}


def campaign(module: str) -> ModuleType:
    """A module of scripts/campaign, imported as the runner imports it."""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    return importlib.import_module(f"campaign.{module}")


@pytest.fixture(scope="module")
def cases() -> list:
    return campaign("table").load_cases()


def commands(case: object) -> list:
    """The row's command, also where a scenario runs it (its `cmd` argument)."""
    script = getattr(case, "script", None)
    bound = getattr(script, "keywords", {}).get("cmd")
    return [c for c in (getattr(case, "cmd", None), bound) if c is not None]


def test_every_group_has_rows_and_ids_are_unique(cases: list) -> None:
    files = sorted(p.stem for p in (SCRIPTS / "adversarial_cases").glob("*.yaml"))
    assert sorted({c.group for c in cases}) == files
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 454


def test_every_behaviour_named_exists(cases: list) -> None:
    behaviours = set(campaign("answers").BEHAVIOURS) | SERVER_ROUTED
    named = {
        (case.id, name)
        for case in cases
        for cmd in commands(case)
        for text in [*cmd.args, *(v for v in cmd.env.values() if v)]
        for name in API.findall(text)
    }
    assert named, "no row names a behaviour"
    assert sorted((i, n) for i, n in named if n not in behaviours) == []


def test_every_file_is_made(cases: list, tmp_path: Path) -> None:
    fixtures = campaign("fixtures")
    library = tmp_path / "library"
    library.mkdir()
    (library / "manifest.json").write_text('{"skills": [{"name": "pick"}]}')
    result = b'{"success_rate": 1.0, "cases": [{"id": "next-to", "success": true}]}'
    fake = fixtures.Fixtures(
        tmp_path, base_json=result, oracle_json=result, cassette=b'{"answers": {"a": "x"}}'
    )
    fake.library = library
    for case in cases:
        for name, content in case.files.items():
            data = content(fake) if callable(content) else content
            assert isinstance(data, str | bytes), (case.id, name)


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ("{id: x, args: [run], exits: [2], deadline: SLOW}", "deadline: "),
        ("{id: x, args: [run], exits: [2], files: {a.yaml: {make: nope}}}", "files: a.yaml: "),
        ("{id: x, args: ['${NOPE}'], exits: [2]}", "args: no text ${NOPE}"),
        ("{id: x, args: [run], exits: [2], script: compare_json}", "script: compare_json runs"),
        ("{id: x, args: [run], exits: [2], server_check: {requests: {least: 1}}}", "server_check"),
        ("{id: x, args: [run], exits: [two]}", "exits.0: "),
        ("{id: x, args: [run]}", "exits: missing"),
        ("{id: x, args: [run], exits: [2], colour: red}", "colour: "),
    ],
)
def test_a_wrong_row_is_one_line_naming_file_case_and_field(
    tmp_path: Path, row: str, field: str
) -> None:
    table = campaign("table")
    path = tmp_path / "bad.yaml"
    path.write_text(f"- {row}\n")
    with pytest.raises(table.TableError) as error:
        table.load_file(path)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: case x: ")
    assert field in message, message


def test_deadlines_are_classes_by_name() -> None:
    limits = campaign("limits")
    assert limits.deadline_seconds("PHYS") == limits.PHYS
    assert limits.deadline_seconds("LLM_START + 2*LLM(10, 3)") == 60 + 2 * (60 + 3 * 40)
    with pytest.raises(ValueError, match="SLOW"):
        limits.deadline_seconds("SLOW")
    with pytest.raises(ValueError):
        limits.deadline_seconds("__import__('os')")
