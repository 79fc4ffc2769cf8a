"""Compare the skill-retrieval embedders: accuracy on the paraphrase set, load time and speed.

Run: ``python scripts/compare_embedders.py [--embedders minilm hash] [--repeats 5]``.

For each embedder: recall@1/@3/@5 and MRR of the paraphrase set (``library/paraphrases.yaml``)
against the built-in skills (entries: name, description, each example; scores max-pooled per
skill; inner product of unit vectors), the cold start in a fresh process (import, load, embed one
text), single-query latency, and batch throughput. Timings are best-of-N (and p50/p99 for
queries); the load average is printed, since another process may share the CPU.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence

import numpy as np

from claw.library.embedding import (
    Embedder,
    HashingEmbedder,
    MiniLMEmbedder,
    load_paraphrases,
    make_embedder,
    retrieval_text,
)

COLORS = ("red", "green", "blue", "yellow", "orange", "purple", "pink", "cyan", "brown", "gray")
VERBS = ("Pick up", "Push", "Stack", "Rotate", "Slide", "Lift", "Place", "Sort", "Wipe", "Pour")
RELATIONS = ("next to", "on top of", "inside", "behind", "left of", "in front of")


def skill_entries(raw_names: bool = False) -> tuple[list[str], list[str]]:
    """The indexed texts of the built-in skills, and the skill each text belongs to."""
    from claw.skills import get_skill, skill_names

    skills: list[str] = []
    texts: list[str] = []
    for name in skill_names():
        skill = get_skill(name)
        label = name if raw_names else name.replace("_", " ")
        for text in (label, skill.description, *skill.examples):
            skills.append(name)
            texts.append(text)
    return skills, texts


def summary(ranks: list[int], misses: list[str]) -> dict[str, object]:
    """Recall at 1, 3 and 5, mean reciprocal rank, and the rank-1 misses."""
    r = np.array(ranks)
    return {
        "r1": float(np.mean(r <= 1)),
        "r3": float(np.mean(r <= 3)),
        "r5": float(np.mean(r <= 5)),
        "mrr": float(np.mean(1.0 / r)),
        "misses": misses,
    }


def retrieval(
    embedder: Embedder,
    pairs: Sequence[tuple[str, str]],
    skills: list[str],
    texts: list[str],
    mask: bool = True,
) -> dict[str, object]:
    """Recall@1/3/5, MRR and the misses at rank 1 of ``pairs`` against the skill entries.

    With ``mask``, queries and entries go through ``retrieval_text`` (arguments masked) first.
    """
    prepare = retrieval_text if mask else str
    names = sorted(set(skills))
    owner = np.array([names.index(s) for s in skills])
    queries = embedder.embed([prepare(q) for q, _ in pairs])
    scores = queries @ embedder.embed([prepare(t) for t in texts]).T
    pooled = np.full((len(pairs), len(names)), -np.inf, dtype=np.float32)
    for column, name_index in enumerate(owner):
        pooled[:, name_index] = np.maximum(pooled[:, name_index], scores[:, column])
    ranks, misses = [], []
    for row, (query, expected) in enumerate(pairs):
        order = [names[i] for i in np.argsort(-pooled[row], kind="stable")]
        ranks.append(order.index(expected) + 1)
        if order[0] != expected:
            misses.append(f"{query!r}: {order[0]} (want {expected}, rank {ranks[-1]})")
    return summary(ranks, misses)


def library_retrieval(embedder: Embedder, pairs: Sequence[tuple[str, str]]) -> dict[str, object]:
    """The same figures through the product path: ``SkillLibrary.search`` (masking, pooling)."""
    from claw.library.storage import SkillLibrary

    with tempfile.TemporaryDirectory() as folder:
        library = SkillLibrary(folder, embedder=embedder)
        ranks, misses = [], []
        for query, expected in pairs:
            order = [hit.record.name for hit in library.search(query, k=10)]
            ranks.append(order.index(expected) + 1 if expected in order else 99)
            if order[0] != expected:
                misses.append(f"{query!r}: {order[0]} (want {expected}, rank {ranks[-1]})")
    return summary(ranks, misses)


def best_wall(argv: list[str], repeats: int) -> tuple[float, float]:
    """Best and median wall time (s) of running ``argv`` in a fresh process."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return min(times), float(np.median(times))


def cold_start(spec: str, repeats: int) -> tuple[float, float]:
    """Wall time of import + make_embedder + embed one text, in a fresh interpreter."""
    code = (
        "from claw.library.embedding import make_embedder; "
        f"e = make_embedder({spec!r}); e.embed(['x'])"
    )
    return best_wall([sys.executable, "-c", code], repeats)


