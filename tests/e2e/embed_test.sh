#!/usr/bin/env bash
# The embedding runtime through the real binary: vectorize, model
# pull/use/info/list, embed --stale/--all, inline embedding after sync and
# put, staleness in status, and bad model directories.
source "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures/models" && pwd)
export ENGRAM_MODELS="$WORK/models"

# vectorize: one normalised vector per text, queries get the prefix.
expect_exit 0 -- "$ENGRAM" vectorize --model "$FIX/tiny-e5" "hybrid search" ""
expect_json "$OUT" 'd["dims"]' 32
expect_json "$OUT" 'len(d["vectors"])' 2
expect_json "$OUT" 'round(sum(x*x for x in d["vectors"][0]), 4)' 1.0
DOC=$OUT
expect_exit 0 -- "$ENGRAM" vectorize --model "$FIX/tiny-e5" --query "hybrid search"
expect_json "$OUT" 'd["vectors"][0] != '"$(json_get "$DOC" 'd["vectors"][0]')" True
printf 'line one\nline two\n' > "$WORK/lines.txt"
expect_exit 0 -- bash -c "\"$ENGRAM\" vectorize --model \"$FIX/tiny-minilm\" < \"$WORK/lines.txt\""
expect_json "$OUT" 'len(d["vectors"])' 2
# Invalid UTF-8 and a text far past the limit are embedded, not refused.
expect_exit 0 -- "$ENGRAM" vectorize --model "$FIX/tiny-bge-zh" "$(printf 'caf\xe9 \xff\xfe')" "$(printf 'word %.0s' $(seq 1 3000))"
expect_json "$OUT" 'len(d["vectors"])' 2

# Bad model directories: clear errors naming the file (exit 2: bad input).
expect_exit 1 -- "$ENGRAM" vectorize --model "$WORK/nothing" x
expect_contains "$ERR" "not a model directory" "missing dir"
mkdir -p "$WORK/bad" && cp -r "$FIX/tiny-e5/." "$WORK/bad/"
head -c 1000 "$FIX/tiny-e5/model.safetensors" > "$WORK/bad/model.safetensors"

cp "$FIX/tiny-e5/model.safetensors" "$WORK/bad/"
sed -i 's/"model_type": "bert"/"model_type": "gpt2"/' "$WORK/bad/config.json"
expect_exit 2 -- "$ENGRAM" vectorize --model "$WORK/bad" x
expect_contains "$ERR" "model_type 'gpt2' is not supported" "architecture"
rm "$WORK/bad/config.json"
expect_exit 1 -- "$ENGRAM" vectorize --model "$WORK/bad" x
expect_contains "$ERR" "config.json: missing" "no config"
expect_exit 2 -- "$ENGRAM" vectorize --model "$FIX/tiny-reranker" x
expect_contains "$ERR" "cross-encoder" "reranker is not an embedder"

# Models: list, pull --from, info.
expect_exit 0 -- "$ENGRAM" --json model list
expect_json "$OUT" '[m["name"] for m in d["models"]][0]' bge-small-zh-v1.5
expect_exit 0 -- "$ENGRAM" model pull tiny-e5 --from "$FIX/tiny-e5"
expect_exit 0 -- "$ENGRAM" model pull tiny-bge-en --from "$FIX/tiny-bge-en"
expect_exit 0 -- "$ENGRAM" --json model info tiny-e5
expect_json "$OUT" 'd["pooling"]' mean
expect_json "$OUT" 'd["query_prompt"]' "query: "
expect_exit 1 -- "$ENGRAM" model info bge-small-zh-v1.5
expect_contains "$ERR" "engram model pull bge-small-zh-v1.5" "known but not installed"
expect_exit 2 -- "$ENGRAM" model pull ../evil --from "$FIX/tiny-e5"
expect_contains "$ERR" "model name" "unsafe name"

# A brain: use a model, sync embeds inline, status counts.
B="$WORK/brain"
cp -r "$(dirname "$0")/../../examples/vault" "$B"
git -C "$B" init -q && git -C "$B" add -A && git -C "$B" -c user.email=t@t -c user.name=t commit -qm init
expect_exit 0 -- "$ENGRAM" init "$B"
expect_exit 1 -- "$ENGRAM" --brain "$B" embed
expect_contains "$ERR" "no embedding model is configured" "embed without a model"
expect_exit 0 -- "$ENGRAM" --brain "$B" model use tiny-e5
expect_exit 0 -- "$ENGRAM" --brain "$B" --json sync
CHUNKS=$(json_get "$OUT" 'd["embedded"]')
[[ "$CHUNKS" -gt 10 ]] || fail "sync embedded only $CHUNKS chunks inline"
expect_exit 0 -- "$ENGRAM" --brain "$B" --json status
expect_json "$OUT" 'd["embedding"]["stale"]' 0
expect_json "$OUT" 'd["embedding"]["recorded_model"]' "bert:tiny-e5"
expect_json "$OUT" 'd["embedding"]["dims"]' 32

# Over the inline limit: left stale, reported, then embedded by `embed`.
printf '\nA new paragraph about retrieval.\n' >> "$B/concepts/hybrid-search.md" 2>/dev/null || \
  printf -- '---\ntitle: Hybrid\n---\nA new paragraph about retrieval.\n' > "$B/concepts/hybrid-search.md"
git -C "$B" add -A && git -C "$B" -c user.email=t@t -c user.name=t commit -qm edit
expect_exit 0 -- env ENGRAM_EMBEDDING_INLINE_LIMIT=0 "$ENGRAM" --brain "$B" --json sync
expect_contains "$(json_get "$OUT" 'd["embedding_note"]')" "engram embed --stale" "stale note"
expect_exit 0 -- "$ENGRAM" --brain "$B" --json status
STALE=$(json_get "$OUT" 'd["embedding"]["stale"]')
[[ "$STALE" -ge 1 && "$STALE" -lt "$CHUNKS" ]] || fail "an edit should leave only its page's changed chunks stale, got $STALE"
expect_exit 0 -- "$ENGRAM" --brain "$B" --json embed --stale
expect_json "$OUT" 'd["embedded"]' "$STALE"
expect_json "$OUT" 'd["stale"]' 0

