#!/usr/bin/env bash
# End-to-end: drives the real engram binary through the main workflows.
source "$(dirname "$0")/lib.sh"
E=$ENGRAM
B="$WORK/brain"
mkdir -p "$B" && git -C "$B" init -q

# init: creates .engram/, keeps it out of git, is idempotent.
expect_exit 0 -- "$E" init "$B"
expect_contains "$OUT" "Initialised brain" "init"
if [[ "${ENGRAM_E2E_STORE:-}" == postgres ]]; then  # the database is the cluster's
  grep -q '^engine = "postgres"' "$B/.engram/config.toml" || fail "init did not write the postgres engine"
else
  [[ -f "$B/.engram/config.toml" && -f "$B/.engram/engram.db" ]] || fail "init did not create config and database"
fi
expect_contains "$(cat "$B/.git/info/exclude")" ".engram/" "git exclude"
expect_contains "$(cat "$B/.engram/config.toml")" "bm25_k1 = 0.9" "config documents defaults"
expect_exit 0 -- "$E" --json init "$B"
expect_json "$OUT" 'd["created"]' "False"
[[ $(grep -c '^.engram/$' "$B/.git/info/exclude") -eq 1 ]] || fail "exclude line added twice"

# put from stdin and from a file; get returns the bytes.
page=$'---\ntitle: 张三\ntype: person\naliases: [Zhang San]\ntags: [founder]\n---\n\n张三创办了星河智能，专注中文检索。\n\n<!-- timeline -->\n\n- **2026-03-12** | 完成 A 轮融资\n'
expect_exit 0 -- bash -c "printf '%s' \"\$1\" | \"$E\" --brain \"$B\" put people/zhang-san" _ "$page"
expect_contains "$OUT" "Created people/zhang-san" "put stdin"
[[ "$(cat "$B/people/zhang-san.md")" == "$(printf '%s' "$page")" ]] || fail "put did not write the Markdown file"
printf -- '---\ntitle: BM25\naliases: [Okapi BM25]\n---\nBM25 ranks documents by term frequency and inverse document frequency.\n' > "$WORK/bm25.md"
expect_exit 0 -- "$E" --brain "$B" --json put concepts/bm25 --file "$WORK/bm25.md"
expect_json "$OUT" 'd["slug"]' "concepts/bm25"
expect_exit 0 -- "$E" --brain "$B" get people/zhang-san
expect_contains "$OUT" "张三创办了星河智能" "get prints Markdown"
expect_exit 0 -- "$E" --brain "$B" --json get people/zhang-san
expect_json "$OUT" 'd["type"]' "person"
expect_json "$OUT" 'd["aliases"]' "['Zhang San', 'zhang-san']"  # the file name is a name too

# Overwrite keeps a version.
expect_exit 0 -- bash -c "printf 'updated body about BM25 ranking\n' | \"$E\" --brain \"$B\" put concepts/bm25"
expect_contains "$OUT" "Updated concepts/bm25" "put overwrite"
expect_exit 0 -- "$E" --brain "$B" --json status
expect_json "$OUT" 'd["versions"]' "1"
expect_json "$OUT" 'd["pages"]' "2"

# search: JSON contract, Chinese without spaces, Traditional, phrases, explain.
expect_exit 0 -- "$E" --brain "$B" --json search "中文检索"
expect_json "$OUT" 'd["results"][0]["slug"]' "people/zhang-san"
expect_json "$OUT" 'sorted(d["results"][0].keys())' "['chunk_dates', 'chunk_id', 'chunk_source', 'date', 'line_end', 'line_start', 'path', 'score', 'slug', 'text', 'title', 'type']"
expect_json "$OUT" 'd["query"]' "中文检索"
expect_json "$OUT" 'd["meta"]["mode"]' "keyword"
expect_json "$OUT" 'd["results"][0]["path"]' "people/zhang-san.md"
expect_json "$OUT" 'd["results"][0]["line_start"]' "8"
expect_exit 0 -- "$E" --brain "$B" --json search "中文檢索"
expect_json "$OUT" 'd["results"][0]["slug"]' "people/zhang-san"
expect_exit 0 -- "$E" --brain "$B" --json search "Zhang San" --explain
expect_json "$OUT" 'd["results"][0]["explain"]["name_match"]' "True"
expect_exit 0 -- "$E" --brain "$B" --json search '"ranking updated" BM25'
expect_json "$OUT" 'len(d["results"])' "0"
expect_exit 0 -- "$E" --brain "$B" search 'updated body' --limit 1 --explain
expect_contains "$OUT" "explain: chunk bm25" "human explain"
expect_exit 0 -- "$E" --brain "$B" search "nothing-matches-this"
expect_contains "$OUT" "No results" "no results message"

