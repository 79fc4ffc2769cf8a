"""Words the lexicon lacks, grounded by meaning with the shipped MiniLM sentence embedder.

A noun-phrase reader that meets a word :mod:`claw.planner.language.lexicon` does not know asks
:func:`ground_word` with what the word's position allows it to be (:data:`POSITIONS`: before a
head noun a colour or a size, a head noun an object type or the table, a word of a table place
a region, a preposition a relation). The word is compared, by the cosine similarity of its
MiniLM embedding, with every word the lexicon has for each target of those categories
(``red``: red, crimson, scarlet, ...; ``box``: box, bin, bucket, ...; ``next_to``: next to,
beside, near, ...); a target scores its best word. The best target is taken when it scores at
least :data:`THRESHOLD` and leads the runner-up by at least :data:`MARGIN` (both chosen on
``eval/suites/words_dev.yaml``, ``python scripts/word_thresholds.py``); otherwise there is no
match and :func:`unknown_word_message` names the word and its nearest targets.

Nothing loads at import: the model (about 2 s) and the prototype vectors (cached under
``$CLAW_HOME/cache/meaning``) load on the first unknown word; each word's scores are cached.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import logging
import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Literal, get_args

import numpy as np
from pydantic import BaseModel, ConfigDict

from claw.common.files import atomic_write, cache_dir
from claw.library import Embedder
from claw.planner.language import lexicon

logger = logging.getLogger(__name__)

Category = Literal["colour", "size", "type", "region", "relation"]
CATEGORIES: tuple[Category, ...] = get_args(Category)
POSITIONS: dict[str, tuple[Category, ...]] = {
    "adjective": ("colour", "size"),  # before a head noun: "the carmine block"
    "noun": ("type",),  # a head noun: "the crate", "the desk" (the table is a type here)
    "region": ("region",),  # a word of a table place: "the western side"
    "preposition": ("relation",),  # "the block abutting the box"
    "phrase": CATEGORIES,  # a phrase whose position is not known: anything
}
"""What a word may mean by where it stands in a noun phrase."""
THRESHOLD = 0.565
"""The least cosine similarity to a target's nearest known word for a match."""
MARGIN = 0.075
"""The least lead of the best target over the runner-up for a match."""
_MAX_WORD = 40  # characters; longer is no word
_CACHED_WORDS = 4096
_PROTOTYPES = "prototypes-"  # the vector files' names begin so


class WordMatch(BaseModel):
    """What an unknown word was matched to, and how surely."""

    model_config = ConfigDict(frozen=True)

    word: str
    category: Category
    target: str  # a colour, small/big, block/box/table, a region name, a relation name
    score: float  # cosine similarity to the target's nearest known word (1.0: a known word)
    margin: float  # the lead over the runner-up target
    via: str  # that nearest known word


class Candidate(BaseModel):
    """One target's score for a word: its best known word and their similarity."""

    model_config = ConfigDict(frozen=True)

    category: Category
    target: str
    score: float
    via: str


def categories_of(where: str | Sequence[str]) -> tuple[Category, ...]:
    """The categories named by a position (``adjective``), a category, or a sequence of them.

    Raises:
        ValueError: A name that is neither; the message lists the allowed ones.
    """
    names = [where] if isinstance(where, str) else list(where)
    out: list[Category] = []
    for name in names:
        key = name.strip().lower().replace("color", "colour")
        found = POSITIONS.get(key) or tuple(c for c in CATEGORIES if c == key)
        if not found:
            allowed = ", ".join([*POSITIONS, *CATEGORIES])
            raise ValueError(f"unknown word category {name!r}; allowed: {allowed}")
        out.extend(c for c in found if c not in out)
    return tuple(out)