# put embeds inline too.
expect_exit 0 -- bash -c "printf -- '---\ntitle: Put page\n---\nPut body text.\n' | \"$ENGRAM\" --brain \"$B\" put notes/put-page"
expect_exit 0 -- "$ENGRAM" --brain "$B" --json status
expect_json "$OUT" 'd["embedding"]["stale"]' 0

# Another model: --stale refuses (other space), --all re-embeds.
expect_exit 0 -- "$ENGRAM" --brain "$B" model use tiny-bge-en
expect_contains "$OUT" "--all" "use suggests --all"
expect_exit 1 -- "$ENGRAM" --brain "$B" embed --stale
expect_contains "$ERR" "engram embed --all" "model change"
expect_exit 0 -- "$ENGRAM" --brain "$B" --json embed --all
expect_json "$OUT" 'd["stale"]' 0
expect_json "$OUT" 'd["model"]' tiny-bge-en
expect_contains "$(cat "$B/.engram/config.toml")" '[search]' "other sections kept by model use"

# Regression: a model switch killed part way through left vector search
# answering from the re-embedded part only; it now stays on keywords, says
# why, and `embed` finishes the switch.
expect_exit 0 -- "$ENGRAM" --brain "$B" model use tiny-e5
expect_exit 134 -- env ENGRAM_FAULT_ABORT_AFTER_EMBEDDED=1 ENGRAM_EMBEDDING_MAX_BATCH=2 "$ENGRAM" --brain "$B" --json embed --all
expect_exit 0 -- "$ENGRAM" --brain "$B" --json search "hybrid retrieval"
expect_contains "$(json_get "$OUT" 'd["meta"]["notes"]')" "has not embedded every chunk" "partial switch said"
expect_exit 1 -- "$ENGRAM" --brain "$B" search --mode vector "hybrid retrieval"
expect_contains "$ERR" "engram embed" "vector mode refuses a partial switch"
expect_exit 0 -- "$ENGRAM" --brain "$B" --json embed --stale
expect_json "$OUT" 'd["stale"]' 0
expect_exit 0 -- "$ENGRAM" --brain "$B" --json search "hybrid retrieval"
expect_not_contains "$(json_get "$OUT" 'd["meta"]["notes"]')" "has not embedded" "finished switch searches vectors"
expect_exit 0 -- "$ENGRAM" --brain "$B" model use tiny-bge-en
expect_exit 0 -- "$ENGRAM" --brain "$B" --json embed --all

# bf16: from config (kept by model use) and on the command line; the
# recorded model stays, so nothing needs re-embedding.
sed -i 's/^precision = "fp32"/precision = "bf16"/' "$B/.engram/config.toml"
expect_exit 0 -- "$ENGRAM" --brain "$B" model use tiny-bge-en
expect_contains "$(cat "$B/.engram/config.toml")" 'precision = "bf16"' "model use keeps precision"
expect_exit 0 -- bash -c "printf -- '---\ntitle: Low\n---\nA bf16 page.\n' | \"$ENGRAM\" --brain \"$B\" put notes/low"
expect_exit 0 -- "$ENGRAM" --brain "$B" --json status
expect_json "$OUT" 'd["embedding"]["stale"]' 0
expect_exit 2 -- env ENGRAM_EMBEDDING_PRECISION=fp16 "$ENGRAM" --brain "$B" status
expect_contains "$ERR" 'embedding.precision must be "fp32" or "bf16"' "bad precision"
expect_exit 0 -- "$ENGRAM" vectorize --model "$FIX/tiny-bge-zh" --precision bf16 "混合检索 hybrid"
LOW=$(json_get "$OUT" 'd["vectors"][0]')
expect_exit 0 -- "$ENGRAM" vectorize --model "$FIX/tiny-bge-zh" "混合检索 hybrid"
expect_json "$OUT" 'round(sum(a*b for a, b in zip(d["vectors"][0], '"$LOW"')), 3)' 1.0
expect_exit 2 -- "$ENGRAM" vectorize --model "$FIX/tiny-bge-zh" --precision int4 x
expect_contains "$ERR" "unknown precision 'int4'" "bad --precision"

# import embeds small change sets inline, as sync does.
I="$WORK/imported"
mkdir -p "$I/src" && cp -r "$(dirname "$0")/../../examples/vault/." "$I/src/"
expect_exit 0 -- "$ENGRAM" init "$I/brain"
expect_exit 0 -- env ENGRAM_EMBEDDING_PROVIDER=hash "$ENGRAM" --brain "$I/brain" --json import "$I/src"
[[ "$(json_get "$OUT" 'd["embedded"]')" -gt 10 ]] || fail "import embedded nothing inline"
expect_json "$OUT" 'd["embedding_stale"]' 0

# The benchmark command runs on any model directory, in both precisions.
expect_exit 0 -- "$ENGRAM" bench embed --model "$FIX/tiny-bge-zh" --batch 2 --seq 16 --repeats 1
expect_json "$OUT" '"seq_per_s" in d and "single_ms" in d and "peak_rss_mb" in d' True
expect_exit 0 -- "$ENGRAM" bench embed --model "$FIX/tiny-bge-zh" --batch 2 --seq 16 --repeats 1 --precision bf16
expect_json "$OUT" 'd["precision"] == "bf16" and d["min_cosine_to_fp32"] > 0.999' True

finish
