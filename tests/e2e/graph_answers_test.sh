#!/usr/bin/env bash
# End-to-end (issue 17, items 3, 5 and 6) on a copy of the sample vault,
# through the real binary: relations read from sentences are facts with their
# pattern; an entity question gets the graph's answer before the text (search,
# its --json, the context block with entity cards, for a public caller over
# HTTP too); `eval --graph` scores the gold set; bad gold files are errors
# that name the line.
source "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
E=$ENGRAM
B="$WORK/brain"
cp -r "$HERE/../../examples/vault" "$B"
# A private note that says more: its owner sees it, a remote reader never does.
printf -- '---\nvisibility: private\n---\n[[people/bob-martin]] co-founded [[companies/星河智能]].\n' >"$B/notes/board-gossip.md"
expect_exit 0 -- "$E" init "$B"
expect_exit 0 -- "$E" --brain "$B" import "$B"

# A sentence on 张三's page ("张三是 [[companies/星河智能]] 的创始人兼 CEO") states two facts.
expect_exit 0 -- "$E" --brain "$B" --json facts people/zhang-san
expect_json "$OUT" '[f["value"] for f in d["facts"] if f["source"]["origin"] == "pattern:zh.role"]' \
  "['星河智能', '创始人兼 CEO']"

# Search: the graph answers first, with the source line.
expect_exit 0 -- "$E" --brain "$B" search "Who founded 星河智能?" --limit 3
expect_contains "$OUT" "From the graph (relation" "search answers an entity question"
expect_contains "$OUT" "people/zhang-san | 张三" "the founder"
expect_contains "$OUT" "people/zhang-san.md:11" "the line that says it"
expect_contains "$OUT" "people/bob-martin" "the owner sees what a private note says"
expect_exit 0 -- "$E" --brain "$B" --json search "李伟现在在哪里工作？"
expect_json "$OUT" 'd["answer"]["kind"]' "fact"
expect_json "$OUT" 'd["answer"]["items"][0]["slug"]' "companies/星河智能"
expect_json "$OUT" 'len(d["results"]) > 0' "True"
# A query that is no question has no answer.
expect_exit 0 -- "$E" --brain "$B" --json search "bm25 ranking"
expect_json "$OUT" '"answer" in d' "False"

# Context: the answer, then a card per entity the query names, then the hits.
expect_exit 0 -- "$E" --brain "$B" context "Where is Priya Nair based now?" --max-chars 4000
expect_contains "$OUT" "[answer from facts: fact]" "the answer entry"
expect_contains "$OUT" "Berlin" "the latest dated location"
expect_contains "$OUT" "in conflict with: Seattle" "the conflict is named"
expect_contains "$OUT" "[entity: people/priya-nair]" "the card"
expect_contains "$OUT" "Conflict: location:" "the card's open conflict"
[[ "$OUT" == *"[entity: people/priya-nair]"*"[1] "* ]] || fail "cards come before the hits: $OUT"

# A caller over HTTP with a read token: the private note never answers.
TOKEN=$("$E" --brain "$B" --json token create --scope read --name reader |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
start_server "$WORK/serve.log"
expect_exit 0 -- curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"query":"Who founded 星河智能?","limit":2}' "http://127.0.0.1:$PORT/v1/call/search"
expect_json "$OUT" '[i["slug"] for i in d["answer"]["items"]]' "['people/zhang-san']"
stop_server

# One entity at a glance, and what is related to a page.
expect_exit 0 -- "$E" --brain "$B" entity show 李伟
expect_contains "$OUT" "Facts: location: 深圳; role: CTO (since 2021-06-01); works_at: 星河智能" "the card's facts"
expect_exit 0 -- "$E" --brain "$B" --json entity show 李伟
expect_json "$OUT" 'd["links_out"][0]["type"], d["links_out"][0]["to"]' "('works_at', 'companies/星河智能')"
expect_exit 0 -- "$E" --brain "$B" --json related people/li-wei --limit 2
expect_json "$OUT" '[r["slug"] for r in d["related"]]' "['projects/灯塔计划', 'people/zhao-min']"
expect_json "$OUT" '"companies/星河智能" in d["related"][1]["shared_links"]' "True"
expect_exit 1 -- "$E" --brain "$B" related people/nobody
expect_contains "$ERR" "people/nobody" "a page that is not there"

# eval --graph on the gold set of the sample vault.
expect_exit 0 -- "$E" --brain "$B" --json eval --graph "$HERE/../data/graph_gold/vault.jsonl"
expect_json "$OUT" 'd["questions"]' "122"
expect_json "$OUT" 'd["accuracy"] >= 0.9' "True"
expect_exit 0 -- "$E" --brain "$B" eval --graph "$HERE/../data/graph_gold/vault.jsonl"
expect_contains "$OUT" "answered right: accuracy" "the text report"
printf '{"id": "x", "question": "Who founded X?", "expect": ["a"]}\nnot json\n' >"$WORK/bad.jsonl"
expect_exit 2 -- "$E" --brain "$B" eval --graph "$WORK/bad.jsonl"
expect_contains "$ERR" "bad.jsonl:2: not a JSON object" "a bad line is named"
printf '{"id": "x", "question": "Who founded X?", "expect": "a"}\n' >"$WORK/bad2.jsonl"
expect_exit 2 -- "$E" --brain "$B" eval --graph "$WORK/bad2.jsonl"
expect_contains "$ERR" "bad2.jsonl:1: 'expect' is not a list" "a bad field is named"
expect_exit 2 -- "$E" --brain "$B" eval
expect_contains "$ERR" "eval needs --corpus, --queries and --qrels (or --graph FILE)" "eval without a set"

# [graph] settings: which predicates hold one value, which page types are entities.
expect_exit 0 -- "$E" --brain "$B" conflicts
expect_not_contains "$OUT" "invested_by" "two investors are no conflict by default"
expect_exit 0 -- "$E" --brain "$B" config set graph.single_valued '["invested_by", "location"]'
expect_exit 0 -- "$E" --brain "$B" conflicts
expect_contains "$OUT" "星河智能 (companies/星河智能): invested_by has 2 values at once" "a configured single value"
expect_exit 0 -- "$E" --brain "$B" --json entity resolve 张三
expect_json "$OUT" 'd["candidates"][0]["entity"]' "True"
expect_exit 0 -- "$E" --brain "$B" config set graph.entity_types '["company"]'
expect_exit 0 -- "$E" --brain "$B" --json entity resolve 张三
expect_json "$OUT" 'd["candidates"][0]["entity"]' "False"
expect_exit 2 -- "$E" --brain "$B" config set graph.entity_types '["team", "bad type"]'
expect_contains "$ERR" 'graph.entity_types: "bad type" is not a name' "a bad type is named"
finish
