"""The layering the docs state (docs/concepts/flow.md, "Rules the layers keep"): imports run CLI →
eval / learning → runtime → planner → library → skills → perception → envs → common; each layer
has one public surface (``__all__``) and its own exceptions under ``ClawError``. Inside the
planner, the pipeline's stages run one way too: language → grounding → steps → the offline
planner → the LLM side → the registry, on a foundation of plan contracts."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RANK = {
    "claw": 0,
    "eval": 1,
    "learning": 1,
    "runtime": 2,
    "planner": 3,
    "library": 4,
    "skills": 5,
    "perception": 6,
    "envs": 7,
    "common": 8,
}
FOLDER = {"claw": "claw", **{name: name for name in RANK if name != "claw"}}
PACKAGES = (
    "common",
    "envs",
    "perception",
    "skills",
    "library",
    "planner",
    "runtime",
    "eval",
    "learning",
)


def claw_imports(path: Path) -> list[tuple[int, str]]:
    """(line, layer) of every ``claw.*`` import in a file, at any depth."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "claw" and len(parts) > 1 and parts[1] in RANK:
                found.append((node.lineno, parts[1]))
            elif parts[0] == "claw" and len(parts) > 1:
                found.append((node.lineno, "claw"))
    return found


@pytest.mark.parametrize("layer", list(RANK))
def test_imports_run_one_way(layer: str) -> None:
    wrong = []
    for path in sorted((ROOT / FOLDER[layer]).rglob("*.py")):
        for line, target in claw_imports(path):
            if target == "prompts":
                continue
            same = target == layer
            below = RANK[target] > RANK[layer]
            if not (same or below):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports claw.{target}")
    assert not wrong, "imports against the layers' direction:\n" + "\n".join(wrong)


# The planner's rooms, in pipeline order: a room may import its own and those before it.
PLANNER_ROOMS = {
    "exceptions": 0,  # the foundation: errors, the plan contract, what every planner is
    "plan": 0,
    "base": 0,
    "text": 0,
    "language": 1,  # text -> requests, knowing no scene
    "grounding": 2,  # requests + scene -> goal predicates
    "steps": 3,  # goal predicates + scene -> skill calls
    "offline": 4,  # the three stages chained
    "llm": 5,  # a model writes the plan or the goal (goal mode uses the offline step writer)
    "registry": 6,  # planners by name, and the families claw registers
    "families": 6,
    "__init__": 7,
}


def planner_room(parts: list[str]) -> str:
    """The room of ``claw.planner.<parts>``: its stage package, or its top-level module."""
    return parts[0] if parts else "__init__"


def test_planner_stages_import_no_later_one() -> None:
    folder = ROOT / "planner"
    rooms = {planner_room(list(p.relative_to(folder).with_suffix("").parts)) for p in
             folder.rglob("*.py")}  # fmt: skip
    assert rooms <= set(PLANNER_ROOMS), f"rooms without a rank: {rooms - set(PLANNER_ROOMS)}"
    wrong = []
    for path in sorted(folder.rglob("*.py")):
        room = planner_room(list(path.relative_to(folder).with_suffix("").parts))
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "claw.planner":
                names = [f"claw.planner.{a.name}" for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                parts = name.split(".")
                if parts[:2] != ["claw", "planner"]:
                    continue
                target = planner_room(parts[2:])  # a name of the public surface: __init__
                target = target if target in PLANNER_ROOMS else "__init__"
                if PLANNER_ROOMS[target] > PLANNER_ROOMS[room]:
                    wrong.append(f"{path.relative_to(ROOT)}:{node.lineno} ({room}) imports {name}")
    assert not wrong, "a planner stage imports a later one:\n" + "\n".join(sorted(set(wrong)))


@pytest.mark.parametrize("package", PACKAGES)
def test_each_layer_exports_its_api(package: str) -> None:
    module = importlib.import_module(f"claw.{package}")
    exported = getattr(module, "__all__", None)
    assert exported, f"claw.{package} has no __all__"
    missing = [name for name in exported if not hasattr(module, name)]
    assert not missing, f"claw.{package}.__all__ names what it lacks: {missing}"


@pytest.mark.parametrize("package", PACKAGES)
def test_each_layer_owns_its_errors(package: str) -> None:
    from claw.common import ClawError

    exceptions = importlib.import_module(f"claw.{package}.exceptions")
    classes = [
        c
        for _, c in inspect.getmembers(exceptions, inspect.isclass)
        if issubclass(c, BaseException) and c.__module__ == exceptions.__name__
    ]
    assert classes, f"claw.{package}.exceptions defines no exception"
    for cls in classes:
        assert issubclass(cls, ClawError), cls
        assert isinstance(cls.kind, str) and (cls is ClawError or cls.kind != "error"), cls
    module = importlib.import_module(f"claw.{package}")
    for cls in classes:
        assert getattr(module, cls.__name__, None) is cls, f"claw.{package} hides {cls.__name__}"


def test_no_exception_class_outside_the_exceptions_modules() -> None:
    stray = []
    for folder in FOLDER.values():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name == "exceptions.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ClassDef) and any(
                    isinstance(base, ast.Name) and base.id.endswith(("Error", "Exception"))
                    for base in node.bases
                ):
                    stray.append(f"{path.relative_to(ROOT)}: {node.name}")
    assert not stray, "exceptions belong in the layer's exceptions.py:\n" + "\n".join(stray)