def import_cost(repeats: int) -> tuple[float, list[str]]:
    """Best in-process import time of ``claw.library.embedding`` and heavy modules it pulled in."""
    code = (
        "import time, sys; t = time.perf_counter(); import claw.library.embedding; "
        "print(time.perf_counter() - t); "
        "print(' '.join(m for m in ('torch', 'tokenizers', 'safetensors', 'litellm', "
        "'sentence_transformers', 'threadpoolctl', 'yaml') if m in sys.modules))"
    )
    best, heavy = float("inf"), []
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True
        ).stdout.splitlines()
        best = min(best, float(out[0]))
        heavy = out[1].split() if len(out) > 1 else []
    return best, heavy


def query_latency(embedder: Embedder, queries: Sequence[str], n: int) -> tuple[float, float]:
    """p50 and p99 (ms) of embedding one short query at a time, after a warm-up."""
    embedder.embed(list(queries[:3]))
    times = []
    for i in range(n):
        start = time.perf_counter()
        embedder.embed([queries[i % len(queries)]])
        times.append(time.perf_counter() - start)
    return float(np.percentile(times, 50) * 1e3), float(np.percentile(times, 99) * 1e3)


def corpus(n: int, seed: int = 0) -> list[str]:
    """``n`` synthetic skill descriptions of built-in-description length (20-30 words)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        c1, c2 = rng.choice(COLORS, 2, replace=False)
        verb, rel = rng.choice(VERBS), rng.choice(RELATIONS)
        out.append(
            f"{verb} the {c1} block {rel} the {c2} box: approach it from above, keep the claw "
            f"pointing down, move slowly near the table and release it {rng.integers(2, 15)} cm "
            "from the target before moving back up."
        )
    return out


def throughput(embedder: Embedder, texts: list[str], repeats: int) -> float:
    """Best texts per second of embedding ``texts`` in one call."""
    embedder.embed(texts[:8])
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        embedder.embed(texts)
        best = min(best, time.perf_counter() - start)
    return len(texts) / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embedders", nargs="+", default=["minilm", "minilm-mt", "hash"])
    parser.add_argument("--repeats", type=int, default=5, help="best-of-N for wall times")
    parser.add_argument("--queries", type=int, default=300, help="single queries timed")
    parser.add_argument("--batch", type=int, default=512, help="texts for throughput")
    parser.add_argument("--raw-names", action="store_true", help="index 'open_gripper' as is")
    parser.add_argument("--misses", action="store_true", help="list the rank-1 misses")
    args = parser.parse_args()

    factories: dict[str, Callable[[], Embedder]] = {
        "minilm-mt": lambda: MiniLMEmbedder(threads=None),
        "hash": lambda: HashingEmbedder(),
    }
    sets = {"set": load_paraphrases(), "holdout": load_paraphrases(section="holdout")}
    skills, texts = skill_entries(args.raw_names)
    queries = [q for q, _ in sets["set"]]
    batch = corpus(args.batch)
    print(
        f"{len(sets['set'])} paraphrases (+{len(sets['holdout'])} holdout), {len(texts)} entries"
        f" for {len(set(skills))} skills; cpus {os.cpu_count()}, load {os.getloadavg()}"
    )
    seconds, heavy = import_cost(args.repeats)
    print(
        f"import claw.library.embedding: {seconds * 1e3:.1f} ms (best of {args.repeats});"
        f" heavy modules imported: {heavy or 'none'}"
    )
    base, _ = best_wall([sys.executable, "-c", "import numpy"], args.repeats)
    print(f"baseline wall of `python -c 'import numpy'`: {base:.3f} s (best of {args.repeats})")

    accuracy, speed = [], []
    for spec in args.embedders:
        embedder = factories[spec]() if spec in factories else make_embedder(spec)
        if not spec.endswith("-mt"):
            for set_name, pairs in sets.items():
                for mode in ("raw", "masked", "library"):
                    if mode == "library":
                        found = library_retrieval(embedder, pairs)
                    else:
                        found = retrieval(embedder, pairs, skills, texts, mode == "masked")
                    label = f"{spec} {set_name} {mode}"
                    accuracy.append((label, found))
                    for miss in found["misses"] if args.misses else []:  # type: ignore[attr-defined]
                        print(f"  {label} miss {miss}")
        cold = cold_start(spec.removesuffix("-mt"), args.repeats)
        p50, p99 = query_latency(embedder, queries, args.queries)
        rate = throughput(embedder, batch, max(1, args.repeats // 2))
        speed.append((spec, cold, p50, p99, rate))

    print(f"load at end {os.getloadavg()}\n")
    print(f"{'retrieval':<26} r@1    r@3    r@5    MRR")
    for label, found in accuracy:
        values = "  ".join(f"{found[key]:.3f}" for key in ("r1", "r3", "r5", "mrr"))
        print(f"{label:<26} {values}")
    print(f"\n{'speed':<10} cold s best/median  query p50/p99 ms  batch texts/s")
    for spec, (best, median), p50, p99, rate in speed:
        print(
            f"{spec:<10} {best:5.2f} / {median:5.2f}       {p50:6.2f} / {p99:6.2f}     {rate:7.0f}"
        )


if __name__ == "__main__":
    main()
