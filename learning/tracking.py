"""Experiment tracking beside TensorBoard: ``--tracker mlflow`` on ``claw train/tune/eval``.

A :class:`TrackedRun` is one MLflow run: the parameters (a config flattened to dotted keys),
metrics at each step that has them, and artifacts (files and folders). MLflow is imported only
here and only when asked for. Runs go where MLflow puts them: ``--tracking-uri``, else
``MLFLOW_TRACKING_URI``, else MLflow's own local store in the working directory
(``mlflow.db`` with artifacts under ``mlruns/``; ``mlflow ui`` started there shows them).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from pydantic import BaseModel, ConfigDict

from claw.learning.exceptions import InvalidConfigError, TrackingUnavailableError
from claw.learning.tracking_store import hidden, hide_in, probe_store, quiet_mlflow

TRACKERS = ("mlflow",)
MAX_PARAM_LENGTH = 6000  # characters MLflow keeps of a parameter's value


class TrackerSettings(BaseModel):
    """Which tracker to use and where (plain data: it crosses into tuning's trial processes)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tracker: str = "mlflow"
    tracking_uri: str | None = None

    @classmethod
    def of(cls, tracker: str | None, tracking_uri: str | None) -> TrackerSettings | None:
        """The settings for ``--tracker`` and ``--tracking-uri``, the store probed (it can be
        used: :func:`~claw.learning.tracking_store.probe_store`); ``None`` when not tracking.

        Raises:
            InvalidConfigError: an unknown tracker, or a URI without a tracker.
            TrackingUnavailableError: the store cannot be used (one line, no password).
        """
        if tracker is None:
            if tracking_uri is not None:
                raise InvalidConfigError("--tracking-uri needs --tracker mlflow")
            return None
        if tracker not in TRACKERS:
            raise InvalidConfigError(f"unknown tracker {tracker!r}; allowed: {', '.join(TRACKERS)}")
        probe_store(tracking_uri)
        return cls(tracker=tracker, tracking_uri=tracking_uri)


def flatten(values: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """``{"a": {"b": 1}}`` as ``("a.b", 1)``; lists and scalars are leaves."""
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            yield from flatten(value, f"{name}.")
        else:
            yield name, value


def _artifacts_beside(tracking_uri: str, experiment: str) -> str | None:
    """Artifacts of a SQLite-tracked experiment go in ``mlruns/`` beside the database (MLflow
    would put them in the working directory's); ``None`` (MLflow's choice) for other stores."""
    prefix = "sqlite:///"
    if not tracking_uri.startswith(prefix):
        return None
    folder = Path(tracking_uri[len(prefix) :]).resolve().parent / "mlruns"
    return (folder / experiment.replace(" ", "-")).as_uri()


class TrackedRun:
    """One MLflow run, ended FINISHED (or FAILED, when its ``with`` block raised).

    Args:
        settings: Where to track.
        experiment: The MLflow experiment (created if new), e.g. ``claw train reach``.
        run_name: The run's name (the run folder's, for training).
        tags: Tags set on the run (the command, the git commit...).
    """

    def __init__(
        self,
        settings: TrackerSettings,
        experiment: str,
        run_name: str,
        tags: Mapping[str, str] | None = None,
    ) -> None:
        from mlflow.exceptions import MlflowException
        from mlflow.tracking import MlflowClient

        quiet_mlflow()
        try:
            self.client = MlflowClient(tracking_uri=settings.tracking_uri)
            experiment_id = self._experiment(experiment)
            run = self.client.create_run(experiment_id, run_name=run_name, tags=dict(tags or {}))
        except MlflowException as exc:
            uri = settings.tracking_uri or ""
            reason = hide_in(" ".join(str(exc).split())[:300], uri)
            raise TrackingUnavailableError(
                f"MLflow cannot use the tracking store {hidden(uri) or '(its default)'}: {reason}"
            ) from None
        self.run_id: str = run.info.run_id
        self.experiment_id: str = experiment_id
        self.tracking_uri: str = self.client.tracking_uri

    def _experiment(self, name: str) -> str:
        """The id of experiment ``name``, created if new."""
        found = self.client.get_experiment_by_name(name)
        if found is not None:
            return str(found.experiment_id)
        location = _artifacts_beside(self.client.tracking_uri, name)
        return str(self.client.create_experiment(name, artifact_location=location))

    def log_params(self, params: Mapping[str, Any]) -> None:
        """Parameters, nested mappings flattened to dotted keys."""
        from mlflow.entities import Param

        flat = [Param(key, str(value)[:MAX_PARAM_LENGTH]) for key, value in flatten(params)]
        for start in range(0, len(flat), 100):  # MLflow takes at most 100 per batch
            self.client.log_batch(self.run_id, params=flat[start : start + 100])

    def log_metrics(self, metrics: Mapping[str, float | None], step: int) -> None:
        """Metrics at ``step`` (env steps for training); missing or non-finite values skipped."""
        for key, value in metrics.items():
            if value is not None and math.isfinite(float(value)):
                self.client.log_metric(self.run_id, key, float(value), step=step)

    def log_artifact(self, path: str | Path, folder: str | None = None) -> None:
        """A file, or a folder's files, as artifacts (under ``folder`` if given)."""
        path = Path(path)
        if path.is_dir():
            self.client.log_artifacts(self.run_id, str(path), folder or path.name)
        elif path.is_file():
            self.client.log_artifact(self.run_id, str(path), folder)

    def tag(self, key: str, value: object) -> None:
        self.client.set_tag(self.run_id, key, str(value))

    def end(self, failed: bool = False) -> None:
        self.client.set_terminated(self.run_id, "FAILED" if failed else "FINISHED")

    def __enter__(self) -> TrackedRun:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.end(failed=kind is not None)


def track_suite_result(
    settings: TrackerSettings, result: Any, command: str, files: Mapping[str, Path | None]
) -> str:
    """A finished ``claw eval`` as an MLflow run (experiment ``claw eval SUITE``): the suite,
    planner and implementation as parameters; the overall and per-tag figures as metrics; the
    files written (results JSON, report folder) as artifacts. Returns the run's id."""
    import tempfile

    tags = {"command": command, "suite": result.suite, "planner": result.planner}
    with TrackedRun(settings, f"claw eval {result.suite}", result.planner, tags) as run:
        selection = result.selection.model_dump() if result.selection is not None else None
        run.log_params(
            {
                "suite": result.suite,
                "planner": result.planner,
                "prefer": result.prefer,
                "cases": len(result.cases),
                "selection": selection,
            }
        )
        run.log_metrics(dict(result.overall), step=0)
        for tag, figures in result.per_tag.items():
            run.log_metrics({f"{tag}/{k}": v for k, v in figures.items()}, step=0)
        written = [p for p in files.values() if p is not None]
        if files.get("results") is None:  # the results travel with the run even if not asked
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "results.json"
                path.write_text(result.model_dump_json(indent=1))
                run.log_artifact(path)
        for path in written:
            run.log_artifact(path)
        return run.run_id
