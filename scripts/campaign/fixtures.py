"""Fixtures made once by the real CLI (results, a cassette, a library), and a case's environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .inputs import TINY_SUITE
from .limits import API_KEY


def base_env(home: Path, claw_home: Path) -> dict[str, str]:
    """This process's environment without provider, proxy and claw settings, plus a case's own."""
    drop = ("CLAW_", "OPENAI_", "ANTHROPIC_", "AZURE_", "GEMINI_", "LITELLM_", "RAY_")
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(drop) and "proxy" not in k.lower()
    }
    home.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        CLAW_HOME=str(claw_home),
        MUJOCO_GL="egl",
        CLAW_EMBEDDER="hash",
        OPENAI_API_KEY=API_KEY,
        NO_PROXY="127.0.0.1,localhost",
        PYTHONUNBUFFERED="1",
    )
    return env


@dataclass
class Fixtures:
    """What the real CLI wrote once for every case to start from."""

    dir: Path
    base_json: bytes = b""
    oracle_json: bytes = b""
    cassette: bytes = b""
    library: Path | None = None
    warnings: list[str] = field(default_factory=list)

    def mutated_result(self, case_id: str | None = None, flip: bool = False) -> bytes:
        """The base result with its first case renamed and/or its success flipped."""
        data = json.loads(self.base_json or b'{"cases": []}')
        cases = data.get("cases") or []
        if cases and isinstance(cases[0], dict):
            if case_id is not None:
                cases[0]["id"] = case_id
            if flip:
                cases[0]["success"] = not cases[0].get("success", False)
        return json.dumps(data).encode()

    def huge_result(self, copies: int) -> bytes:
        """The base result with its first case copied `copies` times."""
        data = json.loads(self.base_json or b'{"cases": []}')
        template = (data.get("cases") or [{"id": "x", "success": True}])[0]
        data["cases"] = [{**template, "id": f"case-{n}"} for n in range(copies)]
        return json.dumps(data).encode()

    def cassette_with(self, content: str) -> bytes:
        """The recorded cassette with every answer replaced by `content`."""
        data = json.loads(self.cassette or b'{"answers": {}}')
        answers = data.get("answers")
        if isinstance(answers, dict):
            data["answers"] = {key: content for key in answers}
        return json.dumps(data).encode()

    def manifest_with_description(self, text: str) -> bytes:
        """The fixture library's manifest with every skill described as `text`."""
        assert self.library is not None
        data = json.loads((self.library / "manifest.json").read_bytes())
        for record in data.get("skills", []):
            record["description"] = text
        return json.dumps(data).encode()


def make_fixtures(root: Path) -> Fixtures:
    """Run the tiny suite (offline, and recorded with mock:oracle) and list the skills once."""
    fixtures = Fixtures(root / "fixtures")
    fixtures.dir.mkdir(parents=True)
    (fixtures.dir / "tiny.yaml").write_text(TINY_SUITE)
    env = base_env(fixtures.dir / "home", fixtures.dir / "claw_home")

    def claw(*args: str) -> None:
        result = subprocess.run(
            [sys.executable, "-m", "claw", *args],
            cwd=fixtures.dir,
            env=env,
            capture_output=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
        if result.returncode not in (0, 1):
            fixtures.warnings.append(f"fixture `claw {' '.join(args)}` exited {result.returncode}")

    claw("eval", "tiny.yaml", "--json", "base.json")
    claw(
        "eval",
        "tiny.yaml",
        "--planner",
        "mock:oracle",
        "--record",
        "cassette.json",
        "--json",
        "oracle.json",
    )
    claw("skills", "list")
    for name, attr in (
        ("base.json", "base_json"),
        ("oracle.json", "oracle_json"),
        ("cassette.json", "cassette"),
    ):
        path = fixtures.dir / name
        if path.exists():
            setattr(fixtures, attr, path.read_bytes())
        else:
            fixtures.warnings.append(f"fixture {name} was not written")
    library = fixtures.dir / "claw_home" / "library"
    if (library / "manifest.json").exists():
        fixtures.library = library
    else:
        fixtures.warnings.append("fixture library has no manifest.json")
    return fixtures
