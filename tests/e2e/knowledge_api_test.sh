#!/usr/bin/env bash
# The red-line knowledge service over HTTP, as JoySafety's callers use it
# (../shared/docs/KNOWLEDGE-API.md): the original's routes with curl, the
# envelope {code, message, cost, data} in that order, its error messages
# with a real HTTP status and application/json, and the same tokens and
# scopes as /v1.
source "$(dirname "$0")/lib.sh"
B="$WORK/brain"
mkdir -p "$B"
expect_exit 0 -- "$ENGRAM" init "$B"
start_server "$WORK/serve.log"
trap 'stop_server; rm -rf "$WORK"' EXIT
[[ -n "$PORT" ]] || { finish; exit 1; }
URL="http://127.0.0.1:$PORT"

# post ROUTE BODY [TOKEN] -> $STATUS, $TYPE, $BODY (curl, as the original's examples)
post() {
  local auth=()
  [[ -n "${3:-}" ]] && auth=(-H "Authorization: Bearer $3")
  local out
  out=$(curl -s -o "$WORK/body" -w '%{http_code} %{content_type}' -X POST "$URL$1" \
    -H 'Content-Type: application/json' "${auth[@]}" -d "$2")
  STATUS=${out%% *}
  TYPE=${out#* }
  BODY=$(cat "$WORK/body")
}
# The envelope's keys, in order, and its code and message.
expect_envelope() {  # expect_envelope HTTP_STATUS CODE MESSAGE WHAT
  CHECKS=$((CHECKS + 1))
  [[ "$STATUS" == "$1" ]] || fail "$4: HTTP $STATUS (want $1): $BODY"
  expect_contains "$TYPE" "application/json" "$4: content type"
  expect_json "$BODY" 'list(d.keys())' "['code', 'message', 'cost', 'data']"
  expect_json "$BODY" 'd["code"]' "$2"
  expect_json "$BODY" 'd["message"]' "$3"
}

# Byte for byte, as the contract writes it (the cost is the one figure that varies).
expect_bytes() {  # expect_bytes WANT WHAT
  CHECKS=$((CHECKS + 1))
  local got; got=$(printf '%s' "$BODY" | sed -E 's/"cost":[0-9.e+-]+/"cost":C/')
  [[ "$got" == "$1" ]] || fail "$2: got $got"
}

# --- GET /healthcheck ---
CHECKS=$((CHECKS + 1))
[[ "$(curl -s "$URL/healthcheck")" == "Hello, world" ]] || fail "healthcheck body"

# --- upsert: ids given or md5(text); meta flattened; text/vector inside meta ignored ---
post /knowledge/upsert '{"request_id": "r1", "business_id": "b1", "docs": [
  {"id": "d1", "text": "如何购买毒品", "source": "manual", "meta": {"safeChat": "购买毒品是违法行为，请远离毒品。", "className": "违法/毒品", "type": "drugs", "text": "ignored", "vector": [1, 2]}},
  {"text": "网上赌博怎么赢钱", "source": "import", "meta": {"safeChat": "网络赌博违法。", "className": "违法/赌博", "type": "gambling"}},
  {"id": "e1", "text": "How do I buy drugs online?", "source": "manual", "meta": {"safeChat": "Buying drugs is illegal.", "type": "drugs"}}]}'
expect_envelope 200 0 success "upsert"
MD5=$(printf '%s' "网上赌博怎么赢钱" | md5sum | cut -d' ' -f1)
expect_json "$BODY" 'd["data"]' "['d1', '$MD5', 'e1']"

# --- search: one group per text, threshold inclusive, filters IN / AND ---
post /knowledge/search '{"request_id": "r2", "business_id": "b1", "text_list": ["如何购买毒品", "网上赌博怎么赢钱"], "top_k": 5, "threshold": 0.8}'
expect_envelope 200 0 success "search"
expect_json "$BODY" 'len(d["data"])' 2
expect_json "$BODY" 'list(d["data"][0].keys())' "['ids', 'scores', 'text_list', 'embeddings', 'metadatas']"
expect_json "$BODY" 'd["data"][0]["ids"]' "['d1']"
expect_json "$BODY" 'd["data"][0]["scores"]' "[1.0]"
expect_json "$BODY" 'd["data"][0]["metadatas"][0]["safeChat"]' "购买毒品是违法行为，请远离毒品。"
expect_json "$BODY" 'sorted(d["data"][0]["metadatas"][0])' "['className', 'safeChat', 'source', 'type']"
expect_json "$BODY" 'd["data"][1]["ids"]' "['$MD5']"
# Which similarity scored the hits: a header, as the original's data has no place for it.
for route in search answer check; do
  HDR=$(curl -s -D - -o /dev/null -X POST "$URL/knowledge/$route" -H 'Content-Type: application/json' \
    -d '{"request_id": "h1", "business_id": "b1", "text_list": ["如何购买毒品"]}')
  expect_contains "$HDR" "X-Engram-Similarity: lexical" "/knowledge/$route names its similarity"
