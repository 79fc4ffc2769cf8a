"""``claw bench library``: index build time, query latency and memory on a synthetic library."""

from __future__ import annotations

import resource
import tempfile
import time
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from claw.common.files import atomic_write
from claw.library.index import SkillIndex
from claw.library.manifest import Manifest, SkillRecord
from claw.library.storage import SkillLibrary

VERBS = (
    "pick",
    "place",
    "push",
    "slide",
    "stack",
    "rotate",
    "sweep",
    "wipe",
    "pour",
    "tap",
    "lift",
    "drop",
    "open",
    "close",
    "insert",
    "align",
    "flip",
    "nudge",
    "hold",
    "carry",
)
OBJECTS = (
    "cup",
    "lid",
    "drawer",
    "peg",
    "ring",
    "bowl",
    "tray",
    "bottle",
    "sponge",
    "marker",
    "card",
    "button",
    "handle",
    "plate",
    "tool",
)
MATERIALS = ("wooden", "metal", "plastic", "glass", "rubber", "paper")
MANNERS = (
    "carefully",
    "quickly",
    "from above",
    "from the side",
    "with one finger",
    "along the edge",
    "into the corner",
    "onto the tray",
    "next to the wall",
    "gently",
)


class LibraryBench(BaseModel):
    skills: int
    rows: int
    index_kind: str
    embedder: str
    manifest_write_seconds: float
    manifest_load_seconds: float
    embed_seconds: float
    """Embedding every indexed text while building."""
    index_build_seconds: float
    """The FAISS index alone, after embedding."""
    index_bytes: int
    query_embed_ms_p50: float
    query_embed_ms_p99: float
    search_ms_p50: float
    search_ms_p99: float
    peak_rss_mb: float


def synthetic_records(n: int, seed: int = 0) -> list[SkillRecord]:
    """``n`` made-up skills with varied names, descriptions and examples."""
    rng = np.random.default_rng(seed)
    records = []
    for i in range(n):
        verb, obj = str(rng.choice(VERBS)), str(rng.choice(OBJECTS))
        material, manner = str(rng.choice(MATERIALS)), str(rng.choice(MANNERS))
        records.append(
            SkillRecord(
                name=f"{verb}_{obj}_{i}",
                version=1,
                kind="policy" if i % 3 else "controller",
                implementation="claw.skills.synthetic:Synthetic",
                description=f"{verb.capitalize()} the {material} {obj} {manner}.",
                examples=[f"{verb} a {obj}", f"{manner} {verb} the {obj}"],
                tags=[verb, obj],
            )
        )
    return records


def _ms(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)) * 1e3, 4)


def bench_library(
    skills: int = 10_000, queries: int = 200, embedder: str | None = None
) -> LibraryBench:
    """Build a synthetic library of ``skills`` skills and time what retrieval costs."""
    records = synthetic_records(skills)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        library = SkillLibrary(root, register_builtins=False, embedder=embedder)
        tic = time.perf_counter()
        data = Manifest(skills=records).model_dump_json().encode()
        atomic_write(library.manifest_path, data)
        write_seconds = time.perf_counter() - tic
        tic = time.perf_counter()
        latest = library.latest()
        load_seconds = time.perf_counter() - tic

        model = library.embedder
        model.embed(["warm up"])
        texts = [text for record in latest for text in record.texts()]
        index = SkillIndex(root, model)
        tic = time.perf_counter()
        vectors = index.embed_texts(texts)
        embed_seconds = time.perf_counter() - tic
        tic = time.perf_counter()
        index.build(latest, vectors)
        build_seconds = time.perf_counter() - tic
        index_bytes = (root / "index.faiss").stat().st_size

        rng = np.random.default_rng(1)
        asks = [
            f"{rng.choice(VERBS)} the {rng.choice(MATERIALS)} {rng.choice(OBJECTS)}"
            for _ in range(queries)
        ]
        embed_times, search_times = [], []
        for ask in asks:
            tic = time.perf_counter()
            vector = index.embed_texts([ask])[0]
            embed_times.append(time.perf_counter() - tic)
            tic = time.perf_counter()
            index.search_vector(vector, 5)
            search_times.append(time.perf_counter() - tic)
    return LibraryBench(
        skills=skills,
        rows=len(texts),
        index_kind=index.kind,
        embedder=model.name,
        manifest_write_seconds=round(write_seconds, 3),
        manifest_load_seconds=round(load_seconds, 3),
        embed_seconds=round(embed_seconds, 2),
        index_build_seconds=round(build_seconds, 2),
        index_bytes=index_bytes,
        query_embed_ms_p50=_ms(embed_times, 50),
        query_embed_ms_p99=_ms(embed_times, 99),
        search_ms_p50=_ms(search_times, 50),
        search_ms_p99=_ms(search_times, 99),
        peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    )
