"""Evaluation suites: instructions and ground truth in YAML (docs/how-to/write-a-suite.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, get_args

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from claw.common.exceptions import ClawError
from claw.envs.exceptions import InvalidSceneError
from claw.envs.predicates import Predicate
from claw.envs.scene import SceneSpec
from claw.envs.seeding import check_seed
from claw.envs.yamlfile import YamlLimitError, read_yaml
from claw.eval.exceptions import InvalidSuiteError
from claw.planner.language.instruction import not_text

SUITES_DIR = Path(__file__).with_name("suites")
ErrorKind = Literal[
    "unknown_object", "unparseable", "unsupported", "ambiguous", "invalid_scene", "plan_too_long"
]


class ExpectedPush(BaseModel):
    model_config = ConfigDict(extra="forbid")

    object: str
    direction: Literal["left", "right", "far", "near"]
    distance: float = Field(gt=0, strict=True)


class Case(BaseModel):
    """One instruction and how to judge it: a ground-truth goal, or the error it must raise."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    instruction: str
    seed: int = 0
    fixed_seed: bool = False
    """The ground truth was written for this seed's layout (the instruction refers to where
    things stand): a sweep's seed offset leaves the case at its own seed."""
    scene: str | dict[str, Any] | None = None
    goal: list[Predicate] | None = None
    expect_error: ErrorKind | list[ErrorKind] | None = None
    """The error kind the run must stop with, or a list of the kinds accepted
    (``[ambiguous, unparseable]``)."""
    region_radius: float | None = Field(None, gt=0, le=0.25, strict=True)
    """How near (m) a region's anchor an ``at`` goal of this case must end, instead of
    ``AT_RADIUS`` (benchmarks judge regions at 10-11.5 cm)."""
    expect_push: ExpectedPush | None = None
    """A push asked for (no predicate describes a displacement): judged on the final state, the
    object must end within the push skill's tolerance (2 cm) of where it stood at reset plus
    ``distance`` along ``direction`` (``claw.eval.judging.judge_push``), whatever steps claimed."""
    tags: list[str] = Field(default_factory=list)

    @field_validator("instruction")
    @classmethod
    def _text(cls, instruction: str) -> str:
        problem = not_text(instruction)
        if problem is not None:  # bytes that are not UTF-8: no run, model or JSON can take it
            raise ValueError(f"not UTF-8 text: {problem}")
        return instruction

    @field_validator("seed", mode="before")
    @classmethod
    def _seed(cls, seed: Any) -> int:
        return check_seed(seed)  # an int as written: not true, "5" or 2.0

    @field_validator("expect_error", mode="before")
    @classmethod
    def _kinds(cls, value: Any) -> Any:
        """Each kind one of ``ErrorKind``'s, said in one line (not per member of the union)."""
        allowed = get_args(ErrorKind)
        for kind in value if isinstance(value, list) else [] if value is None else [value]:
            if kind not in allowed:
                raise ValueError(
                    f"{kind!r} is not an error kind; allowed: {', '.join(allowed)}, or a list "
                    "of them"
                )
        return value

    @model_validator(mode="after")
    def _one_verdict(self) -> Case:
        if (self.goal is None) == (self.expect_error is None):
            raise ValueError("give exactly one of goal and expect_error")
        if isinstance(self.expect_error, list) and not self.expect_error:
            raise ValueError("expect_error: an empty list; give one kind or a list of kinds")
        return self

    @property
    def expected_errors(self) -> tuple[str, ...]:
        """The error kinds the case accepts (none for a case with a goal)."""
        if self.expect_error is None:
            return ()
        kinds = self.expect_error if isinstance(self.expect_error, list) else [self.expect_error]
        return tuple(dict.fromkeys(kinds))

    def accepts_error(self, kind: str | None) -> bool:
        """Whether a run that stopped with the error ``kind`` (None: no error) is what the case
        expects."""
        return kind is not None and kind in self.expected_errors


