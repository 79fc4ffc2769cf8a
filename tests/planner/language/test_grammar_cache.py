"""The reader's LALR tables are kept in ``$CLAW_HOME/cache/grammar`` and loaded from there; a
file that cannot be read is built again, and a home that cannot be written is no error."""

from __future__ import annotations

from pathlib import Path

import pytest

from claw.planner.language import parsing


def _build() -> parsing.Lark:
    return parsing._lark.__wrapped__()  # type: ignore[attr-defined]


def _tables(parser: parsing.Lark) -> tuple[object, ...]:
    """What the parser reads with: its LALR states, start states and terminals."""
    table = parser.parser.parser.parser.parse_table
    return table.states, table.start_states, sorted(t.name for t in parser.terminals)


def _shape(parser: parsing.Lark) -> tuple[object, ...]:
    """The size of its tables (two builds may number their states differently)."""
    states, starts, terminals = _tables(parser)
    return len(states), sorted(starts), terminals  # type: ignore[arg-type]


def _kept(home: Path) -> list[Path]:
    return sorted((home / "cache" / "grammar").glob("lalr-*.pickle"))


@pytest.mark.slow
def test_tables_are_kept_and_loaded_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAW_HOME", str(tmp_path))
    built = _build()
    (kept,) = _kept(tmp_path)
    loaded = _build()
    assert _kept(tmp_path) == [kept]  # not written again
    assert _tables(loaded) == _tables(built)


@pytest.mark.slow
def test_a_damaged_file_is_built_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAW_HOME", str(tmp_path))
    _build()
    (kept,) = _kept(tmp_path)
    kept.write_bytes(b"not a pickle")
    assert _shape(_build()) == _shape(parsing._lark())
    assert kept.read_bytes() != b"not a pickle"


def test_an_unwritable_home_only_costs_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.write_text("a file where the home folder should be")
    monkeypatch.setenv("CLAW_HOME", str(home))
    assert _shape(_build()) == _shape(parsing._lark())
