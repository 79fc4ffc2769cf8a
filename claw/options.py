"""Options several commands take, defined once with their help and defaults."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Annotated

import typer

from claw.output import Prefer

if TYPE_CHECKING:
    from claw.planner.llm.completion import ModelSettings


def seed_callback(value: int) -> int:
    """Refuse, as a usage error, a seed ``claw.envs.check_seed`` refuses (the one rule)."""
    from claw.envs.exceptions import InvalidSeedError
    from claw.envs.seeding import check_seed

    try:
        return check_seed(value)
    except InvalidSeedError as exc:
        raise typer.BadParameter(str(exc)) from None


JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
Seed = Annotated[
    int,
    typer.Option(callback=seed_callback, help="Seed of the scene's sampled poses (0 … 2^32−1)."),
]
Timeout = Annotated[
    float,
    typer.Option(min=0.1, help="Seconds one LLM call may take (a deadline, retries apart)."),
]
DEFAULT_TIMEOUT = 30.0
ApiBase = Annotated[
    str | None, typer.Option(help="An OpenAI-compatible endpoint ($CLAW_API_BASE).")
]
Temperature = Annotated[
    float,
    typer.Option(min=0.0, max=2.0, help="The LLM's sampling temperature (0: as reproducible "
                 "as the provider allows)."),
]  # fmt: skip
MaxTokens = Annotated[
    int | None,
    typer.Option(min=1, help="The longest LLM answer asked for (default: what a plan of "
                 "--max-steps steps needs)."),
]  # fmt: skip
Planner = Annotated[
    str | None,
    typer.Option(
        help='offline (the default; for claw "…" offline+$CLAW_MODEL where CLAW_MODEL is '
        "set), a litellm model, local (claw llm serve), replay:FILE, or in claw eval "
        "mock:oracle, mock:literal, mock:noisy:P, mock:faulty:P; offline+MODEL plans offline "
        "what the offline reader reads and asks MODEL (any of those) for the rest."
    ),
]
PreferOption = Annotated[
    Prefer | None,
    typer.Option(
        "--prefer",
        help="Where a skill has both, run the learned policy or the controller "
        "(default: the one with the best measured success).",
    ),
]
PerceptionOption = Annotated[
    str,
    typer.Option(
        "--perception",
        help="What the planner and the skills see: truth (the simulator's state), camera "
        "(two RGB-D views and the arm's joints), or a registered perceiver. The goal is "
        "judged on the truth either way.",
    ),
]
SensorNoiseFlag = Annotated[
    bool,
    typer.Option(
        "--sensor-noise",
        help="Turn on the sensor model: depth and RGB noise, lighting, calibration error, "
        "frames two control steps late, action noise.",
    ),
]
ObsOption = Annotated[
    str,
    typer.Option(
        "--obs",
        metavar="MODE",
        help="The training env's observation mode: state (positions), depth or rgbd (the wrist "
        "camera and a crop of the front view around the claw, no object state), state+depth, "
        "state+rgbd.",
    ),
]
NoCache = Annotated[
    bool,
    typer.Option(
        "--no-cache",
        help="Ask the model even where its answer to the same request is kept, and keep no "
        "answer ($CLAW_HOME/cache/answers; also CLAW_ANSWER_CACHE=off).",
    ),
]
MaxSteps = Annotated[
    int | None,
    typer.Option(min=1, help="Refuse plans longer than this many steps (default 50)."),
]


class StructuredMode(str, Enum):
    """How an LLM's answer is constrained (``claw.planner.llm.schema.response_format``)."""

    auto = "auto"
    schema = "schema"
    json = "json"
    off = "off"


Structured = Annotated[
    StructuredMode,
    typer.Option(
        help="How an LLM's answer is constrained: auto (the plan's schema where the provider "
        "takes one, else JSON mode), schema, json (JSON mode only) or off."
    ),
]


class LlmMode(str, Enum):
    """Who writes an LLM plan's steps (``claw.planner.llm.goal_mode``)."""

    steps = "steps"
    goal = "goal"
    auto = "auto"


LlmModeOption = Annotated[
    LlmMode | None,
    typer.Option(
        help="steps: the model's steps run; goal: the model states the goal and claw's step "
        "generator writes the steps; auto: goal mode where the answer states a goal "
        "(default: steps; goal for the model of offline+MODEL).",
        show_default=False,
    ),
]


def model_settings(
    api_base: str | None,
    timeout: float,
    temperature: float,
    max_tokens: int | None,
    structured: StructuredMode,
    llm_mode: LlmMode | None,
    cache: bool = True,
) -> ModelSettings:
    """The LLM options ``claw "…"`` and ``claw eval`` share, as one ``ModelSettings``
    (``llm_mode`` ``None``: each planner's own default; ``cache``: not ``--no-cache``)."""
    from claw.planner.llm.completion import ModelSettings

    return ModelSettings(
        api_base=api_base,
        timeout=timeout,
        temperature=temperature,
        max_tokens=max_tokens,
        structured=structured.value,
        llm_mode=None if llm_mode is None else llm_mode.value,
        cache=cache,
    )


def _ray_address(value: str | None) -> str | None:
    if value is None:
        return None
    from claw.eval.ray_connect import check_address

    try:
        return check_address(value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


RayOption = Annotated[
    str | None,
    typer.Option(
        "--ray",
        metavar="[ADDRESS]",
        callback=_ray_address,
        help="Run on Ray: alone, a local Ray started for the run; auto (the running cluster), "
        "ray://HOST:10001 or HOST:PORT, which has 30 s to answer (CLAW_RAY_TIMEOUT=SECONDS). "
        "Needs Ray (the ray extra).",
    ),
]

TrackerOption = Annotated[
    str | None,
    typer.Option(
        "--tracker",
        metavar="mlflow",
        help="Also log to an experiment tracker: mlflow (params, metrics at each evaluation, "
        "config, meta.json, the policy, a video).",
    ),
]
TrackingUriOption = Annotated[
    str | None,
    typer.Option(
        "--tracking-uri",
        metavar="URI",
        help="Where MLflow keeps runs (default: MLFLOW_TRACKING_URI, else MLflow's local store "
        "in the working directory).",
    ),
]
