#!/usr/bin/env bash
# End-to-end: `engram config list|get|set|unset` (issue 14, item 6) — switching to an OpenAI-compatible
# embedding server in three commands, the file's comments and order kept, every value checked as loading
# checks it, a typo answered with the closest keys, and a file that does not parse left untouched.
source "$(dirname "$0")/lib.sh"
E=$ENGRAM
B="$WORK/brain"
"$E" init "$B" > /dev/null
C="$B/.engram/config.toml"
cp "$C" "$WORK/config.orig"

# An OpenAI-compatible server: model first, then base_url, then provider (provider needs the model).
expect_exit 0 -- "$E" --brain "$B" config set embedding.model text-embedding-3-small
expect_contains "$OUT" 'embedding.model = "text-embedding-3-small" written to' "set says what it wrote"
expect_exit 0 -- "$E" --brain "$B" config set embedding.base_url http://127.0.0.1:8080/v1
expect_exit 0 -- "$E" --brain "$B" --json config set embedding.provider openai
expect_json "$OUT" 'd["value"]' "openai"
expect_json "$OUT" 'd["changed"]' "True"
# Only those three lines changed, each in place: same line count, every comment kept byte for byte.
CHECKS=$((CHECKS + 1))
changed=$(diff "$WORK/config.orig" "$C" | grep -c '^>')
[[ $changed -eq 3 && $(wc -l < "$C") -eq $(wc -l < "$WORK/config.orig") ]] || fail "diff: $(diff "$WORK/config.orig" "$C")"
expect_contains "$(diff "$WORK/config.orig" "$C")" '> provider = "openai"' "provider line rewritten"
CHECKS=$((CHECKS + 1))
diff <(grep '^#' "$WORK/config.orig") <(grep '^#' "$C") > /dev/null || fail "comments changed"
# Setting it again changes nothing.
expect_exit 0 -- "$E" --brain "$B" --json config set embedding.provider openai
expect_json "$OUT" 'd["changed"]' "False"

# list --json: every key with value, source, type and allowed values.
expect_exit 0 -- "$E" --brain "$B" --json config list
expect_json "$OUT" '[s["value"] for s in d if s["key"] == "embedding.provider"][0]' "openai"
expect_json "$OUT" '[s["source"] for s in d if s["key"] == "embedding.provider"][0]' "config.toml"
expect_json "$OUT" '[s["allowed"] for s in d if s["key"] == "embedding.provider"][0]' "['none', 'bert', 'openai', 'hash']"
expect_json "$OUT" '[(s["allowed"]["min"], s["allowed"]["max"]) for s in d if s["key"] == "search.limit"][0]' "(1, 1000)"
expect_json "$OUT" '[s["type"] for s in d if s["key"] == "scope.exclude"][0]' "list"
expect_json "$OUT" 'len(d) == len({s["key"] for s in d}) and len(d) > 50' "True"
expect_json "$OUT" 'd[0]["key"]' "import.max_file_bytes"
# The environment wins, and list says so.
ENGRAM_SEARCH_LIMIT=42 expect_exit 0 -- "$E" --brain "$B" --json config list
expect_json "$OUT" '[(s["value"], s["source"]) for s in d if s["key"] == "search.limit"][0]' "(42, 'environment')"
ENGRAM_SEARCH_LIMIT=42 expect_exit 0 -- "$E" --brain "$B" config list
expect_contains "$OUT" "search.limit = 42" "text list"
expect_contains "$OUT" "# environment (ENGRAM_SEARCH_LIMIT), default 10" "text list names the variable"

# get: the bare value; --json the list's object. Found from the current directory too.
expect_exit 0 -- "$E" --brain "$B" config get embedding.provider
[[ "$OUT" == "openai" ]] || fail "get printed '$OUT'"
expect_exit 0 -- bash -c "cd '$B' && '$E' config get embedding.base_url"
[[ "$OUT" == "http://127.0.0.1:8080/v1" ]] || fail "get from cwd printed '$OUT'"
expect_exit 0 -- "$E" --brain "$B" --json config get search.limit
expect_json "$OUT" '(d["value"], d["source"], d["type"])' "(10, 'config.toml', 'integer')"

# unset: the line goes and the default applies; a setting another one needs is refused until that changes.
expect_exit 0 -- "$E" --brain "$B" config unset search.limit
expect_exit 0 -- "$E" --brain "$B" --json config get search.limit
expect_json "$OUT" '(d["value"], d["source"])' "(10, 'default')"
CHECKS=$((CHECKS + 1)); grep -q '^limit' "$C" && fail "limit line still in the file"
expect_exit 2 -- "$E" --brain "$B" config unset embedding.model
expect_contains "$ERR" "change embedding.provider first" "unset names the setting to change first"
expect_exit 0 -- "$E" --brain "$B" config unset embedding.provider
expect_exit 0 -- "$E" --brain "$B" config get embedding.provider
[[ "$OUT" == "none" ]] || fail "after unset: '$OUT'"
# set adds a missing key back at the end of its section.
expect_exit 0 -- "$E" --brain "$B" config set search.limit 25
CHECKS=$((CHECKS + 1))
awk '/^\[search\]/{s=1;next} /^\[/{s=0} s && /=/{k=$1} END{print k}' "$C" | grep -qx limit || fail "limit not last in [search]"

