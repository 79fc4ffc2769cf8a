"""Experiment tracking: ``--tracker mlflow`` on train, tune and eval, read with MLflow's client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from claw.learning.exceptions import InvalidConfigError
from claw.learning.tracking import TrackerSettings, flatten

TINY_TRAIN = (
    "--steps", "120", "--n-envs", "1", "--no-progress",
    "--hyperparams", "eval_freq=60", "--hyperparams", "eval_episodes=1",
    "--hyperparams", "algo_kwargs.learning_starts=60", "--hyperparams", "vec_env=dummy",
)  # fmt: skip


def only_run(uri: str, experiment: str) -> Any:
    from mlflow.tracking import MlflowClient

    client = MlflowClient(uri)
    found = client.get_experiment_by_name(experiment)
    assert found is not None, f"no experiment {experiment!r}"
    (run,) = client.search_runs([found.experiment_id])
    return client, run


def artifacts(client: Any, run_id: str, folder: str | None = None) -> set[str]:
    return {a.path for a in client.list_artifacts(run_id, folder)}


@pytest.mark.slow
def test_a_training_run_is_in_mlflow_with_params_metrics_and_artifacts(
    tmp_path: Path, claw_in_process
) -> None:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    result = claw_in_process(
        "train", "reach", *TINY_TRAIN, "--out", tmp_path / "run", "--json",
        "--tracker", "mlflow", "--tracking-uri", uri,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    client, run = only_run(uri, "claw train reach")
    assert run.info.status == "FINISHED" and run.info.run_name == "run"
    assert run.data.params["algo"] == "tqc" and run.data.params["total_timesteps"] == "120"
    assert run.data.params["algo_kwargs.learning_starts"] == "60"
    assert run.data.tags["skill"] == "reach" and run.data.tags["command"].startswith("claw train")
    history = client.get_metric_history(run.info.run_id, "eval/success_rate")
    assert [m.step for m in history] == [60, 120]
    assert artifacts(client, run.info.run_id) >= {"config.yaml", "meta.json", "policy", "eval"}
    assert artifacts(client, run.info.run_id, "policy") == {
        "policy/policy.json", "policy/policy.safetensors",
    }  # fmt: skip
    assert "eval/episode.mp4" in artifacts(client, run.info.run_id, "eval")
    assert (tmp_path / "run" / "eval" / "episode.mp4").stat().st_size > 1000


@pytest.mark.slow
def test_an_eval_run_is_in_mlflow(tmp_path: Path, claw_in_process) -> None:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    result = claw_in_process(
        "eval", "basic", "--limit", "2", "--tracker", "mlflow", "--tracking-uri", uri
    )
    assert result.returncode == 0, result.stderr
    client, run = only_run(uri, "claw eval basic")
    assert run.data.params["planner"] == "offline" and run.data.params["cases"] == "2"
    assert run.data.metrics["success_rate"] == 1.0
    assert "results.json" in artifacts(client, run.info.run_id)


@pytest.mark.slow
def test_each_tuning_trial_is_an_mlflow_run(tmp_path: Path, claw_in_process) -> None:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    result = claw_in_process(
        "tune", "reach", "--trials", "1", "--algo", "sac", "--steps", "60", "--n-envs", "1",
        "--eval-freq", "60", "--eval-episodes", "1", "--study-dir", tmp_path / "study",
        "--tracker", "mlflow", "--tracking-uri", uri, "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    _, run = only_run(uri, "claw tune reach")
    assert run.data.tags["study"] == "reach-sac" and run.data.tags["pruned"] == "False"
    assert "trial.learning_rate" in run.data.params
    assert "trial/value" in run.data.metrics


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--tracker", "wandb"), "unknown tracker 'wandb'; allowed: mlflow"),
        (("--tracking-uri", "sqlite:///x.db"), "--tracking-uri needs --tracker mlflow"),
    ],
)
def test_bad_tracking_options_are_one_line_and_exit_2(
    args: tuple[str, ...], message: str, claw_in_process, tmp_path: Path
) -> None:
    result = claw_in_process("train", "reach", *args, "--runs-dir", tmp_path / "runs")
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists()  # refused before a run folder was made


def test_settings_and_flattening() -> None:
    assert TrackerSettings.of(None, None) is None
    with pytest.raises(InvalidConfigError):
        TrackerSettings.of("tensorboard", None)
    nested = {"a": {"b": 1, "c": {"d": [1, 2]}}, "e": {}}
    assert dict(flatten(nested)) == {"a.b": 1, "a.c.d": [1, 2], "e": {}}
    assert json.dumps(dict(flatten({"x": None}))) == '{"x": null}'