def _inverse(table: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """Each value of ``table`` and the keys that map to it, the value itself first."""
    out: dict[str, list[str]] = {}
    for word, target in table.items():
        out.setdefault(target, [target])
        if word != target:
            out[target].append(word)
    return {target: tuple(dict.fromkeys(words)) for target, words in out.items()}


def _region_words() -> dict[str, tuple[str, ...]]:
    """Each table region's names: its words with every lexicon alternative ("top" for far,
    "west" for left, "middle" for center)."""
    from claw.envs.regions import REGIONS

    side_of = {rel: word for word, rel in lexicon.SIDE_RELATIONS.items()}
    alternatives: dict[str, set[str]] = {}
    for word, side in {**lexicon.REGION_ALIASES, **lexicon.SIDE_WORDS}.items():
        alternatives.setdefault(side, {side}).add(word)
    for compass, rel in lexicon.COMPASS.items():
        compass_side = lexicon.SIDE_WORDS.get(side_of.get(rel, ""))
        if compass_side:
            alternatives.setdefault(compass_side, {compass_side}).add(compass)
    out = {}
    for name in REGIONS:
        options = [_own_first(w, alternatives.get(w, {w})) for w in name.split()]
        out[name] = tuple(" ".join(combination) for combination in itertools.product(*options))
    return out


def _own_first(word: str, options: set[str]) -> list[str]:
    """``options`` in order, ``word`` first."""
    return sorted(options, key=lambda option: (option != word, option))


def _relation_words() -> dict[str, tuple[str, ...]]:
    """Each relation between objects and the lexicon's phrases for it ("beside" for next_to)."""
    from claw.envs.relations import find_relation

    pairs = [
        *lexicon.RELATION_PHRASES,
        *((" ".join(words), rel) for words, rel in lexicon.REFERRING_RELATIONS.items()),
    ]
    out: dict[str, list[str]] = {}
    for phrase, rel in pairs:
        found = find_relation(rel)
        if found is not None and found.target == "object":
            out.setdefault(rel, [rel.replace("_", " ")]).append(phrase)
    return {rel: tuple(dict.fromkeys(words)) for rel, words in out.items()}


@cache
def prototypes() -> dict[Category, dict[str, tuple[str, ...]]]:
    """Every target of every category and the lexicon's words for it, its name first."""
    table_words = {phrase[-1] for phrase in lexicon.ON_TABLE}  # "on the table"
    return {
        "colour": _inverse(lexicon.COLOR_WORDS),
        "size": _inverse(lexicon.SIZE_WORDS),
        "type": {**_inverse(lexicon.TYPE_WORDS), **{w: (w,) for w in sorted(table_words)}},
        "region": _region_words(),
        "relation": _relation_words(),
    }


def _claw_cache() -> Path:
    """``$CLAW_HOME/cache/meaning``."""
    return cache_dir("meaning")


def _read_vectors(path: Path, shape: tuple[int, int]) -> np.ndarray | None:
    """The vectors kept at ``path``, if there and of ``shape``."""
    try:
        vectors = np.load(path, allow_pickle=False) if path.is_file() else None
    except (OSError, ValueError):
        return None
    return (
        np.asarray(vectors, np.float32) if vectors is not None and vectors.shape == shape else None
    )


def _write_vectors(path: Path, vectors: np.ndarray) -> None:
    """Keep ``vectors`` at ``path`` (atomically), in place of those of other lexicons."""
    buffer = io.BytesIO()
    np.save(buffer, vectors, allow_pickle=False)
    try:
        atomic_write(path, buffer.getvalue())
        for stale in path.parent.glob(f"{_PROTOTYPES}*.npy"):
            if stale != path:
                stale.unlink(missing_ok=True)
    except OSError as exc:  # a read-only home: computed again next time
        logger.debug("prototype vectors not kept at %s: %s", path, exc)


class WordGrounder:
    """Scores words against the lexicon's targets; loads its embedder on first use.

    Args:
        embedder: The sentence embedder (default: MiniLM, the one the thresholds were chosen
            for).
        cache_dir: Where the prototype vectors are kept between processes (default
            ``$CLAW_HOME/cache/meaning``; ``None``: not kept).
    """

    def __init__(
        self,
        embedder: Embedder | None = None,
        cache_dir: Path | Literal["default"] | None = "default",
    ) -> None:
        self._embedder = embedder
        self._cache_dir = cache_dir
        self._lock = threading.Lock()
        self._texts: list[str] = []  # every target's words, category by category
        self._owners: list[tuple[Category, str]] = []  # the category and target of each
        for category, targets in prototypes().items():
            for target, words in targets.items():
                self._texts.extend(words)
                self._owners.extend((category, target) for _ in words)
        self._vectors: np.ndarray | None = None
        self._scores: dict[tuple[str, tuple[Category, ...]], tuple[Candidate, ...]] = {}
        self.unavailable: str | None = None  # why no embedder could be loaded, once tried
        self.prototypes_from_disk = False

    @property
    def loaded(self) -> bool:
        """Whether the prototype vectors (and so the embedder) are loaded."""
        return self._vectors is not None

    def load(self) -> bool:
        """Load the embedder and the prototype vectors, once; False where it cannot be loaded."""
        with self._lock:
            if self._vectors is None and self.unavailable is None:
                try:
                    self._load()
                except (ImportError, OSError) as exc:  # the model package missing or broken
                    self.unavailable = str(exc)
                    logger.warning("grounding words by meaning is off: %s", exc)
        return self._vectors is not None

    def _load(self) -> None:
        if self._embedder is None:
            from claw.library import MiniLMEmbedder

            self._embedder = MiniLMEmbedder()
        path = self._cache_file(self._embedder.name)
        shape = (len(self._texts), self._embedder.dim)
        vectors = _read_vectors(path, shape) if path is not None else None
        self.prototypes_from_disk = vectors is not None
        if vectors is None:
            vectors = self._embedder.embed(self._texts)
            if path is not None:
                _write_vectors(path, vectors)
        self._vectors = vectors

    def _cache_file(self, embedder_name: str) -> Path | None:
        """The prototype vectors' file: named by the embedder and every prototype's text."""
        if self._cache_dir is None:
            return None
        folder = _claw_cache() if self._cache_dir == "default" else Path(self._cache_dir)
        key = hashlib.sha256("\n".join([embedder_name, *self._texts]).encode()).hexdigest()
        return folder / f"{_PROTOTYPES}{key[:20]}.npy"

    def forget(self) -> None:
        """Forget the words scored so far (the prototypes stay)."""
        self._scores.clear()

    def candidates(self, word: str, where: str | Sequence[str]) -> tuple[Candidate, ...]:
        """Every target of ``where``'s categories scored for ``word``, best first (empty when
        the embedder is unavailable or ``word`` is no word)."""
        word = " ".join(word.lower().split())
        categories = categories_of(where)
        key = (word, categories)
        if key not in self._scores:
            self._scores[key] = self._score(word, categories)
            if len(self._scores) > _CACHED_WORDS:
                self._scores.pop(next(iter(self._scores)))
        return self._scores[key]

    def _score(self, word: str, categories: tuple[Category, ...]) -> tuple[Candidate, ...]:
        if not word or len(word) > _MAX_WORD:
            return ()
        rows = [i for i, (category, _) in enumerate(self._owners) if category in categories]
        if word in {self._texts[i] for i in rows}:  # the lexicon's own word: no embedding
            sims = np.array([float(self._texts[i] == word) for i in rows])
        elif self.load() and self._embedder is not None and self._vectors is not None:
            sims = self._vectors[rows] @ self._embedder.embed([word])[0]
        else:
            return ()
        best: dict[tuple[Category, str], Candidate] = {}
        for i, sim in zip(rows, sims.tolist(), strict=True):
            category, target = self._owners[i]
            if (category, target) not in best or sim > best[(category, target)].score:
                best[(category, target)] = Candidate(
                    category=category, target=target, score=round(sim, 4), via=self._texts[i]
                )
        return tuple(sorted(best.values(), key=lambda c: -c.score))

    def ground(
        self,
        word: str,
        where: str | Sequence[str],
        threshold: float = THRESHOLD,
        margin: float = MARGIN,
    ) -> WordMatch | None:
        """The target ``word`` means among ``where``'s, or None below the threshold or margin."""
        found = self.candidates(word, where)
        if not found:
            return None
        best, runner_up = found[0], found[1].score if len(found) > 1 else 0.0
        lead = best.score - runner_up
        if best.score < threshold or lead < margin:
            return None
        return WordMatch(
            word=" ".join(word.lower().split()),
            category=best.category,
            target=best.target,
            score=best.score,
            margin=round(lead, 4),
            via=best.via,
        )


_DEFAULT: list[WordGrounder] = []


def grounder() -> WordGrounder:
    """The process's grounder (MiniLM, prototypes cached under the claw home)."""
    if not _DEFAULT:
        _DEFAULT.append(WordGrounder())
    return _DEFAULT[0]


def ground_word(
    word: str,
    category: str | Sequence[str],
    *,
    threshold: float = THRESHOLD,
    margin: float = MARGIN,
) -> WordMatch | None:
    """What an unknown ``word`` means among ``category``'s targets, or None (refuse it).

    Args:
        word: The word as written (any case).
        category: A position (``adjective``, ``noun``, ``region``, ``preposition``), a category
            (``colour``, ``size``, ``type``, ``region``, ``relation``) or several.
        threshold: The least similarity for a match (default: chosen on the dev list).
        margin: The least lead over the runner-up (default: chosen on the dev list).

    Raises:
        ValueError: ``category`` names no position or category.
    """
    return grounder().ground(word, category, threshold, margin)


def nearest(word: str, category: str | Sequence[str], k: int = 3) -> list[tuple[str, float]]:
    """The ``k`` targets of ``category`` nearest ``word`` and their scores (empty when the
    embedder is unavailable)."""
    return [(c.target, c.score) for c in grounder().candidates(word, category)[:k]]


def unknown_word_message(word: str, category: str | Sequence[str], k: int = 2) -> str:
    """``'carmine' is not a word claw knows; nearest: purple 0.52, cyan 0.52``."""
    close = ", ".join(f"{target} {score:.2f}" for target, score in nearest(word, category, k))
    why = f"nearest: {close}" if close else "grounding words by meaning is unavailable"
    return f"{word!r} is not a word claw knows; {why}"