# list by type and tag.
expect_exit 0 -- "$E" --brain "$B" --json list --type person
expect_json "$OUT" 'd["count"]' "1"
expect_exit 0 -- "$E" --brain "$B" --json list --tag founder
expect_json "$OUT" 'd["pages"][0]["slug"]' "people/zhang-san"

# list aligns columns by display width (a Chinese character takes two columns).
W="$WORK/widths"; mkdir -p "$W/人物"; printf '# 张三\n' > "$W/人物/张三丰.md"; printf '# Ann\n' > "$W/annabelle.md"
"$E" init "$W" > /dev/null; "$E" --brain "$W" import "$W" > /dev/null
expect_exit 0 -- "$E" --brain "$W" list
cols=$(printf '%s\n' "$OUT" | head -2 | python3 -c '
import sys, unicodedata
w = lambda s: sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
print(" ".join(str(w(l[:l.index("note")])) for l in sys.stdin.read().splitlines()))')
expect_contains "$cols" "$(printf '%s' "$cols" | cut -d" " -f1) $(printf '%s' "$cols" | cut -d" " -f1)" "list columns align by display width"
# A query starting with '-' is a query after `--`, and the error says so without it.
expect_exit 0 -- "$E" --brain "$B" --json search -- '"-中文检索"'
expect_json "$OUT" 'd["results"][0]["slug"]' "people/zhang-san"
expect_exit 2 -- "$E" --brain "$B" search -- -zhang
expect_contains "$ERR" "quote it" "an exclusion-only query says how to search the word"
expect_exit 2 -- "$E" --brain "$B" search -zhang
expect_contains "$ERR" "must follow \`--\`" "dash query hint"
# With no model configured, the hint says to configure one first.
expect_exit 0 -- "$E" --brain "$B" --json search --mode hybrid "zhang"
expect_contains "$OUT" "engram model use" "configure a model first"

# import --watch keeps a plain folder current: a new note, an edit and a delete, each after a quiet moment.
V="$WORK/watched"; mkdir -p "$V/notes"; printf '# First\nfirst page\n' > "$V/notes/first.md"
"$E" init "$V" > /dev/null
"$E" --brain "$V" --json import --watch --quiet 0.2 > "$WORK/watch.jsonl" 2> "$WORK/watch.err" &
watcher=$!
for i in $(seq 1 50); do [[ -s "$WORK/watch.jsonl" ]] && break; sleep 0.1; done
printf '# Capybara\ncapybara notes\n' > "$V/notes/capybara.md"
mkdir -p "$V/new/deeper"; printf 'okapi in a new folder\n' > "$V/new/deeper/okapi.md"
found() { "$E" --brain "$V" --json search "$1" 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["results"]))' 2>/dev/null; }
for i in $(seq 1 50); do [[ "$(found capybara)" == 1 && "$(found okapi)" == 1 ]] && break; sleep 0.1; done
expect_exit 0 -- "$E" --brain "$V" --json search capybara
expect_json "$OUT" 'len(d["results"])' 1
expect_exit 0 -- "$E" --brain "$V" --json search okapi
expect_json "$OUT" 'len(d["results"])' 1
rm "$V/notes/capybara.md"
for i in $(seq 1 50); do [[ "$(found capybara)" == 0 ]] && break; sleep 0.1; done
expect_exit 0 -- "$E" --brain "$V" --json search capybara
expect_json "$OUT" 'len(d["results"])' 0
kill -INT "$watcher"; wait "$watcher"; rc=$?
CHECKS=$((CHECKS + 1)); [[ $rc -eq 0 ]] || fail "import --watch exited $rc on SIGINT"
expect_contains "$(head -1 "$WORK/watch.jsonl")" '"added"' "import --watch prints one JSON document per import"
expect_exit 2 -- "$E" --brain "$V" import --watch --dry-run

# Brain discovery: current directory upwards, and ENGRAM_BRAIN.
mkdir -p "$B/deep/er"
expect_exit 0 -- bash -c "cd \"$B/deep/er\" && \"$E\" --json status"
expect_json "$OUT" 'd["pages"]' "2"
expect_exit 0 -- env ENGRAM_BRAIN="$B" "$E" --json status
expect_json "$OUT" 'd["root"]' "$(realpath "$B")"
expect_exit 1 -- bash -c "cd \"$WORK\" && \"$E\" status"
expect_contains "$ERR" "no brain found" "discovery failure message"