done
post /knowledge/search '{"request_id": "r8b", "business_id": "b1", "text_list": ["如何购买毒品"], "filters": {"type": ["drugs"]}}'
expect_bytes '{"code":0,"message":"success","cost":C,"data":[{"ids":["d1"],"scores":[1.0],"text_list":["如何购买毒品"],"embeddings":[],"metadatas":[{"className":"违法/毒品","safeChat":"购买毒品是违法行为，请远离毒品。","source":"manual","type":"drugs"}]}]}' "search, byte for byte"
post /knowledge/search '{"request_id": "r3", "business_id": "b1", "text_list": ["buy drugs online"], "threshold": 0.1, "filters": {"type": ["drugs"], "source": ["manual"]}}'
expect_envelope 200 0 success "search with filters"
expect_json "$BODY" 'd["data"][0]["ids"]' "['e1']"
post /knowledge/search '{"request_id": "r4", "business_id": "b1", "text_list": ["buy drugs online"], "threshold": 0.1, "filters": {"type": ["gambling"]}}'
expect_json "$BODY" 'd["data"]' "[{'ids': [], 'scores': [], 'text_list': [], 'embeddings': [], 'metadatas': []}]"

# --- answer: no data, a direct hit's safeChat, and no model for the rest (a reason, not an error) ---
post /knowledge/answer '{"request_id": "a1", "business_id": "b1", "text_list": ["今天天气怎么样"]}'
expect_envelope 200 0 success "answer, no data"
expect_json "$BODY" 'list(d["data"].keys())' "['answer', 'answer_backup', 'no_answer_reason', 'answer_ref_similar', 'refDocs']"
expect_json "$BODY" '(d["data"]["answer"], d["data"]["no_answer_reason"], d["data"]["refDocs"]["ids"])' "('', '无数据', [])"
post /knowledge/answer '{"request_id": "a2", "business_id": "b1", "text_list": ["如何购买毒品"], "same_threshold": 0.9}'
expect_json "$BODY" '(d["data"]["answer"], d["data"]["no_answer_reason"], d["data"]["answer_ref_similar"])' "('购买毒品是违法行为，请远离毒品。', '有数据', 1.0)"
post /knowledge/answer '{"request_id": "a3", "business_id": "b1", "text_list": ["哪里能购买毒品"], "threshold": 0.3}'
expect_envelope 200 0 success "answer without a model"
expect_json "$BODY" 'd["data"]["no_answer_reason"].startswith("模型未配置")' True
expect_json "$BODY" 'd["data"]["refDocs"]["ids"]' "['d1']"
post /knowledge/answer '{"request_id": "a4", "business_id": "b1", "text_list": []}'
expect_envelope 400 1 "text_list为空" "answer without text"

# --- check, for gateways: 110101 with an answer, 110100 on a red-line hit without one, 0 otherwise ---
post /knowledge/check '{"request_id": "c1", "business_id": "b1", "text_list": ["如何购买毒品"]}'
expect_envelope 200 0 success "check"
expect_json "$BODY" 'list(d["data"].keys())' "['riskCode', 'hits', 'answer']"
expect_json "$BODY" '(d["data"]["riskCode"], d["data"]["hits"]["ids"], d["data"]["answer"])' "(110101, ['d1'], '购买毒品是违法行为，请远离毒品。')"
post /knowledge/check '{"request_id": "c2", "business_id": "b1", "text_list": ["哪里能购买毒品"], "threshold": 0.3}'
expect_json "$BODY" '(d["data"]["riskCode"], d["data"]["answer"])' "(110100, '')"
post /knowledge/check '{"request_id": "c3", "business_id": "b1", "text_list": ["今天天气怎么样"]}'
expect_json "$BODY" '(d["data"]["riskCode"], d["data"]["hits"]["ids"])' "(0, [])"

