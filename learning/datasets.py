"""Local Minari datasets, read: listed, resolved by name, summarised, opened — Minari's warnings
of damaged datasets caught (said in a ``note:`` line, or in the refusal) and a file that cannot
be read one :class:`~claw.learning.exceptions.InvalidConfigError`. Ids are ``claw/TASK/NAME-v0``;
datasets live where Minari keeps them (``MINARI_DATASETS_PATH``, else ``~/.minari/datasets``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from claw.learning.exceptions import InvalidConfigError

_LOG = logging.getLogger(__name__)
NAMESPACE = "claw"
DEFAULT_NAME = "expert"


def dataset_id(task: str, name: str | None = None) -> str:
    """The Minari id of a task's demonstrations: ``claw/TASK/NAME-v0`` (``NAME`` may already be
    a full id, ``namespace/.../name-vN``)."""
    name = name or DEFAULT_NAME
    if "/" in name:
        return name
    return f"{NAMESPACE}/{task}/{name}" + ("" if _versioned(name) else "-v0")


def _versioned(name: str) -> bool:
    stem, sep, version = name.rpartition("-v")
    return bool(sep and stem and version.isdigit())


def datasets_root() -> Path:
    """Where Minari keeps local datasets (``MINARI_DATASETS_PATH``, else ``~/.minari/datasets``)."""
    from minari.storage.datasets_root_dir import get_dataset_path

    return get_dataset_path()


def local_datasets() -> tuple[dict[str, Any], list[str]]:
    """Minari's local datasets (id -> metadata) and why it skipped any: its warnings of damaged
    datasets, each one line, caught (Minari's ``UserWarning``, file and source line, never
    reach stderr)."""
    from minari import list_local_datasets

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = list_local_datasets()
    skipped: list[str] = []
    for warning in caught:
        if issubclass(warning.category, UserWarning) and "minari" in warning.filename:
            skipped.append(" ".join(str(warning.message).split())[:300])
        else:  # not Minari's: as it would have been shown
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    return found, list(dict.fromkeys(skipped))


@contextlib.contextmanager
def reading(dataset_id: str) -> Iterator[None]:
    """While ``dataset_id`` is read: Minari's warnings caught, and a damaged file one error.

    Raises:
        InvalidConfigError: it cannot be read (the reason, one line).
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            yield
    except InvalidConfigError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as exc:
        reason = " ".join(str(exc).split())[:300] or type(exc).__name__
        raise InvalidConfigError(f"dataset {dataset_id} cannot be read: {reason}") from None


def open_dataset(dataset_id: str) -> Any:
    """A local dataset (Minari's ``MinariDataset``), read as :func:`reading` says."""
    import minari

    with reading(dataset_id):
        return minari.load_dataset(dataset_id)


def check_demonstrations(dataset_id: str, env_id: str, obs_mode: str = "state") -> None:
    """Refuse demonstrations recorded in another env than ``env_id``, or in another
    observation mode than ``obs_mode`` (or unreadable ones).

    Raises:
        InvalidConfigError: another env's or mode's, or a dataset that cannot be read.
    """
    spec = open_dataset(dataset_id).spec.env_spec
    recorded_in = spec.id if spec is not None else None
    if recorded_in != env_id:
        raise InvalidConfigError(
            f"demonstrations {dataset_id} were recorded in {recorded_in}, not {env_id}"
        )
    recorded_mode = (spec.kwargs if spec is not None else {}).get("obs_mode", "state")
    if recorded_mode != obs_mode:
        raise InvalidConfigError(
            f"demonstrations {dataset_id} were recorded with obs_mode {recorded_mode}, not "
            f"{obs_mode} (claw demos record TASK --obs {obs_mode} --out NAME records them)"
        )


def episodes_of(dataset_id: str) -> Iterator[Any]:
    """The episodes of a local dataset (Minari's ``EpisodeData``), in order."""
    yield from open_dataset(dataset_id).iterate_episodes()


def list_datasets() -> list[dict[str, Any]]:
    """The local Minari datasets: id, episodes, steps and the env they were recorded in (a
    damaged one Minari skips: a ``note:`` line each)."""
    found, skipped = local_datasets()
    for reason in skipped:
        _LOG.warning("note: a dataset Minari cannot read was skipped (%s)", reason)
    rows = []
    for dataset_id_, metadata in sorted(found.items()):
        env_spec = metadata.get("env_spec")
        rows.append(
            {
                "dataset_id": dataset_id_,
                "episodes": int(metadata.get("total_episodes", 0)),
                "steps": int(metadata.get("total_steps", 0)),
                "env_id": _env_id(env_spec),
            }
        )
    return rows


def _env_id(env_spec: Any) -> str | None:
    if env_spec is None:
        return None
    if isinstance(env_spec, str):
        try:
            return str(json.loads(env_spec).get("id"))
        except (json.JSONDecodeError, AttributeError):
            return None
    return str(getattr(env_spec, "id", None))


def resolve(name: str, task: str | None = None) -> str:
    """The id of a local dataset named ``name``: a full id, ``claw/TASK/NAME-v0`` for a task, or
    the one claw dataset of that name.

    Raises:
        InvalidConfigError: none or several match (the message lists the local ones).
    """
    found, skipped = local_datasets()
    local = sorted(found)
    if task is not None or "/" in name:
        wanted = dataset_id(task or "", name)
        if wanted in local:
            return wanted
        matches = []
    else:
        stem = name if _versioned(name) else f"{name}-v0"
        matches = [d for d in local if d.startswith(f"{NAMESPACE}/") and d.endswith(f"/{stem}")]
        if len(matches) == 1:
            return matches[0]
    known = ", ".join(local) or "none"
    several = f" ({len(matches)} match: name it by its id)" if matches else ""
    damaged = f"; skipped, damaged: {'; '.join(skipped)}" if skipped else ""
    raise InvalidConfigError(
        f"no single dataset {name!r}{several}; local datasets: {known} "
        f"(claw demos record TASK makes one){damaged}"
    )


def dataset_summary(name: str) -> dict[str, Any]:
    """What ``claw demos show`` prints: provenance, episodes, success, lengths, seeds, draws."""
    found = resolve(name)
    with reading(found):
        dataset = open_dataset(found)
        episodes = list(dataset.iterate_episodes())
        metadata = list(dataset.storage.get_episode_metadata(range(len(episodes))))
    seeds = [m.get("seed") for m in metadata]
    lengths = np.array([len(e.actions) for e in episodes])
    final_success = [bool(e.infos["is_success"][-1]) for e in episodes]
    sizes = [float(e.infos["block_size"][0]) for e in episodes if "block_size" in e.infos]
    spec = dataset.spec
    summary: dict[str, Any] = {
        "dataset_id": found,
        "path": str(datasets_root() / found),
        "env_id": spec.env_spec.id if spec.env_spec is not None else None,
        "algorithm": dataset.storage.metadata.get("algorithm_name"),
        "episodes": len(episodes),
        "steps": int(lengths.sum()),
        "success_rate": float(np.mean(final_success)),
        "episode_length": {"min": int(lengths.min()), "max": int(lengths.max())},
        "seeds": {"first": min(s for s in seeds if s is not None), "last": max(seeds)}
        if all(s is not None for s in seeds)
        else None,
        "observation_space": str(dataset.observation_space),
        "action_space": str(dataset.action_space),
        "description": dataset.storage.metadata.get("description"),
    }
    if sizes:
        summary["block_size"] = {"min": round(min(sizes), 4), "max": round(max(sizes), 4)}
    return summary
