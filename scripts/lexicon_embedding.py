"""Can the shipped MiniLM embedder map words the lexicon lacks to known ones? Measured here.

For each colour shade and container/block synonym (the expected palette colour or type given),
and for unrelated words, the nearest known word by cosine similarity of MiniLM embeddings and
its score. A usable threshold needs the right answers above every unrelated word's score.
Run: ``python scripts/lexicon_embedding.py``.
"""

from __future__ import annotations

from claw.envs.objects import COLORS
from claw.library.embedding import MiniLMEmbedder
from claw.planner.language.lexicon import SHADES

TYPES = {"block": "block", "cube": "block", "brick": "block", "box": "box", "container": "box",
         "bin": "box", "basket": "box", "tray": "box", "crate": "box", "bowl": "box"}  # fmt: skip
NEW_TYPES = {"bucket": "box", "tub": "box", "vessel": "box", "receptacle": "box", "pot": "box",
             "carton": "box", "dice": "block", "cuboid": "block", "tile": "block"}  # fmt: skip
UNRELATED = ["table", "dog", "tree", "happy", "ring", "cylinder", "sphere", "ball", "cup",
             "left", "corner", "robot", "drawer", "bulb", "rope", "line", "wooden",
             "heavy"]  # fmt: skip


def nearest(
    embedder: MiniLMEmbedder, words: list[str], known: list[str]
) -> list[tuple[str, float]]:
    """Each word's nearest known word and their cosine similarity."""
    scores = embedder.embed(words) @ embedder.embed(known).T
    best = scores.argmax(axis=1)
    return [(known[int(i)], float(row[i])) for row, i in zip(scores, best, strict=True)]


def report(
    name: str, truth: dict[str, str], known: dict[str, str], embedder: MiniLMEmbedder
) -> None:
    words = list(truth)
    found = list(zip(nearest(embedder, words, list(known)), words, strict=True))
    right = [score for (hit, score), word in found if known[hit] == truth[word]]
    wrong = [(word, hit) for (hit, _), word in found if known[hit] != truth[word]]
    unrelated = [score for _, score in nearest(embedder, UNRELATED, list(known))]
    print(f"{name}: {len(right)}/{len(words)} nearest right; wrong: {wrong}")
    low = min(right, default=float("nan"))
    print(f"  right answers score >= {low:.2f}; unrelated words score up to {max(unrelated):.2f}")
    usable = bool(right) and low > max(unrelated) and not wrong
    print(f"  a threshold separating them: {'yes' if usable else 'no'}")


def main() -> None:
    embedder = MiniLMEmbedder()
    shades = {shade: color for color, names in SHADES.items() for shade in names}
    report("colour shades", shades, {c: c for c in COLORS}, embedder)
    report("object types", NEW_TYPES, TYPES, embedder)


if __name__ == "__main__":
    main()