# A document is cited by its capitalised name: ``README.md``, or ``(README, "Section")``; a docs
# page by its path, with the section it means where it names one: ``(docs/x.md, "Section")``.
CITATION = re.compile(r"\b([A-Z][A-Z_]+\.md)\b|\(([A-Z][A-Z_]{2,}),?\s+\"[A-Z][^\"]*\"\)")
PAGE = re.compile(r"\b(docs/[\w/.-]+\.md)(?:,\s+\"([^\"]+)\")?")


def test_every_cited_document_is_in_the_repository() -> None:
    """Code and tests cite only documents the repository ships (``README.md``, ``CAP.md``, …),
    and docs pages that exist, with the sections they name."""
    shipped = {p.name for p in ROOT.rglob("*.md") if ".git" not in p.parts}
    shipped |= {name.removesuffix(".md") for name in shipped}
    for folder in [*FOLDER.values(), "tests"]:
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text()
            for match in CITATION.finditer(text):
                cited = Path(match.group(1) or match.group(2)).name
                assert cited in shipped, f"{path.name} cites {cited}, which is not shipped"
            for match in PAGE.finditer(text if path != Path(__file__) else ""):
                page = ROOT / match.group(1)
                assert page.is_file(), f"{path.name} cites {match.group(1)}, which does not exist"
                section = " ".join(match.group(2).split()) if match.group(2) else None
                headings = {line.lstrip("#").strip() for line in page.read_text().splitlines()
                            if line.startswith("#")}  # fmt: skip
                assert section is None or section in headings, (
                    f'{path.name} cites {match.group(1)}, "{section}", which it has no heading of'
                )


def module_files() -> dict[str, Path]:
    """Every claw module by its dotted name, as pyproject's package-dir lays the folders out."""
    found: dict[str, Path] = {}
    for package, folder in {"claw": "claw", **{f"claw.{n}": n for n in PACKAGES}}.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if package == "claw" and len(parts) > 1:
                continue
            found[".".join([package, *parts]).removesuffix(".__init__")] = path
    return found


def import_graph() -> dict[str, set[str]]:
    """Which claw modules each module imports (at any depth, lazily too), package surfaces
    (``__init__``) left out: a package importing its own modules is no circle."""
    files = module_files()
    modules = {name for name, path in files.items() if path.name != "__init__.py"}
    graph: dict[str, set[str]] = {}
    for name in modules:
        targets: set[str] = set()
        for node in ast.walk(ast.parse(files[name].read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                targets |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
            elif isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
        graph[name] = (targets & modules) - {name}
    return graph


def test_no_module_imports_itself_through_others() -> None:
    graph = import_graph()
    circles = []
    for start in sorted(graph):
        seen, frontier = set(), list(graph[start])
        while frontier:
            node = frontier.pop()
            if node == start:
                circles.append(start)
                break
            if node not in seen:
                seen.add(node)
                frontier.extend(graph[node])
    assert not circles, f"modules in an import circle: {circles}"


@pytest.mark.parametrize("layer", ["skills", "library"])
def test_the_planner_asks_skills_and_the_library_through_their_surface(layer: str) -> None:
    """What the planner needs of a skill (its geometry, its limits) or of the library it asks of
    ``claw.skills`` / ``claw.library``, never of their modules."""
    drawers = []
    for path in sorted((ROOT / "planner").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            drawers += [
                f"{path.relative_to(ROOT)}:{node.lineno} imports {name}"
                for name in names
                if name.startswith(f"claw.{layer}.")
            ]
    assert not drawers, f"the planner reaches into claw.{layer}'s modules:\n" + "\n".join(drawers)