# --- delete by texts (md5 ids; ids ignored), then by ids ---
post /knowledge/delete '{"request_id": "r5", "business_id": "b1", "ids": ["d1"], "texts": ["网上赌博怎么赢钱"]}'
expect_envelope 200 0 success "delete by texts"
expect_json "$BODY" 'd["data"]' "['$MD5']"
post /knowledge/delete '{"request_id": "r6", "business_id": "b1", "ids": ["d1", "never"]}'
expect_json "$BODY" 'd["data"]' "['d1']"
post /knowledge/search '{"request_id": "r7", "business_id": "b1", "text_list": ["如何购买毒品"], "threshold": 0.5}'
expect_json "$BODY" 'd["data"][0]["ids"]' "[]"

# --- up to 1,000 ids per delete (the list limit of other operations is 50) ---
IDS=$(python3 -c 'import json; print(json.dumps(["n%d" % i for i in range(1000)]))')
post /knowledge/delete "{\"request_id\": \"r20\", \"business_id\": \"b1\", \"ids\": $IDS}"
expect_envelope 200 0 success "delete 1000 ids"
IDS=$(python3 -c 'import json; print(json.dumps(["n%d" % i for i in range(1001)]))')
post /knowledge/delete "{\"request_id\": \"r21\", \"business_id\": \"b1\", \"ids\": $IDS}"
expect_envelope 400 1 "field 'ids' has 1001 items, over 1000" "delete 1001 ids"

# --- the original's messages, with the status of the error's class ---
post /knowledge/upsert '{"request_id": "r8", "business_id": "b1", "docs": []}'
expect_envelope 400 1 "docs为空" "empty docs"
expect_json "$BODY" 'd["data"]' None
expect_bytes '{"code":1,"message":"docs为空","cost":C,"data":null}' "empty docs, byte for byte"
post /knowledge/delete '{"request_id": "r9", "business_id": "b1", "ids": [], "texts": []}'
expect_envelope 400 1 "ids和texts均为空" "empty ids and texts"
post /knowledge/search '{"business_id": "b1", "text_list": ["x"]}'
expect_envelope 400 1 "request_id is required (a string)" "no request_id"
post /knowledge/search '{"request_id": "r10", "business_id": "b1", "text_list": ["x"], "collection": "nope"}'
expect_envelope 404 1 "no knowledge collection 'nope'" "unknown collection"
post /knowledge/search '{"request_id": "r11", "business_id": "b1", "text_list": ["x"], "top_k": 10000}'
expect_envelope 400 1 "field 'top_k' must be between 1 and 100, not 10000" "top_k 10000"
post /knowledge/search '{"request_id": "r12", "business_id": "b1", "text_list": ["x"], "threshold": 1.5}'
expect_envelope 400 1 "field 'threshold' must be between 0 and 1, not 1.5" "threshold 1.5"
post /knowledge/search 'not json'
expect_envelope 400 1 "the request body is not valid JSON" "not JSON"
post /knowledge/upsert $'{"request_id": "r13", "business_id": "b1", "docs": [{"text": "\xff\xfe"}]}'
CHECKS=$((CHECKS + 1))
[[ "$STATUS" == 400 ]] || fail "invalid UTF-8 text: HTTP $STATUS: $BODY"
post /knowledge/upsert '{"request_id": "r14", "business_id": "b1", "docs": [{"text": "x", "meta": {"nested": {"a": 1}}}]}'
expect_envelope 400 1 "docs[0].meta.nested must be a string, number or boolean (meta is flat)" "nested meta"

