"""Retrieval: a FAISS index over the skills' texts, persisted beside the manifest.

Each skill (latest version) contributes several rows — its name, description and example
phrases. A skill's score for a query is the mean of two cosines (the embeddings are unit
vectors): with its best-matching row, and with the centroid of all its rows — the closest phrase
and the skill's meaning as a whole. Measured on the project's paraphrase sets, the pair beats
either alone (docs/concepts/library.md, "Retrieval"). Small libraries use an exact flat index; past
``APPROXIMATE_FROM`` rows an HNSW graph. The index is derived data: it is rebuilt whenever it is
missing, unreadable, or was built from another manifest or another embedder.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from claw.common.files import atomic_write
from claw.library.embedding import Embedder, retrieval_text
from claw.library.manifest import SkillRecord

if TYPE_CHECKING:
    import faiss

INDEX_FILE = "index.faiss"
META_FILE = "index.json"
CENTROIDS_FILE = "index.centroids.npy"
APPROXIMATE_FROM = 20_000  # rows; above this an HNSW graph replaces the exact flat index
HNSW_NEIGHBOURS = 32
HNSW_EF_SEARCH = 128
HNSW_EF_CONSTRUCTION = 80


@dataclass(frozen=True)
class SearchHit:
    """A skill found for a query, its score (cosine, higher is closer) and the text matched."""

    record: SkillRecord
    score: float
    matched: str


TEXT_PIPELINE = "masked-v1/max+centroid"  # how texts are prepared before embedding (retrieval_text)


def fingerprint(records: Sequence[SkillRecord], embedder_name: str) -> str:
    """What an index was built from: the indexed records' texts and keys, and the embedder."""
    digest = hashlib.sha256(f"{embedder_name}/{TEXT_PIPELINE}".encode())
    for record in records:
        digest.update(record.key.encode())
        for text in record.texts():
            digest.update(b"\0" + text.encode())
    return digest.hexdigest()


