#!/usr/bin/python3
"""PyTorch reference for engram's C++ BERT runtime.

The `transformers` library is not installable here, so the reference encoder
is a plain PyTorch module written from the BERT architecture (embeddings ->
N x [self-attention, add & LayerNorm, GELU(erf) feed-forward, add & LayerNorm]
-> optional pooler + classifier), and the tokenizer is a plain Python
BertTokenizer. Both are independent of the C++ code they check.

  bert_reference.py fixtures OUT_DIR
      Tiny random-weight models with the architectures engram supports
      (bge-zh, bge-en, MiniLM, e5, a cross-encoder), written as Hugging Face
      directories, plus reference.json: token ids, last hidden states, pooled
      and normalised embeddings, reranker scores. Committed under
      tests/fixtures/models (regenerate with this command; seed fixed).
  bert_reference.py bench-model OUT_DIR --shape bge-small-zh|bge-small-en
      A real-size random-weight model (real vocabulary from ../shared/models).
  bert_reference.py bench-torch MODEL_DIR --batch B --seq L --threads T
      PyTorch's throughput at B x L and median latency of one 16-token query,
      as JSON, for bench/run-embed-bench.

Needs Debian's python3-torch; installs it (apt) when missing. `make test`
never runs this script.
"""
import argparse
import json
import math
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import time
import unicodedata


def ensure_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        print("bert_reference: installing python3-torch (apt)", file=sys.stderr)
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "python3-torch"],
                       check=True, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


# ---------------------------------------------------------------- tokenizer