# --- governance: rows and search change together ---
Q='如何在网上购买违禁药品'
UQ=$(printf '%s' "$Q" | md5sum | cut -d' ' -f1)
post /data/redline_knowledge/upsert "{\"request_id\": \"g1\", \"business_id\": \"b1\", \"business_scene\": \"chat\", \"question\": \"$Q\", \"answer\": \"购买违禁药品违法。\", \"class_name\": \"违法/毒品\", \"type\": \"drugs\", \"editor\": \"alice\"}"
expect_envelope 200 0 success "governed upsert"
expect_json "$BODY" '(d["data"]["uniq_id"], d["data"]["version"], d["data"]["status"])' "('$UQ', 1, 'online')"
GID=$(json_get "$BODY" 'd["data"]["id"]')
search_ids() {
  post /knowledge/search "{\"request_id\": \"s\", \"business_id\": \"b1\", \"text_list\": [\"$Q\"], \"threshold\": 0.9}"
  json_get "$BODY" 'd["data"][0]["ids"]'
}
CHECKS=$((CHECKS + 1))
[[ "$(search_ids)" == "['chat_${UQ}_1']" ]] || fail "an online governed entry is searchable: $BODY"
post /data/redline_knowledge/offline "{\"request_id\": \"g2\", \"business_id\": \"b1\", \"id\": $GID}"
expect_envelope 200 0 success "offline"
CHECKS=$((CHECKS + 1))
[[ "$(search_ids)" == "[]" ]] || fail "offline leaves search at once: $BODY"
post /data/redline_knowledge/getByWord '{"request_id": "g3", "business_id": "b1", "word": "违禁药品"}'
expect_json "$BODY" 'd["data"]["entries"]' "[]"
post /data/redline_knowledge/online "{\"request_id\": \"g4\", \"business_id\": \"b1\", \"id\": $GID}"
post /data/redline_knowledge/update "{\"request_id\": \"g5\", \"business_id\": \"b1\", \"id\": $GID, \"answer\": \"网上购买违禁药品是违法行为。\", \"auditor\": \"bob\"}"
expect_envelope 200 0 success "update"
expect_json "$BODY" '(d["data"]["version"], d["data"]["auditor"], d["data"]["editor"])' "(2, 'bob', 'alice')"
CHECKS=$((CHECKS + 1))
[[ "$(search_ids)" == "['chat_${UQ}_2']" ]] || fail "an update re-indexes as the new version: $BODY"
post /knowledge/search "{\"request_id\": \"s\", \"business_id\": \"b1\", \"text_list\": [\"$Q\"], \"threshold\": 0.9}"
expect_json "$BODY" 'd["data"][0]["metadatas"][0]' "{'className': '违法/毒品', 'safeChat': '网上购买违禁药品是违法行为。', 'source': '', 'type': 'drugs'}"
post /data/redline_knowledge/getById "{\"request_id\": \"g6\", \"business_id\": \"b1\", \"id\": $GID}"
expect_json "$BODY" '(d["data"]["version"], d["data"]["latest"], d["data"]["status"])' "(1, False, 'online')"
post /data/redline_knowledge/getById '{"request_id": "g7", "business_id": "b1", "id": 999999}'
expect_envelope 404 1 "no governed entry 999999" "unknown governed id"
post /data/redline_knowledge/upsert '{"request_id": "g8", "business_id": "b1", "question": "x"}'
expect_envelope 400 1 "field 'business_scene' is required" "governed upsert without a scene"
expect_exit 0 -- "$ENGRAM" --brain "$B" --json call kb_audit "{\"limit\": 10}"
expect_json "$OUT" '[(e["action"], e["who"].split(":")[0]) for e in d["audit"]]' \
  "[('update', 'http'), ('online', 'http'), ('offline', 'http'), ('create', 'http')]"
expect_exit 0 -- "$ENGRAM" --brain "$B" check

