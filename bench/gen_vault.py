#!/usr/bin/env python3
"""Writes a synthetic bilingual vault: N Markdown pages with frontmatter, aliases,
tags, wikilinks and timelines, half Chinese, half English. Deterministic.
Usage: bench/gen_vault.py DIR [N]"""
import os
import random
import sys

EN = ("robot warehouse search index memory agent model retrieval graph timeline meeting project "
      "investor founder market customer pilot latency quality vector keyword brain note page").split()
ZH = list("知识检索模型机器学习仓库项目会议投资客户数据中文分词向量关键词时间线记忆智能")
TYPES = ["people", "companies", "projects", "concepts", "meetings", "notes"]


def sentence(rng, chinese):
    if chinese:
        return "".join(rng.choice(ZH) for _ in range(rng.randint(12, 30))) + "。"
    return " ".join(rng.choice(EN) for _ in range(rng.randint(8, 18))).capitalize() + "."


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    rng = random.Random(20261130)
    slugs = [f"{TYPES[i % len(TYPES)]}/page-{i:05d}" for i in range(n)]
    for i, slug in enumerate(slugs):
        chinese = i % 2 == 0
        path = os.path.join(out, slug + ".md")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        links = " ".join(f"[[{rng.choice(slugs)}]]" for _ in range(3))
        body = "\n\n".join(" ".join(sentence(rng, chinese) for _ in range(4)) for _ in range(3))
        timeline = "\n".join(
            f"- **20{rng.randint(10, 26)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}** | {sentence(rng, chinese)}"
            for _ in range(3))
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"---\ntitle: Page {i}\ntags: [{TYPES[i % len(TYPES)]}, synthetic]\naliases: [P{i}]\n---\n\n"
                    f"# Page {i}\n\n{body}\n\nSee {links}.\n\n<!-- timeline -->\n\n{timeline}\n")


if __name__ == "__main__":
    main()