def is_whitespace(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def is_control(ch):
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf")


def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


class Tokenizer:
    def __init__(self, vocab, lowercase, st_lowercase=False, max_length=512):
        self.vocab = {t: i for i, t in enumerate(vocab)}
        self.lowercase = lowercase          # BertNormalizer lowercase (+ accent stripping)
        self.st_lowercase = st_lowercase    # sentence-transformers str.lower() before tokenising
        self.max_length = max_length

    def basic(self, text):
        out = []
        for ch in text:
            cp = ord(ch)
            if cp == 0 or cp == 0xFFFD or is_control(ch):
                continue
            if is_whitespace(ch):
                out.append(" ")
            elif is_cjk(cp):
                out.append(" " + ch + " ")
            else:
                out.append(ch)
        words = []
        for tok in "".join(out).split():
            if self.lowercase:
                tok = "".join(c for c in unicodedata.normalize("NFD", tok.lower()) if unicodedata.category(c) != "Mn")
            cur = ""
            for ch in tok:
                if is_punctuation(ch):
                    if cur:
                        words.append(cur)
                    words.append(ch)
                    cur = ""
                else:
                    cur += ch
            if cur:
                words.append(cur)
        return words

    def wordpiece(self, word):
        unk = self.vocab["[UNK]"]
        if len(word) > 100:
            return [unk]
        pieces, start = [], 0
        while start < len(word):
            end, found = len(word), None
            while end > start:
                piece = ("##" if start else "") + word[start:end]
                if piece in self.vocab:
                    found = self.vocab[piece]
                    break
                end -= 1
            if found is None:
                return [unk]
            pieces.append(found)
            start = end
        return pieces

    def tokenize(self, text):
        if self.st_lowercase:
            text = text.strip().lower()
        ids = []
        for w in self.basic(text):
            ids.extend(self.wordpiece(w))
        return ids

    def encode(self, text):
        ids = self.tokenize(text)[: self.max_length - 2]
        return [self.vocab["[CLS]"]] + ids + [self.vocab["[SEP]"]], None

    def encode_pair(self, a, b):
        x, y = self.tokenize(a), self.tokenize(b)
        while len(x) + len(y) > self.max_length - 3:
            if len(x) >= len(y):
                x.pop()
            else:
                y.pop()
        cls, sep = self.vocab["[CLS]"], self.vocab["[SEP]"]
        ids = [cls] + x + [sep] + y + [sep]
        types = [0] * (len(x) + 2) + [1] * (len(y) + 1)
        return ids, types


# ---------------------------------------------------------------- the model

def build_bert(cfg, classifier=False):
    import torch
    from torch import nn

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            h, i = cfg["hidden_size"], cfg["intermediate_size"]
            self.q, self.k, self.v, self.o = (nn.Linear(h, h) for _ in range(4))
            self.ln1 = nn.LayerNorm(h, eps=cfg["layer_norm_eps"])
            self.up, self.down = nn.Linear(h, i), nn.Linear(i, h)
            self.ln2 = nn.LayerNorm(h, eps=cfg["layer_norm_eps"])
            self.heads = cfg["num_attention_heads"]

        def forward(self, x, bias):
            b, s, h = x.shape
            d = h // self.heads
            split = lambda t: t.view(b, s, self.heads, d).transpose(1, 2)  # noqa: E731
            q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
            scores = q @ k.transpose(-1, -2) / math.sqrt(d) + bias
            ctx = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, h)
            x = self.ln1(x + self.o(ctx))
            return self.ln2(x + self.down(torch.nn.functional.gelu(self.up(x))))

    class Bert(nn.Module):
        def __init__(self):
            super().__init__()
            h = cfg["hidden_size"]
            self.word = nn.Embedding(cfg["vocab_size"], h)
            self.pos = nn.Embedding(cfg["max_position_embeddings"], h)
            self.tok_type = nn.Embedding(cfg["type_vocab_size"], h)
            self.ln = nn.LayerNorm(h, eps=cfg["layer_norm_eps"])
            self.layers = nn.ModuleList(Layer() for _ in range(cfg["num_hidden_layers"]))
            if classifier:
                self.pooler = nn.Linear(h, h)
                self.classifier = nn.Linear(h, cfg.get("num_labels", 1))

        def forward(self, ids, types, mask):
            s = ids.shape[1]
            x = self.ln(self.word(ids) + self.pos(torch.arange(s)).unsqueeze(0) + self.tok_type(types))
            bias = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
            for layer in self.layers:
                x = layer(x, bias)
            return x

        def score(self, hidden):
            return self.classifier(torch.tanh(self.pooler(hidden[:, 0])))

        def state(self):
            """Tensors under Hugging Face's names."""
            t = {
                "embeddings.word_embeddings.weight": self.word.weight,
                "embeddings.position_embeddings.weight": self.pos.weight,
                "embeddings.token_type_embeddings.weight": self.tok_type.weight,
                "embeddings.LayerNorm.weight": self.ln.weight,
                "embeddings.LayerNorm.bias": self.ln.bias,
            }
            for n, l in enumerate(self.layers):
                p = f"encoder.layer.{n}."
                for name, mod in (("attention.self.query", l.q), ("attention.self.key", l.k),
                                  ("attention.self.value", l.v), ("attention.output.dense", l.o),
                                  ("attention.output.LayerNorm", l.ln1), ("intermediate.dense", l.up),
                                  ("output.dense", l.down), ("output.LayerNorm", l.ln2)):
                    t[p + name + ".weight"] = mod.weight
                    t[p + name + ".bias"] = mod.bias
            if classifier:
                t = {"bert." + k: v for k, v in t.items()}
                t["bert.pooler.dense.weight"] = self.pooler.weight
                t["bert.pooler.dense.bias"] = self.pooler.bias
                t["classifier.weight"] = self.classifier.weight
                t["classifier.bias"] = self.classifier.bias
            return t

    return Bert()


def randomize(model, gen):
    import torch
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "ln" in name.split(".")[-2] or name.startswith("ln."):
                p.copy_((1.0 if name.endswith("weight") else 0.0) + 0.1 * torch.randn(p.shape, generator=gen))
            elif p.dim() == 2:
                fan_in = p.shape[1]
                scale = 0.5 if name.startswith(("word", "pos", "tok_type")) else 1.0 / math.sqrt(fan_in)
                p.copy_(scale * torch.randn(p.shape, generator=gen))
            else:
                p.copy_(0.05 * torch.randn(p.shape, generator=gen))


def write_safetensors(path, tensors, dtype):
    import torch
    codes = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().to(codes[dtype]).contiguous()
        raw = t.view(torch.int16).numpy().tobytes() if dtype != "F32" else t.numpy().tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * ((8 - len(head) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)))
        f.write(head)
        for b in blobs:
            f.write(b)