class Suite(BaseModel):
    """A named list of cases sharing a default scene."""

    model_config = ConfigDict(extra="forbid")

    name: str
    scene: str | dict[str, Any] = "default"
    scenes: dict[str, Any] = Field(default_factory=dict)
    """Scenes to share between cases through YAML anchors (not used otherwise)."""
    cases: list[Case] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> Suite:
        seen: set[str] = set()
        for case in self.cases:
            if case.id in seen:
                raise ValueError(f"case id {case.id!r} is used twice")
            seen.add(case.id)
        return self

    def scene_of(self, case: Case) -> str | dict[str, Any]:
        return case.scene if case.scene is not None else self.scene


def suite_path(source: str | Path) -> Path:
    """A suite file's path: ``source`` as given, or a shipped one by name (``basic``)."""
    path = Path(source)
    if not path.exists() and (SUITES_DIR / f"{source}.yaml").exists():
        path = SUITES_DIR / f"{source}.yaml"
    return path


def load_suite(source: str | Path) -> Suite:
    """A suite from a YAML file, or a built-in suite by name (``basic``).

    YAML is read as scene files are (YAML 1.2 booleans, ``claw.envs.yamlfile``'s limits). Every
    case's scene (its own or the suite's) is built as a spec, so a bad one is refused here,
    before any case runs, except in a case that expects ``invalid_scene``.

    Raises:
        InvalidSuiteError: unreadable, not YAML, over a YAML limit, a case that does not
            validate or a scene that cannot be built; the message names the case (by id or
            position) and the field.
    """
    path = suite_path(source)
    try:
        data = read_yaml(path)
    except YamlLimitError as exc:
        raise InvalidSuiteError(f"suite file {path}: {exc}") from None
    except FileNotFoundError:
        raise InvalidSuiteError(f"suite file {path} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise InvalidSuiteError(f"suite file {path} cannot be read: {reason}") from None
    except yaml.YAMLError as exc:
        raise InvalidSuiteError(
            f"suite file {path} is not valid YAML: {exc}".splitlines()[0]
        ) from None
    if not isinstance(data, dict):
        raise InvalidSuiteError(f"suite file {path}: expected a mapping with name and cases")
    data.setdefault("name", path.stem)
    try:
        suite = Suite.model_validate(data)
    except ValidationError as exc:
        raise InvalidSuiteError(_where(exc, data, path)) from None
    except ClawError as exc:  # a goal predicate that does not parse
        raise InvalidSuiteError(f"suite file {path}: {exc}") from None
    _check_scenes(suite, path)
    return suite


def _check_scenes(suite: Suite, path: Path) -> None:
    """Build every case's scene spec (each distinct one once), but where the case expects
    ``invalid_scene``.

    Raises:
        InvalidSuiteError: the first case whose scene cannot be built, by id, and why.
    """
    built: set[int | str] = set()  # scenes by name, mappings by id (the suite's is shared)
    for case in suite.cases:
        scene = suite.scene_of(case)
        ref = scene if isinstance(scene, str) else id(scene)
        if case.accepts_error("invalid_scene") or ref in built:
            continue
        try:
            SceneSpec.load(scene)
        except InvalidSceneError as exc:
            where = f"case {case.id}: scene" if case.scene is not None else "scene"
            used = "" if case.scene is not None else f" (the scene of case {case.id})"
            raise InvalidSuiteError(f"suite file {path}: {where}: {exc}{used}") from None
        built.add(ref)


def _where(exc: ValidationError, data: dict[str, Any], path: Path) -> str:
    error = exc.errors()[0]
    loc = list(error["loc"])
    label = ".".join(str(p) for p in loc) or "suite"
    if len(loc) >= 2 and loc[0] == "cases" and isinstance(loc[1], int):
        cases = data.get("cases") or []
        case = cases[loc[1]] if loc[1] < len(cases) else {}
        name = case.get("id") if isinstance(case, dict) else None
        field = ".".join(str(p) for p in loc[2:])
        label = f"case {name or f'#{loc[1] + 1}'!s}" + (f": {field}" if field else "")
    message = error["msg"].removeprefix("Value error, ")
    return f"suite file {path}: {label}: {message}"
