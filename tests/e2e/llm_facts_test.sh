#!/usr/bin/env bash
# End-to-end (issue 17, item 3): the optional LLM relation extractor,
# `engram facts SLUG --suggest [--write]`, against a loopback fake chat
# server. What the model says is only kept when it is about the page, names
# a page (or is a text role or location), is confident enough, is not said
# already and contradicts nothing a person wrote; --write adds the kept ones
# as fact lines marked with the model, read back with origin "llm …".
# Garbage from the model is a clear failure that writes nothing.
source "$(dirname "$0")/lib.sh"
E=$ENGRAM
B="$WORK/brain"
mkdir -p "$B/people" "$B/companies"
printf -- '---\ntitle: Li Wei\ntype: person\nrole: CTO\n---\n\nLi Wei has been with [[companies/globex]] since 2024.\nHe sits on the board of Acme Robotics and studied at Tsinghua.\n' \
  >"$B/people/li-wei.md"
printf -- '---\ntitle: Globex\ntype: company\n---\nA company.\n' >"$B/companies/globex.md"
printf -- '---\ntitle: Acme Robotics\ntype: company\n---\nRobots.\n' >"$B/companies/acme.md"
expect_exit 0 -- "$E" init "$B"
expect_exit 0 -- "$E" --brain "$B" import "$B"

# Off unless a model is configured.
expect_exit 1 -- "$E" --brain "$B" facts people/li-wei --suggest
expect_contains "$ERR" "set llm.model" "the extractor needs a model"

python3 "$(dirname "$0")/fake_llm.py" "$WORK/llm.port" "$WORK/prompt" &
LLM_PID=$!
trap 'kill $LLM_PID 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 1 100); do [[ -s "$WORK/llm.port" ]] && break; sleep 0.1; done
export ENGRAM_LLM_BASE_URL="http://127.0.0.1:$(cat "$WORK/llm.port")/v1"
export ENGRAM_LLM_MODEL=fake-model
cat >"$WORK/prompt.relations" <<'JSON'
Here you are:
```json
{"relations": [
  {"subject": "Li Wei", "predicate": "works_at", "object": "Globex", "line": 7, "confidence": 0.9},
  {"subject": "Li Wei", "predicate": "advises", "object": "Acme Robotics", "line": 8, "confidence": 0.5},
  {"subject": "Li Wei", "predicate": "role", "object": "CEO", "line": 8, "confidence": 0.95},
  {"subject": "Globex", "predicate": "location", "object": "Berlin", "line": 7, "confidence": 0.9},
  {"subject": "Li Wei", "predicate": "education", "object": "Tsinghua", "line": 8, "confidence": 0.9},
  {"subject": "Li Wei", "predicate": "location", "object": "Shenzhen", "line": 8, "confidence": 0.8},
  {"subject": "Li Wei", "predicate": "location", "object": "Shanghai", "line": 8, "confidence": 0.8},
  {"subject": "Li Wei", "predicate": "loves", "object": "Go", "line": 1, "confidence": 1},
  {"subject": "Li Wei", "predicate": "works_at", "object": "Globex", "line": 99, "confidence": 0.9},
  "nonsense"
]}
```
JSON
BEFORE=$(cat "$B/people/li-wei.md")
expect_exit 0 -- "$E" --brain "$B" --json facts people/li-wei --suggest
expect_json "$OUT" '[(s["predicate"], s["verdict"]) for s in d["suggestions"]]' \
  "[('works_at', 'suggested'), ('advises', 'confidence below 0.70'), ('role', 'the page says CTO (people/li-wei.md:4); not overridden'), ('location', 'about another page, not this one'), ('education', \"'Tsinghua' names no page\"), ('location', 'suggested'), ('location', 'the reply gives location another value too (Shenzhen)')]"
expect_json "$OUT" 'd["dropped"]' \
  "[\"relation 8: unknown relation type 'loves'\", 'relation 9: line 99 is not a line of the note', 'relation 10: not an object']"
expect_json "$OUT" 'd["suggestions"][0]["value"]' "[[companies/globex]]"
[[ "$(cat "$B/people/li-wei.md")" == "$BEFORE" ]] || fail "--suggest alone writes nothing"
expect_contains "$(cat "$WORK/prompt")" "7: Li Wei has been with [[companies/globex]] since 2024." "the model sees numbered lines"

expect_exit 0 -- "$E" --brain "$B" facts people/li-wei --suggest --write
expect_contains "$OUT" "works_at: [[companies/globex]]  (line 7, confidence 0.9)  written" "the text report"
L=$(cat "$B/people/li-wei.md")
expect_contains "$L" "- fact: works_at: [[companies/globex]] <!-- llm fake-model 0.90 line 7 -->" "marked with the model"
expect_contains "$L" "- fact: location: Shenzhen <!-- llm fake-model 0.80 line 8 -->" "a text location"
expect_contains "$L" "role: CTO" "what a person wrote stays"
expect_exit 0 -- "$E" --brain "$B" --json facts people/li-wei
expect_json "$OUT" '[(f["predicate"], f["value"], f["source"]["origin"]) for f in d["facts"] if f["source"]["origin"].startswith("llm")]' \
  "[('location', 'Shenzhen', 'llm fake-model 0.80 line 8'), ('works_at', 'Globex', 'llm fake-model 0.90 line 7')]"
# Asked again, what it wrote is already stated.
expect_exit 0 -- "$E" --brain "$B" --json facts people/li-wei --suggest --write
expect_json "$OUT" 'd["suggestions"][0]["verdict"].startswith("already stated (people/li-wei.md:")' "True"
expect_json "$OUT" 'd["commit"]' ""
expect_json "$OUT" '[s["verdict"] for s in d["suggestions"]][-1]' "the page says Shenzhen (people/li-wei.md:10); not overridden"

# A reply that is no JSON, and bad arguments.
printf 'I cannot help with that.' >"$WORK/prompt.relations"
BEFORE=$(cat "$B/people/li-wei.md")
expect_exit 1 -- "$E" --brain "$B" facts people/li-wei --suggest --write
expect_contains "$ERR" "the model's reply holds no JSON object" "garbage is named"
[[ "$(cat "$B/people/li-wei.md")" == "$BEFORE" ]] || fail "garbage writes nothing"
expect_exit 2 -- "$E" --brain "$B" facts people/li-wei --write
expect_contains "$ERR" "--write goes with --suggest" "write alone"
expect_exit 2 -- "$E" --brain "$B" facts people/li-wei --suggest --min-confidence 2
expect_exit 1 -- "$E" --brain "$B" facts people/nobody --suggest
finish