# import: a plain folder (not git), hash-based.
V="$WORK/vault"
mkdir -p "$V/people" "$V/.obsidian"
printf '# Alice\nAlice works on robots.\n' > "$V/people/alice.md"
printf '# Bob\nBob invests.\n' > "$V/people/bob.md"
printf 'ignored' > "$V/.obsidian/x.md"
expect_exit 0 -- "$E" init "$V"
expect_exit 0 -- "$E" --brain "$V" --json import "$V"
expect_json "$OUT" '(d["added"], d["updated"], d["unchanged"], d["removed"])' "(2, 0, 0, 0)"
printf '# Alice\nAlice now works on drones.\n' > "$V/people/alice.md"
rm "$V/people/bob.md"
expect_exit 0 -- "$E" --brain "$V" --json import
expect_json "$OUT" '(d["added"], d["updated"], d["unchanged"], d["removed"])' "(0, 1, 0, 1)"
expect_exit 0 -- "$E" --brain "$V" --json search "drones"
expect_json "$OUT" 'd["results"][0]["slug"]' "people/alice"
expect_exit 0 -- "$E" --brain "$V" --json search "invests"
expect_json "$OUT" 'len(d["results"])' "0"
# Issue 12 item 7: a body-only edit dropped the page's title words from the index.
printf -- '---\ntitle: Quokka Field Notes\n---\nSmall marsupials on an island.\n' > "$V/people/carol.md"
expect_exit 0 -- "$E" --brain "$V" import
printf -- '---\ntitle: Quokka Field Notes\n---\nThe body changed, the title did not.\n' > "$V/people/carol.md"
expect_exit 0 -- "$E" --brain "$V" --json import
expect_json "$OUT" 'd["updated"]' "1"
expect_exit 0 -- "$E" --brain "$V" --json search "quokka"
expect_json "$OUT" '[r["slug"] for r in d["results"]]' "['people/carol']"
expect_exit 0 -- bash -c "printf -- '---\ntitle: Quokka Field Notes\n---\nEdited through put.\n' | \"$E\" --brain \"$V\" put people/carol"
expect_exit 0 -- "$E" --brain "$V" --json search "quokka"
expect_json "$OUT" '[r["slug"] for r in d["results"]]' "['people/carol']"
expect_exit 0 -- "$E" --brain "$V" --json check --full
expect_json "$OUT" '(d["ok"], d["rebuilt_pages"])' "(True, 2)"
# check finds a title posting that went missing, names page and structure, and --repair restores it
# (a folder brain is re-indexed from its stored Markdown).
brain_sql "$V" "DELETE FROM title_postings WHERE term_id = (SELECT id FROM terms WHERE term = 'quokka')"
expect_exit 1 -- "$E" --brain "$V" check --full
expect_contains "$OUT" "people/carol.md: title postings differ from a rebuild" "check names the page and structure"
expect_contains "$OUT" "people/carol.md: title index disagrees" "check's self-consistency sees titles"
expect_exit 0 -- "$E" --brain "$V" --json check --full --repair
expect_json "$OUT" '(d["repaired"], d["remaining"])' "(True, [])"
expect_exit 0 -- "$E" --brain "$V" --json search "quokka"
expect_json "$OUT" '[r["slug"] for r in d["results"]]' "['people/carol']"

# delete removes the page and its file.
expect_exit 0 -- "$E" --brain "$B" delete concepts/bm25
[[ ! -e "$B/concepts/bm25.md" ]] || fail "delete left the file"
expect_exit 1 -- "$E" --brain "$B" get concepts/bm25
expect_contains "$ERR" "no page" "get after delete"

# eval on a tiny BEIR-layout set.
printf '{"_id":"d1","title":"Apples","text":"Apples are red fruit."}\n{"_id":"d2","title":"Rivers","text":"Rivers flow to the sea."}\n' > "$WORK/corpus.jsonl"
printf '{"_id":"q1","text":"red apples"}\n{"_id":"q2","text":"where do rivers flow"}\n{"_id":"q3","text":"unjudged"}\n' > "$WORK/queries.jsonl"
printf 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n' > "$WORK/qrels.tsv"
expect_exit 0 -- "$E" --json eval --corpus "$WORK/corpus.jsonl" --queries "$WORK/queries.jsonl" --qrels "$WORK/qrels.tsv"
expect_json "$OUT" 'd["ndcg@10"]' "1.0"
expect_json "$OUT" '(d["queries"], d["docs"])' "(2, 2)"
expect_json "$OUT" 'sorted(k for k in d if k != "mode")' "['docs', 'index_seconds', 'mrr@10', 'ndcg@10', 'queries', 'query_ms_p50', 'query_ms_p95', 'recall@10', 'recall@100']"

# Usage errors exit 2; every command has complete help.
expect_exit 2 -- "$E" frobnicate
expect_exit 2 -- "$E" --brain "$B" search
expect_exit 2 -- "$E" --brain "$B" search x --limit 0
expect_exit 0 -- "$E" --help
for cmd in init import sync check audit hook put get list delete search status eval; do
  expect_exit 0 -- "$E" "$cmd" --help
  expect_contains "$OUT" "$cmd" "help for $cmd"
done
expect_exit 0 -- "$E" search --help
expect_contains "$OUT" "+required" "search help documents syntax"
expect_exit 0 -- "$E" --version
finish
