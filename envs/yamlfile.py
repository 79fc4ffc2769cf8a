"""The one way claw reads YAML: PyYAML's safe loader, bounded in size, values and depth.

Every YAML file claw reads (scenes, suites, sweeps, training configs, paraphrase sets) goes
through :func:`read_yaml`, and ``KEY=VALUE`` overrides through :func:`load_yaml`, so an alias bomb
("billion laughs": a few hundred bytes whose aliases stand for billions of values) or a deeply
nested document is refused while it is read, before anything walks the data. The limits:

- ``MAX_BYTES``: a file (or text) of at most 1 MiB;
- ``MAX_NODES``: at most 200,000 values (scalars, lists, mappings), each alias counted as the
  values it stands for, every time it is used;
- ``MAX_DEPTH``: lists and mappings nested at most 64 deep; an alias inside the node it names
  (a recursive document) is refused.

``core_booleans`` (the default) reads booleans as YAML 1.2 does: only ``true``/``false`` in
their three spellings, so ``on:`` and ``off`` stay strings; ``core_booleans=False`` keeps YAML
1.1's (``yaml.safe_load``'s) ``yes``/``no``/``on``/``off``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from claw.envs.exceptions import YamlLimitError

MAX_BYTES = 1 << 20
MAX_NODES = 200_000
MAX_DEPTH = 64

_BOOL_TAG = "tag:yaml.org,2002:bool"


class _BoundedLoader(yaml.SafeLoader):
    """The safe loader, counting values (aliases expanded) and depth as it composes nodes."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._values = 0  # values composed so far, each alias counted as what it stands for
        self._depth = 0
        self._sizes: dict[str, int] = {}  # anchor -> values under its node, once composed

    def compose_document(self) -> yaml.Node | None:
        self._values, self._depth, self._sizes = 0, 0, {}
        return super().compose_document()

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            if event.anchor in self.anchors:  # else PyYAML reports the undefined alias
                if event.anchor not in self._sizes:
                    raise YamlLimitError(
                        f"the alias *{event.anchor}{_at(event)} is inside the node it names "
                        "(a recursive document); not allowed"
                    )
                self._count(self._sizes[event.anchor])
            return super().compose_node(parent, index)
        if self._depth >= MAX_DEPTH and not isinstance(event, yaml.ScalarEvent):
            raise YamlLimitError(
                f"lists and mappings nested deeper than {MAX_DEPTH}{_at(event)}; "
                f"allowed: at most {MAX_DEPTH} levels"
            )
        before = self._values
        self._depth += 1
        node = super().compose_node(parent, index)
        self._depth -= 1
        self._count(1)
        if getattr(event, "anchor", None) is not None:
            self._sizes[event.anchor] = self._values - before
        return node

    def _count(self, values: int) -> None:
        self._values += values
        if self._values > MAX_NODES:
            raise YamlLimitError(
                f"more than {MAX_NODES:,} values with aliases expanded (an alias bomb?); "
                f"allowed: at most {MAX_NODES:,}"
            )


class _CoreLoader(_BoundedLoader):
    """The bounded loader with YAML 1.2 booleans: only true/false, so ``on:`` stays a key."""


_CoreLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _BOOL_TAG]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_CoreLoader.add_implicit_resolver(
    _BOOL_TAG, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def load_yaml(text: str, core_booleans: bool = True) -> Any:
    """The data of one YAML document (``None`` for an empty one).

    Raises:
        YamlLimitError: the text is over ``MAX_BYTES`` characters, ``MAX_NODES`` values or
            ``MAX_DEPTH`` levels, or holds a recursive alias.
        yaml.YAMLError: not valid YAML, or a value that cannot be built (a date out of range,
            an integer of thousands of digits).
    """
    if len(text) > MAX_BYTES:
        raise YamlLimitError(_too_big())
    loader = _CoreLoader if core_booleans else _BoundedLoader
    try:
        return yaml.load(text, Loader=loader)  # both loaders are SafeLoader subclasses
    except YamlLimitError:
        raise
    except (ValueError, OverflowError) as exc:
        problem = f"a value cannot be read: {' '.join(str(exc).split())}"
        raise yaml.constructor.ConstructorError(problem=problem) from None


def read_yaml(path: str | Path, core_booleans: bool = True) -> Any:
    """The data of a YAML file, read as UTF-8, at most ``MAX_BYTES`` of it.

    Raises:
        YamlLimitError: as :func:`load_yaml`, the file's size included.
        OSError: the file cannot be opened or read.
        UnicodeDecodeError: not UTF-8.
        yaml.YAMLError: not valid YAML.
    """
    with Path(path).open("rb") as handle:
        raw = handle.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        raise YamlLimitError(_too_big())
    return load_yaml(raw.decode("utf-8"), core_booleans)


def _too_big() -> str:
    return f"larger than {MAX_BYTES:,} bytes (1 MiB); allowed: at most 1 MiB of YAML"


def _at(event: yaml.Event) -> str:
    mark = event.start_mark
    return f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
