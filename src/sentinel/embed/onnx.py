"""In-process multilingual-e5 embedding: ONNX Runtime + tokenizers, no torch.

This is the only place that adds e5's ``query: `` / ``passage: `` prefixes, fits a text to the model's 512
tokens, and pools token states into one vector per text. The embedder service runs this same class, so vectors
from HTTP and in-process are the same numbers.

A text longer than 512 tokens is not cut at 512 (36 of the eval vault's 4,066 chunks are longer: markup-dense
German, Spanish and Turkish pages most): it is read in overlapping windows of 512, each with the prefix, and
its vector is the mean of theirs weighted by their tokens (mean pooling over the whole text, window by
window). Only past ``MAX_WINDOWS`` windows is the rest left unread, and reported as cut.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from sentinel.embed.base import EmbedderUnavailable, Embedding, EmbedKind, ModelIdentity, check_embed_input
from sentinel.embed.selfcheck import verify_model

E5_MAX_TOKENS = 512  # multilingual-e5-small has 512 position embeddings, <s> and </s> included
WINDOW_OVERLAP = 64  # tokens a window repeats from the one before, so no sentence is only ever read cut
MAX_WINDOWS = 8  # ~3,600 tokens: more than any 250-word chunk of the eval vault (the longest has 795)
# A batch's rows are padded to its longest, so a batch holds only windows within this ratio of its shortest.
# Measured on 256 eval-vault chunks, 2 idle cores (bench/embed_throughput.py): batches of 32 cut by count alone
# ran 8 chunks/s when a call held 32 chunks and 15 with 64 (the service gets 32 per request); cut at 1.25x as
# well, 51 and 54. 1.5x and 2x gave 44-47 and 35-38.
PAD_RATIO = 1.25
E5_PREFIXES: dict[EmbedKind, str] = {"query": "query: ", "passage": "passage: "}
# The official export (hf download ... onnx/model.onnx) first, then the layout `make models` builds.
MODEL_FILE_CANDIDATES = ("onnx/model.onnx", "model.onnx")
TOKENIZER_FILE = "tokenizer.json"
HASH_CHARS = 16
CUDA, CPU = "CUDAExecutionProvider", "CPUExecutionProvider"


@dataclass(frozen=True)
class ModelFiles:
    model: Path
    tokenizer: Path


def locate_model_files(model_dir: Path, model_file: str = "") -> ModelFiles:
    """Find the ONNX file and tokenizer.json in ``model_dir``, or say exactly which file is missing."""
    how_to_get = "run `make models` or download the official export (see deploy/models/README.md)"
    if not model_dir.is_dir():
        raise EmbedderUnavailable(f"embedding model directory {model_dir} does not exist: {how_to_get}")
    candidates = (model_file,) if model_file else MODEL_FILE_CANDIDATES
    found = [model_dir / name for name in candidates if (model_dir / name).is_file()]
    if not found:
        expected = " or ".join(str(model_dir / name) for name in candidates)
        raise EmbedderUnavailable(f"embedding model file missing: expected {expected}; {how_to_get}")
    tokenizer = model_dir / TOKENIZER_FILE
    if not tokenizer.is_file():
        raise EmbedderUnavailable(f"tokenizer file missing: expected {tokenizer} beside {found[0].name}; {how_to_get}")
    return ModelFiles(model=found[0], tokenizer=tokenizer)


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()[:HASH_CHARS]


class OnnxEmbedder:
    """multilingual-e5(-small) in this process. Thread-safe: ONNX Runtime sessions allow concurrent runs."""

    def __init__(self, model_dir: Path, *, threads: int = 2, batch: int = 32, model_file: str = "") -> None:
        if threads < 1 or batch < 1:
            raise ValueError(f"embed threads and batch must be >= 1, got threads={threads} batch={batch}")
        self.files = locate_model_files(model_dir, model_file)
        self.batch = batch
        self._session = _open_session(self.files.model, threads)
        self._tokenizer, self._bos, self._eos, self._pad = _open_tokenizer(self.files.tokenizer)
        inputs = {i.name for i in self._session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= inputs:
            raise EmbedderUnavailable(
                f"{self.files.model} takes inputs {sorted(inputs)}; an e5 encoder takes input_ids and "
                "attention_mask: is this the right model file?"
            )
        self._wants_token_types = "token_type_ids" in inputs
        outputs = self._session.get_outputs()
        self._output = next((o for o in outputs if o.name == "last_hidden_state"), outputs[0])
        dims = self._output.shape[-1]
        self.identity = ModelIdentity(
            name=model_dir.resolve().name,
            dims=dims if isinstance(dims, int) else self._run([[self._bos, self._eos]]).shape[1],
            file_hash=file_hash(self.files.model),
        )
        # Refuses a model that does not reproduce its reference vectors on this CPU (see selfcheck.py).
        self.self_check = verify_model(
            model_dir, self.files.model, self.identity.file_hash, lambda texts, kind: self.embed(texts, kind).vectors
        )

    @property
    def providers(self) -> list[str]:
        """The ONNX Runtime providers this session runs on (CUDA first where the build and the machine offer it)."""
        return list(self._session.get_providers())

    @property
    def lost_cuda(self) -> bool:
        """This onnxruntime build offers CUDA but the session runs without it: onnxruntime fell back to the CPU
        (no GPU, or CUDA/cuDNN libraries it could not load), which it only warns about."""
        return CUDA in providers() and CUDA not in self.providers

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> Embedding:
        check_embed_input(texts, kind)
        prefix = E5_PREFIXES[kind]
        encodings = self._tokenizer.encode_batch([prefix + t for t in texts], add_special_tokens=False)
        prefix_ids = self._tokenizer.encode(prefix.rstrip(), add_special_tokens=False).ids
        tokens = [len(e.ids) + 2 for e in encodings]
        windows, owner, truncated = [], [], []
        for text, encoding in enumerate(encodings):
            pieces, cut = _windows(encoding.ids, prefix_ids)
            windows += [[self._bos, *piece, self._eos] for piece in pieces]
            owner += [text] * len(pieces)
            truncated.append(cut)
        pooled = np.zeros((len(windows), self.identity.dims), dtype=np.float32)
        for rows in length_batches([len(w) for w in windows], self.batch):
            pooled[rows] = self._run([windows[i] for i in rows])
        if len(windows) == len(texts):  # every text in one window: its vector is that window's
            return Embedding(vectors=pooled, truncated=truncated, tokens=tokens)
        weights = np.array([len(w) for w in windows], dtype=np.float32)[:, None]
        vectors = np.zeros((len(texts), self.identity.dims), dtype=np.float32)
        np.add.at(vectors, np.array(owner), pooled * weights)
        vectors /= np.maximum(np.sqrt((vectors * vectors).sum(axis=1, keepdims=True)), 1e-12)
        return Embedding(vectors=vectors, truncated=truncated, tokens=tokens)

    def _run(self, batch: list[list[int]]) -> np.ndarray:
        width = max(len(ids) for ids in batch)
        input_ids = np.full((len(batch), width), self._pad, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, ids in enumerate(batch):
            input_ids[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if self._wants_token_types:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        hidden = self._session.run([self._output.name], feeds)[0]
        # Mean over real tokens, then unit length (e5's pooling). Elementwise numpy only: no BLAS threads
        # competing with ONNX Runtime's.
        weights = mask.astype(np.float32)[:, :, None]
        pooled = (hidden * weights).sum(axis=1) / weights.sum(axis=1)
        norms = np.sqrt((pooled * pooled).sum(axis=1, keepdims=True))
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


def length_batches(lengths: Sequence[int], batch: int, ratio: float = PAD_RATIO) -> list[list[int]]:
    """The indices of ``lengths`` in batches of at most ``batch``, shortest first, each holding lengths within
    ``ratio`` of its shortest: padding to a batch's longest row then wastes little compute."""
    batches: list[list[int]] = []
    for index in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        current = batches[-1] if batches else None
        if current is None or len(current) == batch or lengths[index] > ratio * lengths[current[0]]:
            batches.append([index])
        else:
            current.append(index)
    return batches