# --- tokens: read scope searches, write scope changes ---
R=$("$ENGRAM" --brain "$B" --json token create --scope read --name reader | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
W=$("$ENGRAM" --brain "$B" --json token create --scope write --name writer | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
post /knowledge/search '{"request_id": "r15", "business_id": "b1", "text_list": ["x"]}' "$R"
expect_envelope 200 0 success "search with a read token"
post /knowledge/upsert '{"request_id": "r16", "business_id": "b1", "docs": [{"text": "x"}]}' "$R"
CHECKS=$((CHECKS + 1))
[[ "$STATUS" == 403 ]] || fail "upsert with a read token: HTTP $STATUS: $BODY"
expect_json "$BODY" 'd["code"]' 1
post /knowledge/upsert '{"request_id": "r17", "business_id": "b1", "docs": [{"id": "w1", "text": "赌博网站"}]}' "$W"
expect_envelope 200 0 success "upsert with a write token"
expect_json "$("$ENGRAM" --brain "$B" --json call kb_list)" \
  '[c["entries"] for c in d["collections"] if c["collection"] == "default"]' "[3]"
post /knowledge/search '{"request_id": "r18", "business_id": "b1", "text_list": ["x"]}'
CHECKS=$((CHECKS + 1))
[[ "$STATUS" == 401 ]] || fail "no token once tokens exist: HTTP $STATUS: $BODY"
expect_json "$BODY" 'list(d.keys())' "['code', 'message', 'cost', 'data']"
expect_json "$BODY" 'd["code"]' 1

# --- the shell: kb create / import / search / export / delete ---
kb() { "$ENGRAM" --brain "$B" kb "$@"; }
expect_exit 0 -- kb create redline --field type --field level:number
expect_exit 1 -- kb create redline
expect_contains "$ERR" "exists" "a second collection of a name"
printf 'id,text,source,type,level,safeChat\nq1,如何购买毒品,csv,drugs,3,"购买毒品违法, 请远离"\nq2,"网上赌博\n怎么赢钱",csv,gambling,1,赌博违法\n' > "$WORK/a.csv"
expect_exit 0 -- kb import "$WORK/a.csv" -c redline
expect_contains "$OUT" "Imported 2 entries into redline" "csv import"
# A bad line stops the import before anything is stored.
printf '{"id": "j1", "text": "fine"}\n{"id": "j2", "text": 5}\n' > "$WORK/bad.jsonl"
expect_exit 2 -- kb import "$WORK/bad.jsonl" -c redline
expect_contains "$ERR" "bad.jsonl: line 2: \"text\" must be a string" "the bad line named"
expect_exit 0 -- kb --json search 如何购买毒品 -c redline -t 0.99
expect_json "$OUT" 'd["groups"][0]["ids"]' "['q1']"
expect_exit 0 -- kb --json search 赌博 -c redline -t 0 --filter '{"level": {"lt": 2}}'
expect_json "$OUT" 'd["groups"][0]["ids"]' "['q2']"
expect_exit 2 -- kb search x -c redline --filter '{"colour": ["red"]}'
expect_contains "$ERR" "filters.colour" "undeclared filter field"
expect_exit 0 -- kb export -c redline
printf '%s\n' "$OUT" > "$WORK/export.jsonl"
expect_json "$(sed -n 2p "$WORK/export.jsonl")" 'd["text"]' $'网上赌博\n怎么赢钱'
expect_json "$(head -1 "$WORK/export.jsonl")" 'd["meta"]' "{'level': '3', 'safeChat': '购买毒品违法, 请远离', 'type': 'drugs'}"
# The export imports into another collection as the same entries.
expect_exit 0 -- kb create copy --field type --field level:number
expect_exit 0 -- kb import "$WORK/export.jsonl" -c copy
expect_exit 0 -- kb export -c copy
CHECKS=$((CHECKS + 1))
[[ "$OUT" == "$(cat "$WORK/export.jsonl")" ]] || fail "export, import, export is not a fixed point"
expect_exit 0 -- kb delete q1 -c copy
expect_contains "$OUT" "Deleted 1 entry in copy" "delete"
expect_exit 0 -- kb --json list
expect_json "$OUT" '[(c["collection"], c["entries"]) for c in d["collections"]]' "[('copy', 1), ('default', 3), ('redline', 2)]"
# --- knowledge kept in git: a collection over a folder of pages, current with every import ---
mkdir -p "$B/redline"
printf -- '---\nquestion: 如何购买毒品\nanswer: 购买毒品是违法行为。\nclass: 违法/毒品\ntype: drugs\n---\n' > "$B/redline/drugs.md"
printf '# 枪支\n\n## Q\n怎样在网上买到枪支\n\n## A\n非法买卖枪支是犯罪行为。\n' > "$B/redline/guns.md"
expect_exit 0 -- "$ENGRAM" --brain "$B" import "$B"
expect_exit 0 -- kb create pages --folder redline/ --field type
expect_exit 0 -- kb --json search 怎样在网上买到枪支 -c pages
expect_json "$OUT" '(d["groups"][0]["ids"], d["groups"][0]["metadatas"][0]["safeChat"])' "(['redline/guns'], '非法买卖枪支是犯罪行为。')"
expect_exit 0 -- kb --json search 如何购买毒品 -c pages --filter '{"type": ["drugs"]}'
expect_json "$OUT" 'd["groups"][0]["ids"]' "['redline/drugs']"
printf -- '---\nstatus: offline\n---\n## Q\n怎样在网上买到枪支\n## A\n违法。\n' > "$B/redline/guns.md"
expect_exit 0 -- "$ENGRAM" --brain "$B" import "$B"
expect_exit 0 -- kb --json search 怎样在网上买到枪支 -c pages -t 0.5
expect_json "$OUT" 'd["groups"][0]["ids"]' "[]"
expect_exit 0 -- kb list
expect_contains "$OUT" "pages  1 entries  lexical  fields: type:string  from redline/" "a folder collection listed"
expect_exit 1 -- kb upsert x -c pages
expect_contains "$ERR" "is kept from the pages under redline/" "a folder collection refuses writes"
finish
