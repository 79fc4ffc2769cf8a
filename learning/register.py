"""Register a trained policy in the skill library as a ``policy`` implementation of its skill."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claw.learning.evaluate import MEASURED_WITHIN, evaluate_policy
from claw.learning.exceptions import InvalidConfigError
from claw.learning.export import write_config
from claw.library.builtins import implementation_ref, policy_metrics
from claw.library.files import git_commit
from claw.library.manifest import Provenance, SkillRecord
from claw.library.storage import SkillLibrary
from claw.skills.learned import LEARNED_SKILLS, PolicySkill
from claw.skills.policy import CONFIG_FILE, WEIGHTS_FILE, PolicyConfig, PolicyNetwork


def register_policy(
    policy_dir: str | Path,
    episodes: int = 200,
    library: SkillLibrary | None = None,
    training_config: dict[str, Any] | None = None,
) -> list[SkillRecord]:
    """Measure an exported policy on ``episodes`` fresh episodes and add it to the library, as
    the implementation of each skill it serves (``pick_place``: ``pick`` and ``place``).

    The record's artifacts are the weights and the config (sha256 in the manifest); its metrics
    are the success rate within the skill's own tolerance (``push``: the controller's 2 cm, not
    the training env's 5 cm), with the conditions it was measured under.

    Raises:
        InvalidConfigError: the policy's task has no skill to implement.
        ArtifactError: the exported files are missing or inconsistent.
        LibraryError: the library cannot be written (found before measuring).
    """
    folder = Path(policy_dir)
    network = PolicyNetwork.load(folder)
    if network.config.task not in LEARNED_SKILLS:
        raise InvalidConfigError(
            f"no skill takes a {network.config.task!r} policy; allowed: {', '.join(LEARNED_SKILLS)}"
        )
    classes = LEARNED_SKILLS[network.config.task]
    library = library or SkillLibrary()
    library.check_writable()  # before measuring, not after
    tolerances = {t for t in (cls.tolerance() for cls in classes) if t}
    thresholds = tuple(sorted({*MEASURED_WITHIN, *tolerances}))
    evaluation = evaluate_policy(network, episodes=episodes, thresholds=thresholds)
    config = network.config.model_copy(update={"evaluation": evaluation})
    write_config(config, folder)  # the figures travel with the policy
    return [_register(library, cls, folder, evaluation, config, training_config) for cls in classes]


def _register(
    library: SkillLibrary,
    cls: type[PolicySkill[Any]],
    folder: Path,
    evaluation: dict[str, Any],
    config: PolicyConfig,
    training_config: dict[str, Any] | None,
) -> SkillRecord:
    return library.register(
        cls.name,
        kind="policy",
        implementation=implementation_ref(cls),
        description=cls.description,
        examples=cls.examples,
        params_schema=cls.Params.model_json_schema(),
        artifacts=[folder / WEIGHTS_FILE, folder / CONFIG_FILE],
        metrics=policy_metrics(cls, evaluation),  # within the skill's tolerance
        provenance=Provenance(
            source="trained",
            git_commit=git_commit(),
            training_config=training_config or config.training,
        ),
        tags=["learned", config.algo],
        observation=config.env_kwargs.get("obs_mode", "state"),
    )
