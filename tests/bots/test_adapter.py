"""MiniLM's adapter: low-rank updates added to the published weights when the encoder loads, and
subtracted again by its `published` reading."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from fabula.bots.semantic.encoder import ADAPTER, Encoder, merge_updates, model_dir, read_adapter
from fabula.bots.semantic.guesser import Guesser
from fabula.bots.semantic.memory import ClueMemory, PastRound
from fabula.cards.model import Card

TEXTS = ["A lighthouse stands on a rock in a storm.", "Guiding light", "Loneliness"]
LAYER = "encoder.layer.2.attention.self.query"


@pytest.fixture(scope="module")
def plain() -> Encoder:
    return Encoder(adapter=None)


def one_layer_adapter(path: Path, scale: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    down = (rng.standard_normal((4, 384)) * 0.05).astype(np.float16)
    up = (rng.standard_normal((384, 4)) * 0.05).astype(np.float16)
    save_file({f"{LAYER}.lora_A": down, f"{LAYER}.lora_B": up}, str(path), metadata={"scale": str(scale)})
    return down, up


def test_the_shipped_adapter_is_small_and_changes_the_vectors(plain: Encoder) -> None:
    """(That the adapted model still reads clues sensibly is what the guesser's and the bots'
    tests check: they run on it.)"""
    assert ADAPTER.stat().st_size < 4_000_000
    adapted = Encoder()
    assert adapted.name != plain.name
    before, after = plain.encode(TEXTS), adapted.encode(TEXTS)
    assert ((before * after).sum(axis=1) < 0.99).all()
    assert np.linalg.norm(after, axis=1) == pytest.approx(1.0, abs=1e-5)


def test_an_adapter_adds_scale_times_its_low_rank_product(plain: Encoder, tmp_path: Path) -> None:
    down, up = one_layer_adapter(tmp_path / "adapter.safetensors", scale=2.0)
    # The same model with that update written into its weights by hand, in a folder of its own.
    folder = tmp_path / "model"
    folder.mkdir()
    for item in model_dir().iterdir():
        if item.name != "model.safetensors":
            (folder / item.name).symlink_to(item)
    weights = load_file(str(model_dir() / "model.safetensors"))
    weights[f"{LAYER}.weight"] = weights[f"{LAYER}.weight"] + 2.0 * (up.astype(np.float32) @ down.astype(np.float32))
    save_file(weights, str(folder / "model.safetensors"))
    by_hand = Encoder(folder, adapter=None).encode(TEXTS)
    merged = Encoder(adapter=tmp_path / "adapter.safetensors").encode(TEXTS)
    assert merged == pytest.approx(by_hand, abs=1e-5)
    assert not np.allclose(merged, plain.encode(TEXTS), atol=1e-4)


def test_an_adapter_of_zeros_leaves_the_model_as_published(plain: Encoder, tmp_path: Path) -> None:
    path = tmp_path / "zeros.safetensors"
    save_file(
        {f"{LAYER}.lora_A": np.ones((4, 384), np.float16), f"{LAYER}.lora_B": np.zeros((384, 4), np.float16)},
        str(path),
        metadata={"scale": "2.0"},
    )
    assert Encoder(adapter=path).encode(TEXTS) == pytest.approx(plain.encode(TEXTS), abs=1e-6)


def test_a_broken_adapter_is_refused_with_its_reason(tmp_path: Path) -> None:
    weights = {f"{LAYER}.weight": np.zeros((384, 384), np.float32)}
    no_scale = tmp_path / "no-scale.safetensors"
    save_file({f"{LAYER}.lora_A": np.zeros((4, 384)), f"{LAYER}.lora_B": np.zeros((384, 4))}, str(no_scale))
    with pytest.raises(ValueError, match="scale"):
        read_adapter(no_scale, weights)
    elsewhere = tmp_path / "elsewhere.safetensors"
    save_file(
        {"decoder.x.lora_A": np.zeros((4, 384)), "decoder.x.lora_B": np.zeros((384, 4))},
        str(elsewhere),
        metadata={"scale": "1"},
    )
    with pytest.raises(ValueError, match=r"no decoder\.x\.weight"):
        read_adapter(elsewhere, weights)


def test_vectors_kept_on_disk_by_one_variant_are_not_read_by_the_other(tmp_path: Path) -> None:
    cache = tmp_path / "vectors.npz"
    plain = Encoder(adapter=None, cache_file=cache)
    plain.encode(TEXTS)
    plain.save_cache(TEXTS)
    assert cache.is_file()
    assert set(Encoder(adapter=None, cache_file=cache)._cache) == set(TEXTS)
    assert Encoder(cache_file=cache)._cache == {}


def test_an_adapter_updates_a_read_only_or_other_typed_weight_by_a_copy(tmp_path: Path) -> None:
    down, up = one_layer_adapter(tmp_path / "adapter.safetensors", scale=0.5)
    frozen = np.ones((384, 384))  # float64
    frozen.flags.writeable = False
    weights = {f"{LAYER}.weight": frozen}
    merge_updates(weights, read_adapter(tmp_path / "adapter.safetensors", weights))
    merged = weights[f"{LAYER}.weight"]
    assert merged.dtype == np.float32
    assert merged == pytest.approx(1.0 + 0.5 * (up.astype(np.float32) @ down.astype(np.float32)), abs=1e-6)
    assert (frozen == 1.0).all()


def test_the_published_reading_is_the_model_without_its_adapter(plain: Encoder) -> None:
    adapted = Encoder()
    published = adapted.published
    assert published is adapted.published
    assert published.name == plain.name != adapted.name
    assert published.encode(TEXTS) == pytest.approx(plain.encode(TEXTS), abs=1e-5)
    assert not np.allclose(published.encode(TEXTS), adapted.encode(TEXTS), atol=1e-3)
    assert plain.published is plain


def test_a_guesser_compares_a_clue_with_its_memory_in_the_memory_s_reading() -> None:
    """The memory may read clues otherwise than the guesser reads card texts (MiniLM as published
    against MiniLM with its adapter): each comparison uses its own reading of the clue."""
    adapted = Encoder()
    cards = [Card("a", "", "A lighthouse on a rock in a storm."), Card("b", "", "A cat asleep on a sofa.")]
    memory = ClueMemory(adapted.published)
    memory.add([PastRound("Guiding light", ("a", "b"), "a", {"a": 1.0})] * 5)
    guesser = Guesser(memory=memory, encoder=adapted)
    features, with_memory = guesser.features("Beacon", cards)
    assert with_memory
    expected, _ = memory.features("Beacon", adapted.published.encode_one("Beacon"), ["a", "b"])
    assert features[:, -expected.shape[1] :] == pytest.approx(expected)
    misread, _ = memory.features("Beacon", adapted.encode_one("Beacon"), ["a", "b"])
    assert not np.allclose(misread, expected)
