#!/usr/bin/env python3
"""Writes a synthetic vault the way Obsidian users' vaults look: notes named in
words (spaces, Chinese, C++ / C#, duplicate names in different folders),
pasted screenshots embedded by their default names, Web Clipper notes with
source/author properties, aliases, nested and Chinese tags, YAML escapes,
frontmatter dates, Dataview fields, callouts with links, task lists, and a
few canvases. Deterministic. With --commits K, also a git history of K
commits that edit random notes (dates spread over a year).
Usage: bench/gen_obsidian_vault.py DIR [N] [--commits K]"""
import json
import os
import random
import subprocess
import sys

WORDS = ("retrieval index memory agent model graph timeline meeting project investor founder market "
         "customer pilot latency quality vector keyword brain note page embedded firmware driver kernel "
         "scheduler interrupt register protocol packet socket thread mutex").split()
ZH = list("知识检索模型机器学习仓库项目会议投资客户数据中文分词向量关键词时间线记忆智能嵌入式驱动内核调度中断寄存器协议")
FOLDERS = ["", "Inbox", "Clippings", "Projects", "Projects/Atlas", "Areas/Embedded", "读书笔记", "Daily", "Archive/2024"]
SPECIAL = ["C", "C++", "C#", "Note A", "Note_A", "MCP", "前言", "Templates", "README", "index"]


def words(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def zh(rng, n):
    return "".join(rng.choice(ZH) for _ in range(n))


def name(rng, i):
    if i < len(SPECIAL):
        return SPECIAL[i]
    if i % 3 == 0:
        return zh(rng, rng.randint(2, 6)) + ("笔记" if i % 2 else "")
    return words(rng, rng.randint(1, 4)).title()


def note(rng, i, names):
    chinese = i % 2 == 0
    lines = ["---"]
    if i % 4 == 0:
        lines.append(f"aliases: [\"{names[rng.randrange(len(names))][1]} alias {i}\"]")
    if i % 5 == 0:
        lines.append(f"tags: [\"#project/{rng.choice(WORDS)}\", 中文标签, inbox]")
    if i % 7 == 0:
        lines.append(f"created: 2024-0{1 + i % 9}-1{i % 10}")
    if i % 11 == 0:
        lines.append(f"updated: \"2025-0{1 + i % 9}-0{1 + i % 9}T10:00:00Z\"")
    if i % 13 == 0:  # Web Clipper
        lines.append(f"source: \"https://example.com/articles/{i}?utm_source=clip&token=abc{i}\"")
        lines.append(f"author: {zh(rng, 3)} (Harry)")
        lines.append("title: \"Clipped \\\"article\\\" \\u00e9t\\u00e9\"")
    if i % 17 == 0:
        lines.append("note: \"escapes \\_ \\N \\t done\"")
    lines.append("---")
    if len(lines) == 2:
        lines = []
    body = [f"# {names[i][1]}", ""]
    for p in range(rng.randint(2, 6)):
        para = zh(rng, rng.randint(40, 120)) + "。" if chinese else words(rng, rng.randint(25, 70)).capitalize() + "."
        target = names[rng.randrange(len(names))][1]
        if p == 0:
            para += f" See [[{target}]]."
        elif p == 1:
            para += f" #{rng.choice(WORDS)}/{rng.choice(WORDS)} #{zh(rng, 2)}"
        body.append(para)
        body.append("")
    if i % 3 == 0:
        stamp = f"2025{i % 12 + 1:02d}{i % 28 + 1:02d}{(i * 7919) % 1000000:06d}"
        body.append(f"![[Pasted image {stamp}.png]]")
        body.append(f"![](assets/image-{stamp}{i % 1000:03d}.png)")
    if i % 6 == 0:
        other = names[rng.randrange(len(names))][1]
        body.append(f"- [ ] read [[{other}]] from [site](https://example.com/{i})")
        body.append(f"> [!tip] remember [[{other}]] or [git](https://git-scm.com)")
        body.append(f"related:: [[{other}]]")
    body.append("")
    return "\n".join(lines + body)


def canvas(rng, i, names):
    nodes = []
    for k in range(8):
        nodes.append({"id": f"t{k}", "type": "text", "x": 40 * k, "y": 60 * (k % 3), "width": 200, "height": 80,
                      "text": f"## {words(rng, 2)}\n{zh(rng, 30)} {words(rng, 12)}"})
    path = names[rng.randrange(len(names))][0]
    nodes.append({"id": "f", "type": "file", "file": path, "x": 0, "y": 400, "width": 300, "height": 200})
    nodes.append({"id": "g", "type": "group", "label": words(rng, 2), "x": -20, "y": -20, "width": 900,
                  "height": 700})
    return json.dumps({"nodes": nodes, "edges": [{"id": "e", "fromNode": "t0", "toNode": "f", "label": "see"}]},
                      ensure_ascii=False, indent=1)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = args[0]
    n = int(args[1]) if len(args) > 1 else 3000
    commits = int(sys.argv[sys.argv.index("--commits") + 1]) if "--commits" in sys.argv else 0
    rng = random.Random(20261201)
    names = []
    taken = set()
    for i in range(n):
        folder = FOLDERS[i % len(FOLDERS)]
        nm = name(rng, i)
        rel = os.path.join(folder, nm + ".md") if folder else nm + ".md"
        while rel.lower() in taken:
            nm += " 2"
            rel = os.path.join(folder, nm + ".md") if folder else nm + ".md"
        taken.add(rel.lower())
        names.append((rel, nm))
    for i, (rel, _) in enumerate(names):
        path = os.path.join(out, rel)
        os.makedirs(os.path.dirname(path) or out, exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(note(rng, i, names))
    for c in range(max(1, n // 500)):
        with open(os.path.join(out, "Projects", f"Board {c}.canvas"), "w", encoding="utf-8") as f:
            f.write(canvas(rng, c, names))
    if commits:
        git = ["git", "-C", out]
        env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="bench",
                   GIT_COMMITTER_EMAIL="b@b")
        subprocess.run(git + ["init", "-q"], check=True)
        for k in range(commits):
            stamp = f"2025-{1 + k * 12 // max(commits, 1):02d}-15T12:00:00Z"
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = stamp
            if k > 0:
                for _ in range(5):
                    rel = names[rng.randrange(n)][0]
                    with open(os.path.join(out, rel), "a", encoding="utf-8") as f:
                        f.write(f"\nEdit {k}: {words(rng, 8)}\n")
            subprocess.run(git + ["add", "-A"], check=True, env=env)
            subprocess.run(git + ["commit", "-qm", f"commit {k}"], check=True, env=env)


if __name__ == "__main__":
    main()
