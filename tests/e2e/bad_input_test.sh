#!/usr/bin/env bash
# End-to-end: hostile and malformed input gets a clear error, never a crash
# and never lost data.
source "$(dirname "$0")/lib.sh"
E=$ENGRAM
B="$WORK/brain"
expect_exit 0 -- "$E" init "$B"

# Slugs that try to leave the brain are usage errors (exit 2), nothing is written.
for slug in "../escape" "a/../../escape" "/etc/passwd" 'back\slash' $'ctl\x01char' "a//b" ""; do
  expect_exit 2 -- bash -c "printf 'x' | \"$E\" --brain \"$B\" put \"\$1\"" _ "$slug"
  expect_contains "$ERR" "slug" "put '$slug'"
done
[[ ! -e "$WORK/escape.md" && ! -e "$WORK/escape" ]] || fail "a hostile slug wrote outside the brain"
: > "$WORK/empty.md"
expect_exit 2 -- "$E" --brain "$B" put "$(printf 'a%.0s' {1..300})" --file "$WORK/empty.md"
expect_contains "$ERR" "over the limit of 255" "over-long slug"

# Non-UTF-8 and binary content.
printf 'caf\xe9\n' > "$WORK/latin1.md"
expect_exit 2 -- "$E" --brain "$B" put notes/latin1 --file "$WORK/latin1.md"
expect_contains "$ERR" "not valid UTF-8 at byte 3" "latin-1 put"
[[ ! -e "$B/notes/latin1.md" ]] || fail "invalid content was written"
printf 'a\0b' > "$WORK/bin.md"
expect_exit 2 -- "$E" --brain "$B" put notes/bin --file "$WORK/bin.md"
expect_contains "$ERR" "NUL" "binary put"

# Size limit from the environment (ENGRAM_IMPORT_MAX_FILE_BYTES).
head -c 5000 /dev/zero | tr '\0' 'x' > "$WORK/big.md"
expect_exit 2 -- env ENGRAM_IMPORT_MAX_FILE_BYTES=1000 "$E" --brain "$B" put notes/big --file "$WORK/big.md"
expect_contains "$ERR" "over the limit" "oversize put"

# Import: invalid frontmatter is indexed from its body with a warning; bad files are skipped by name.
mkdir -p "$B/notes"
printf -- '---\ntitle: [unclosed\n---\nThe body still counts: zebra.\n' > "$B/notes/broken.md"
printf 'caf\xe9\n' > "$B/notes/latin1.md"
printf 'a\0b' > "$B/notes/binary.md"
expect_exit 0 -- "$E" --brain "$B" import
expect_contains "$OUT" "warning notes/broken.md: frontmatter: invalid YAML" "import warning"
expect_contains "$OUT" "skipped notes/latin1.md: " "import skip latin1"
expect_contains "$OUT" "skipped notes/binary.md: " "import skip binary"
expect_exit 0 -- "$E" --brain "$B" --json search zebra
expect_json "$OUT" 'd["results"][0]["slug"]' "notes/broken"
expect_exit 0 -- "$E" --brain "$B" status
expect_contains "$OUT" "notes/broken.md" "status shows recent problems"

# Bad queries.
expect_exit 2 -- "$E" --brain "$B" search ""
expect_contains "$ERR" "query is empty" "empty query"
expect_exit 2 -- "$E" --brain "$B" search "the of and"
expect_contains "$ERR" "no searchable words" "stop-word query"
expect_exit 0 -- "$E" --brain "$B" search '"unbalanced quote zebra'
expect_exit 0 -- "$E" --brain "$B" --json search "$(head -c 10240 /dev/zero | tr '\0' 'q') zebra"
expect_exit 2 -- "$E" --brain "$B" --json search "$(printf 'bad\xff')"
expect_json "$OUT" 'd["error"]["code"]' "InvalidArgument"

# Invalid config names file and line; nothing runs.
cp "$B/.engram/config.toml" "$WORK/config.bak"
printf '[search]\nlimit = 10\nbogus = 1\n' > "$B/.engram/config.toml"
expect_exit 2 -- "$E" --brain "$B" status
expect_contains "$ERR" "config.toml:3: unknown setting search.bogus" "config error"
cp "$WORK/config.bak" "$B/.engram/config.toml"

# A corrupt or foreign engram.db is a clear error and is never overwritten.
C="$WORK/corrupt"
expect_exit 0 -- "$E" init "$C"
head -c 8192 /dev/urandom > "$C/.engram/engram.db"
before=$(sha256sum < "$C/.engram/engram.db")
expect_exit 1 -- "$E" --brain "$C" status
expect_contains "$ERR" "not an SQLite database" "corrupt db"
expect_exit 1 -- "$E" init "$C"
expect_exit 1 -- bash -c "printf 'x' | \"$E\" --brain \"$C\" put a"
[[ "$(sha256sum < "$C/.engram/engram.db")" == "$before" ]] || fail "corrupt database was modified"
F="$WORK/foreign"
mkdir -p "$F/.engram"
sqlite3 "$F/.engram/engram.db" "CREATE TABLE customers(id); INSERT INTO customers VALUES (1);" 2>/dev/null ||
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE customers(id)'); c.commit()" "$F/.engram/engram.db"
expect_exit 1 -- "$E" --brain "$F" status
expect_contains "$ERR" "another program" "foreign db"

# Malformed eval input names the file and line.
printf '{"_id":"d1","text":"ok"}\nnot json\n' > "$WORK/corpus.jsonl"
printf '{"_id":"q1","text":"ok"}\n' > "$WORK/q.jsonl"
printf 'query-id\tcorpus-id\tscore\nq1\td1\t1\n' > "$WORK/qrels.tsv"
expect_exit 2 -- "$E" eval --corpus "$WORK/corpus.jsonl" --queries "$WORK/q.jsonl" --qrels "$WORK/qrels.tsv"
expect_contains "$ERR" "corpus.jsonl:2: not a JSON object" "eval malformed corpus"
expect_exit 1 -- "$E" eval --corpus "$WORK/missing.jsonl" --queries "$WORK/q.jsonl" --qrels "$WORK/qrels.tsv"
# Regression: environment overrides reach eval outside a brain (they were ignored).
printf '{"_id":"d1","text":"ok"}\n' > "$WORK/corpus.jsonl"
expect_exit 2 -- bash -c "cd \"$WORK\" && ENGRAM_SEARCH_BM25_B=5 \"$E\" eval --corpus corpus.jsonl --queries q.jsonl --qrels qrels.tsv"
expect_contains "$ERR" "ENGRAM_SEARCH_BM25_B" "eval reads the environment"
finish
