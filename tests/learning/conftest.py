"""Fixtures of the learning tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def minari_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Minari's dataset folder, empty, in the test's own temporary folder."""
    root = tmp_path / "datasets"
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(root))
    return root