def _windows(ids: list[int], prefix_ids: list[int]) -> tuple[list[list[int]], bool]:
    """A text's token ids (prefix included) as windows that fit the model, and whether some were left unread.

    The first window is the text's head exactly as a short text is read; each later one starts with the prefix
    again and repeats ``WINDOW_OVERLAP`` tokens of the one before."""
    room = E5_MAX_TOKENS - 2
    pieces = [ids[:room]]
    step = room - len(prefix_ids) - WINDOW_OVERLAP
    start = room - WINDOW_OVERLAP
    while start + WINDOW_OVERLAP < len(ids) and len(pieces) < MAX_WINDOWS:
        pieces.append(prefix_ids + ids[start : start + room - len(prefix_ids)])
        start += step
    return pieces, start + WINDOW_OVERLAP < len(ids)


def _open_session(model: Path, threads: int) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # No arena: it would keep the peak of the largest batch ever seen for the life of the service (measured:
    # same speed, ~100 MB less after one batch of 16 x 256 tokens).
    options.enable_cpu_mem_arena = False
    # Idle worker threads sleep instead of spinning: the embedder shares two cores with the API and the LLM
    # (measured under load: ~20% less CPU per passage, no slower).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    chosen = providers()
    if CUDA in chosen and hasattr(ort, "preload_dlls"):
        # onnxruntime-gpu[cuda,cudnn] brings CUDA and cuDNN as pip packages, which the loader does not search by
        # itself; this loads them from there (or the system's), and does nothing in a CPU build.
        ort.preload_dlls()
    try:
        return ort.InferenceSession(str(model), sess_options=options, providers=chosen)
    except Exception as exc:  # onnxruntime raises its own untyped errors for bad files
        raise EmbedderUnavailable(
            f"{model} is not a loadable ONNX model ({exc}); delete it and run `make models`"
        ) from exc


def providers(offered: Sequence[str] | None = None) -> list[str]:
    """Of the providers ``offered`` (this onnxruntime build's by default), CUDA first where offered (the ``gpu``
    extra, onnxruntime-gpu), then the CPU; no other (a CPU build also offers Azure's, a remote one).
    A GPU's vectors pass the same start-up self-check as the CPU's (``verify_model`` embeds through this
    session), so a GPU whose numerics drift is refused at load like a CPU would be."""
    available = ort.get_available_providers() if offered is None else offered
    return [name for name in (CUDA, CPU) if name in available]


def _open_tokenizer(path: Path) -> tuple[Tokenizer, int, int, int]:
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises a bare Exception for unreadable JSON
        raise EmbedderUnavailable(f"{path} is not a readable tokenizer.json ({exc})") from exc
    # Truncation and specials are applied here (to report truncation), whatever the file configures.
    tokenizer.no_truncation()
    tokenizer.no_padding()
    specials = [tokenizer.token_to_id(token) for token in ("<s>", "</s>", "<pad>")]
    bos, eos, pad = specials
    if bos is None or eos is None or pad is None:
        raise EmbedderUnavailable(f"{path} lacks <s>, </s> or <pad>: not an XLM-R (e5) tokenizer")
    return tokenizer, bos, eos, pad