# Refusals name the range, the allowed values, or what to set first; the file is untouched.
expect_exit 0 -- "$E" --brain "$B" config unset embedding.model
cp "$C" "$WORK/config.before"
expect_exit 2 -- "$E" --brain "$B" config set search.limit 0
expect_contains "$ERR" "out of range [1, 1000]" "range named"
expect_exit 2 -- "$E" --brain "$B" config set embedding.provider bertt
expect_contains "$ERR" '"none", "bert", "openai" or "hash"' "allowed values named"
expect_exit 2 -- "$E" --brain "$B" config set embedding.provider bert
expect_contains "$ERR" "needs embedding.model" "cross-field rule"
expect_contains "$ERR" "change embedding.model first" "order suggested"
expect_exit 2 -- "$E" --brain "$B" config set search.limit ten
expect_contains "$ERR" "whole number in [1, 1000]" "type named"
expect_exit 2 -- "$E" --brain "$B" config set llm.model $'bad\xff'
expect_contains "$ERR" "not valid UTF-8" "invalid UTF-8 refused"
expect_exit 2 -- "$E" --brain "$B" --json config set scope.exclude 04_Archive
expect_json "$OUT" 'd["error"]["code"]' "InvalidArgument"
CHECKS=$((CHECKS + 1)); cmp -s "$C" "$WORK/config.before" || fail "a refused set changed the file"

# Hostile strings cannot add keys: the value comes back whole, and nothing else changes.
expect_exit 0 -- "$E" --brain "$B" config set llm.model $'x"\nlimit = 1\n[server]\nhost = "0.0.0.0"'
expect_exit 0 -- "$E" --brain "$B" --json config get llm.model
expect_json "$OUT" 'd["value"]' $'x"\nlimit = 1\n[server]\nhost = "0.0.0.0"'
expect_exit 0 -- "$E" --brain "$B" config get search.limit
[[ "$OUT" == "25" ]] || fail "search.limit became '$OUT'"
expect_exit 0 -- "$E" --brain "$B" config get server.host
[[ "$OUT" == "127.0.0.1" ]] || fail "server.host became '$OUT'"
expect_exit 0 -- "$E" --brain "$B" config set llm.model ""

# A list takes effect: excluded folders leave the index at the next import, and set says so.
mkdir -p "$B/04_Archive" "$B/notes"
printf '# Old\nThe zeppelin plan.\n' > "$B/04_Archive/old.md"
printf '# New\nThe glider plan.\n' > "$B/notes/new.md"
"$E" --brain "$B" import "$B" > /dev/null
expect_exit 0 -- "$E" --brain "$B" --json search zeppelin
expect_json "$OUT" 'len(d["results"])' "1"
expect_exit 0 -- "$E" --brain "$B" config set scope.exclude '["04_Archive", "Templates"]'
expect_contains "$ERR" "re-indexes" "a scope change says the next import re-indexes"
expect_exit 0 -- "$E" --brain "$B" config get scope.exclude
[[ "$OUT" == '["04_Archive", "Templates"]' ]] || fail "list printed '$OUT'"
"$E" --brain "$B" import "$B" > /dev/null
expect_exit 0 -- "$E" --brain "$B" --json search zeppelin
expect_json "$OUT" 'len(d["results"])' "0"

# A typo: exit 1 with the closest keys.
expect_exit 1 -- "$E" --brain "$B" config get embeding.provider
expect_contains "$ERR" "unknown setting 'embeding.provider'; did you mean embedding.provider" "typo suggestion"
expect_exit 1 -- "$E" --brain "$B" config set serch.limit 5
expect_contains "$ERR" "search.limit" "typo suggestion on set"

# A file that does not parse: every command refuses it with the parse error, and it stays as it is.
printf '[search]\nlimit = = 3\n# mine\n' > "$C"
cp "$C" "$WORK/broken"
expect_exit 1 -- "$E" --brain "$B" config set search.limit 5
expect_contains "$ERR" "config.toml:2" "parse error names the line"
expect_exit 1 -- "$E" --brain "$B" config unset search.limit
expect_exit 1 -- "$E" --brain "$B" config list
CHECKS=$((CHECKS + 1)); cmp -s "$C" "$WORK/broken" || fail "a broken file was changed"
CHECKS=$((CHECKS + 1))
[[ -z $(find "$B/.engram" -name 'config.toml.tmp*') ]] || fail "temp file left behind"

expect_exit 0 -- "$E" config --help
expect_contains "$OUT" "engram config set embedding.provider openai" "help has the example"
expect_exit 0 -- "$E" config set --help
expect_contains "$OUT" "out of range" "set --help says what is refused"
finish