class SkillIndex:
    """A FAISS index over skill records, saved as ``index.faiss`` + ``index.json`` in ``folder``."""

    def __init__(self, folder: Path, embedder: Embedder) -> None:
        self.folder = folder
        self.embedder = embedder
        self._index: faiss.Index | None = None
        self._rows: list[tuple[str, str]] = []  # (record key, text) per row
        self._fingerprint = ""
        self._centroids: dict[str, np.ndarray] = {}
        self.save_error: OSError | None = None
        """Why the last build could not be saved (a read-only folder): it is used in memory."""

    def ensure(self, records: Sequence[SkillRecord]) -> None:
        """Load the saved index if it matches ``records`` and the embedder, else rebuild it."""
        wanted = fingerprint(records, self.embedder.name)
        if self._index is not None and self._fingerprint == wanted:
            return
        if not self._load(wanted):
            self.build(records)

    def _load(self, wanted: str) -> bool:
        import faiss

        try:
            meta = json.loads((self.folder / META_FILE).read_text())
            if meta.get("fingerprint") != wanted:
                return False
            index = faiss.read_index(str(self.folder / INDEX_FILE))
            centroids = np.load(self.folder / CENTROIDS_FILE, allow_pickle=False)
        except (OSError, ValueError, RuntimeError):
            return False  # missing, damaged or stale: rebuilt from the manifest
        rows = [tuple(row) for row in meta.get("rows", [])]
        keys = meta.get("keys", [])
        if (
            index.ntotal != len(rows)
            or index.d != self.embedder.dim
            or centroids.shape != (len(keys), self.embedder.dim)
        ):
            return False
        self._index, self._rows, self._fingerprint = index, rows, wanted
        self._centroids = {key: centroids[i] for i, key in enumerate(keys)}
        return True

    def build(self, records: Sequence[SkillRecord], vectors: np.ndarray | None = None) -> None:
        """Embed every record's texts (unless given), build the index, and save it atomically
        (where the folder cannot be written, ``save_error`` says why and it lives in memory).

        Args:
            records: The records to index, each contributing ``record.texts()`` rows.
            vectors: Their texts' embeddings, in that order, if already computed.
        """
        import faiss

        rows = [(record.key, text) for record in records for text in record.texts()]
        if vectors is None:
            vectors = self.embed_texts([text for _, text in rows])
        vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(
            len(rows), self.embedder.dim
        )
        index: faiss.Index
        if len(rows) > APPROXIMATE_FROM:
            index = faiss.IndexHNSWFlat(
                self.embedder.dim, HNSW_NEIGHBOURS, faiss.METRIC_INNER_PRODUCT
            )
            index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
            index.hnsw.efSearch = HNSW_EF_SEARCH
        else:
            index = faiss.IndexFlatIP(self.embedder.dim)
        if rows:
            index.add(vectors)
        keys = [record.key for record in records]
        owner = np.array([key for key, _ in rows])
        centroids = np.zeros((len(keys), self.embedder.dim), dtype=np.float32)
        for i, key in enumerate(keys):
            if len(owner):
                mean = vectors[owner == key].mean(axis=0)
                centroids[i] = mean / max(float(np.linalg.norm(mean)), 1e-12)
        self._centroids = {key: centroids[i] for i, key in enumerate(keys)}
        self._index, self._rows = index, rows
        self._fingerprint = fingerprint(records, self.embedder.name)
        buffer = io.BytesIO()
        np.save(buffer, centroids, allow_pickle=False)
        meta: dict[str, Any] = {
            "fingerprint": self._fingerprint,
            "embedder": self.embedder.name,
            "kind": "hnsw" if len(rows) > APPROXIMATE_FROM else "flat",
            "rows": rows,
            "keys": keys,
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            atomic_write(self.folder / INDEX_FILE, faiss.serialize_index(index).tobytes())
            atomic_write(self.folder / CENTROIDS_FILE, buffer.getvalue())
            atomic_write(self.folder / META_FILE, json.dumps(meta).encode())
            self.save_error = None
        except OSError as exc:
            self.save_error = exc

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of skill texts or queries, prepared alike (scene objects masked).

        Each distinct prepared text is embedded once.
        """
        prepared = [retrieval_text(text) for text in texts]
        unique = sorted(set(prepared))
        if not unique:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        vectors = self.embedder.embed(unique)
        row = {text: i for i, text in enumerate(unique)}
        return vectors[[row[text] for text in prepared]]

    def search(
        self, query: str, k: int, allowed: set[str] | None = None
    ) -> list[tuple[str, float, str]]:
        """The ``k`` best record keys for a request in words: (key, score, matched text)."""
        return self.search_vector(self.embed_texts([query])[0], k, allowed)

    @property
    def kind(self) -> str:
        return "hnsw" if len(self._rows) > APPROXIMATE_FROM else "flat"

    def search_vector(
        self, query: np.ndarray, k: int, allowed: set[str] | None = None
    ) -> list[tuple[str, float, str]]:
        """The ``k`` best record keys for an embedded query: (key, score, matched text).

        Args:
            query: A unit vector, shape (dim,).
            k: How many distinct records to return.
            allowed: Only these record keys (filters by kind or tags); ``None`` for all.
        """
        import faiss

        assert self._index is not None, "call ensure() first"
        if not self._rows or k <= 0:
            return []
        vector = np.ascontiguousarray(query, dtype=np.float32).reshape(1, -1)
        params = None
        if allowed is not None:
            ids = np.array([i for i, (key, _) in enumerate(self._rows) if key in allowed], "int64")
            if not len(ids):
                return []
            selector = faiss.IDSelectorBatch(ids)
            # faiss's stubs lack SearchParametersHNSW and the keyword constructor its wrappers add.
            params = (
                faiss.SearchParametersHNSW(sel=selector, efSearch=HNSW_EF_SEARCH)  # type: ignore[attr-defined]
                if self.kind == "hnsw"
                else faiss.SearchParameters(sel=selector)  # type: ignore[call-arg]
            )
        # Rows, not records, come back: fetch more than k so that enough distinct records
        # remain to be re-ranked with their centroids.
        fetch = min(len(self._rows), max(8 * k, k + 32))
        while True:
            scores, ids = self._index.search(vector, fetch, params=params)
            best: dict[str, tuple[float, str]] = {}
            for score, i in zip(scores[0], ids[0], strict=True):
                if i < 0:
                    continue
                key, text = self._rows[i]
                if key not in best:
                    best[key] = (float(score), text)
            if len(best) >= k or fetch >= len(self._rows):
                break
            fetch = min(len(self._rows), fetch * 4)
        flat = vector[0]
        scored = [
            (key, 0.5 * (score + float(self._centroids[key] @ flat)), text)
            for key, (score, text) in best.items()
        ]
        return sorted(scored, key=lambda item: -item[1])[:k]