def round_to_dtype(model, dtype):
    """The reference must run on the weights the file holds."""
    import torch
    if dtype == "F32":
        return
    codes = {"F16": torch.float16, "BF16": torch.bfloat16}
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.to(codes[dtype]).float())


# ---------------------------------------------------------------- writing a model directory

def bert_config(h, layers, heads, inter, vocab, arch="BertModel", extra=None):
    cfg = {"architectures": [arch], "model_type": "bert", "hidden_size": h, "num_hidden_layers": layers,
           "num_attention_heads": heads, "intermediate_size": inter, "vocab_size": vocab,
           "max_position_embeddings": 512, "type_vocab_size": 2, "layer_norm_eps": 1e-12,
           "hidden_act": "gelu", "pad_token_id": 0, "position_embedding_type": "absolute",
           "torch_dtype": "float32"}
    cfg.update(extra or {})
    return cfg


def write_model_dir(out, cfg, model, vocab, *, dtype, lower, st_lower, max_seq, pooling, normalize,
                    prompts=None, tokenizer_json=None, vocab_txt=True):
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    write_safetensors(out / "model.safetensors", model.state(), dtype)
    if vocab_txt:
        (out / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
        (out / "tokenizer_config.json").write_text(json.dumps({
            "tokenizer_class": "BertTokenizer", "do_lower_case": lower, "strip_accents": None,
            "tokenize_chinese_chars": True, "model_max_length": 512, "unk_token": "[UNK]",
            "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "mask_token": "[MASK]"}, indent=2) + "\n")
    if tokenizer_json is not None:
        (out / "tokenizer.json").write_text(json.dumps(tokenizer_json, ensure_ascii=False) + "\n", encoding="utf-8")
    if pooling is None:
        return
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
    (out / "modules.json").write_text(json.dumps(modules, indent=2) + "\n")
    (out / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": max_seq, "do_lower_case": st_lower}) + "\n")
    (out / "1_Pooling").mkdir(exist_ok=True)
    (out / "1_Pooling" / "config.json").write_text(json.dumps({
        "word_embedding_dimension": cfg["hidden_size"], "pooling_mode_cls_token": pooling == "cls",
        "pooling_mode_mean_tokens": pooling == "mean", "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False}, indent=2) + "\n")
    st = {"__version__": {"sentence_transformers": "2.7.0"}}
    if prompts:
        st["prompts"] = prompts
        st["default_prompt_name"] = None
    (out / "config_sentence_transformers.json").write_text(json.dumps(st, ensure_ascii=False, indent=2) + "\n",
                                                           encoding="utf-8")


def tokenizer_json_for(vocab, lower, truncation_max):
    # The all-MiniLM trap: truncation/padding fields that sentence-transformers does not honour.
    return {"version": "1.0",
            "truncation": {"direction": "Right", "max_length": truncation_max, "strategy": "LongestFirst", "stride": 0},
            "padding": {"strategy": {"Fixed": truncation_max}, "direction": "Right", "pad_id": 0, "pad_type_id": 0,
                        "pad_token": "[PAD]"},
            "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                           "strip_accents": None, "lowercase": lower},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                      "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(vocab)}}}


# ---------------------------------------------------------------- fixtures

TEXTS = {
    "zh": "知识库中的页面记录了张三在2024年加入公司，负责检索系统。",
    "en": "Engram indexes Markdown pages incrementally and answers by keyword, meaning, entity and time.",
    "mixed": "Hello World! 你好，世界。Café Québec naïve résumé — GPU 推理 runs at 3.5x speed.",
    "empty": "",
    "upper": "HÉLLO WÖRLD, THIS IS LOUD",
    "long_en": " ".join(["retrieval augmented generation with hybrid keyword and vector search"] * 60),
    "long_zh": "混合检索结合了关键词与向量。" * 60,
}
QUERIES = {"q_en": "how does hybrid search work?", "q_zh": "张三什么时候加入公司"}
PAIRS = [("how does hybrid search work?", TEXTS["en"]), (QUERIES["q_zh"], TEXTS["zh"]),
         ("", ""), (TEXTS["long_en"], TEXTS["long_zh"])]


def fixture_vocab(lower):
    """A small vocabulary covering the fixture texts: whole words, characters and ## pieces."""
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    words, chars = set(), set()
    probe = Tokenizer(specials, lowercase=lower)
    for text in list(TEXTS.values()) + list(QUERIES.values()) + ["query: passage: 为这个句子生成表示以用于检索相关文章："]:
        for w in probe.basic(text.lower() if not lower else text):
            if len(w) > 1 and len(words) < 400 and not w.startswith("hyb"):
                words.add(w)
            chars.update(w)
    # Leave some words to be split into pieces ("hybrid" -> "hy ##b ##rid"); add a few multi-char pieces.
    pieces = {"hy", "##rid", "##ing", "##s", "##al"}
    vocab = specials + sorted(words) + sorted(chars) + sorted("##" + c for c in chars) + sorted(pieces)
    seen, out = set(), []
    for t in vocab:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


def run_reference(model, tok, texts, st_pooling, normalize, query_prefix=""):
    import torch
    rows = []
    for name, text in texts.items():
        ids, _ = tok.encode(query_prefix + text)
        t = torch.tensor([ids])
        hidden = model(t, torch.zeros_like(t), torch.ones_like(t))[0]
        pooled = hidden[0] if st_pooling == "cls" else hidden.mean(0)
        emb = pooled / pooled.norm().clamp(min=1e-12) if normalize else pooled
        row = {"name": name, "text": text, "ids": ids, "pooled": pooled.tolist(), "embedding": emb.tolist()}
        if len(ids) <= 40:
            row["last_hidden_state"] = hidden.tolist()
        rows.append(row)
    return rows


def make_fixtures(out):
    import torch
    torch.manual_seed(0)
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(20261130)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    reference = {"tolerance": 1e-4, "models": {}}
    zh_instruction = "为这个句子生成表示以用于检索相关文章："
    specs = [
        # name, lower (tokenizer), st_lower, max_seq, pooling, dtype, prompts, tokenizer.json only
        ("tiny-bge-zh", False, True, 512, "cls", "F32", {"query": zh_instruction}, False),
        ("tiny-bge-en", True, False, 512, "cls", "F16",
         {"query": "Represent this sentence for searching relevant passages: "}, False),
        ("tiny-minilm", True, False, 256, "mean", "F32", None, True),
        ("tiny-e5", True, False, 512, "mean", "BF16", {"query": "query: ", "passage": "passage: "}, False),
    ]
    for name, lower, st_lower, max_seq, pooling, dtype, prompts, json_only in specs:
        vocab = fixture_vocab(lower)
        cfg = bert_config(32, 2, 4, 64, len(vocab))
        model = build_bert(cfg)
        randomize(model, gen)
        round_to_dtype(model, dtype)
        model.eval()
        tok = Tokenizer(vocab, lowercase=lower, st_lowercase=st_lower, max_length=max_seq)
        write_model_dir(out / name, cfg, model, vocab, dtype=dtype, lower=lower, st_lower=st_lower,
                        max_seq=max_seq, pooling=pooling, normalize=True, prompts=prompts,
                        tokenizer_json=tokenizer_json_for(vocab, lower, 128) if json_only else None,
                        vocab_txt=not json_only)
        with torch.no_grad():
            passage_prefix = (prompts or {}).get("passage", "")
            entry = {"pooling": pooling, "dims": 32, "max_tokens": max_seq, "dtype": dtype,
                     "documents": run_reference(model, tok, TEXTS, pooling, True, passage_prefix),
                     "queries": run_reference(model, tok, QUERIES, pooling, True, (prompts or {}).get("query", ""))}
        reference["models"][name] = entry
    # A cross-encoder (BertForSequenceClassification, one label).
    vocab = fixture_vocab(True)
    cfg = bert_config(32, 2, 4, 64, len(vocab), arch="BertForSequenceClassification",
                      extra={"num_labels": 1, "id2label": {"0": "LABEL_0"}, "label2id": {"LABEL_0": 0}})
    model = build_bert(cfg, classifier=True)
    randomize(model, gen)
    model.eval()
    write_model_dir(out / "tiny-reranker", cfg, model, vocab, dtype="F32", lower=True, st_lower=False,
                    max_seq=512, pooling=None, normalize=False)
    tok = Tokenizer(vocab, lowercase=True, max_length=512)
    rows = []
    with torch.no_grad():
        for a, b in PAIRS:
            ids, types = tok.encode_pair(a, b)
            t = torch.tensor([ids])
            score = model.score(model(t, torch.tensor([types]), torch.ones_like(t)))[0, 0].item()
            rows.append({"query": a, "passage": b, "ids": ids, "type_ids": types, "score": score})
    reference["models"]["tiny-reranker"] = {"pairs": rows}
    (out / "reference.json").write_text(json.dumps(reference, ensure_ascii=False) + "\n", encoding="utf-8")
    total = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"wrote {out} ({total / 1e6:.2f} MB)")


# ---------------------------------------------------------------- benchmarks

SHAPES = {  # name: (hidden, layers, heads, intermediate, vocab dir, pooling, lowercase)
    "bge-small-zh": (512, 4, 8, 2048, "bge-small-zh-v1.5", "cls", False),
    "bge-small-en": (384, 12, 12, 1536, "bge-small-en-v1.5", "cls", True),
}


def make_bench_model(out, shape):
    import torch
    h, layers, heads, inter, vocab_dir, pooling, lower = SHAPES[shape]
    models = pathlib.Path(__file__).resolve().parent.parent.parent / "shared" / "models"
    vocab = (models / vocab_dir / "vocab.txt").read_text(encoding="utf-8").split("\n")
    if vocab and vocab[-1] == "":
        vocab.pop()
    cfg = bert_config(h, layers, heads, inter, len(vocab))
    model = build_bert(cfg)
    randomize(model, torch.Generator().manual_seed(7))
    write_model_dir(out, cfg, model, vocab, dtype="F32", lower=lower, st_lower=not lower, max_seq=512,
                    pooling=pooling, normalize=True)
    print(f"wrote {out}")


def bench_torch(model_dir, batch, seq, threads, repeats):
    import torch
    torch.set_num_threads(threads)
    cfg = json.loads((model_dir / "config.json").read_text())
    model = build_bert(cfg)
    with open(model_dir / "model.safetensors", "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    names = model.state()
    with torch.no_grad():
        for name, info in header.items():
            a, b = info["data_offsets"]
            t = torch.frombuffer(bytearray(data[a:b]), dtype=torch.float32).view(info["shape"])
            names[name].copy_(t)
    model.eval()
    gen = torch.Generator().manual_seed(1)
    ids = torch.randint(1000, cfg["vocab_size"], (batch, seq), generator=gen)
    q = torch.randint(1000, cfg["vocab_size"], (1, 16), generator=gen)
    with torch.inference_mode():
        model(ids, torch.zeros_like(ids), torch.ones_like(ids))
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            model(ids, torch.zeros_like(ids), torch.ones_like(ids))
            times.append(time.perf_counter() - t0)
        single = []
        for _ in range(50):
            t0 = time.perf_counter()
            model(q, torch.zeros_like(q), torch.ones_like(q))
            single.append(time.perf_counter() - t0)
    times.sort()
    single.sort()
    print(json.dumps({"engine": "pytorch " + torch.__version__, "threads": threads,
                      "seq_per_s": batch / times[len(times) // 2], "single_ms": 1000 * single[len(single) // 2]}))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fixtures")
    f.add_argument("out", type=pathlib.Path)
    m = sub.add_parser("bench-model")
    m.add_argument("out", type=pathlib.Path)
    m.add_argument("--shape", choices=sorted(SHAPES), required=True)
    b = sub.add_parser("bench-torch")
    b.add_argument("model", type=pathlib.Path)
    b.add_argument("--batch", type=int, default=32)
    b.add_argument("--seq", type=int, default=128)
    b.add_argument("--threads", type=int, default=1)
    b.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    ensure_torch()
    if args.cmd == "fixtures":
        make_fixtures(args.out)
    elif args.cmd == "bench-model":
        make_bench_model(args.out, args.shape)
    else:
        bench_torch(args.model, args.batch, args.seq, args.threads, args.repeats)


if __name__ == "__main__":
    main()
