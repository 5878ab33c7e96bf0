#!/usr/bin/env bash
# End-to-end: a brain on PostgreSQL (engram init --postgres) against the same
# vault on SQLite; two brain folders over one database; the errors a user
# sees. Needs the test cluster (ENGRAM_TEST_PG_URL_FILE, see tests/CMakeLists.txt).
source "$(dirname "$0")/lib.sh"
E=$ENGRAM
PG=$(cat "${ENGRAM_TEST_PG_URL_FILE:?needs the test cluster}")
VAULT=$(dirname "$0")/../../examples/vault
schema="pge2e_$$"
psql "$PG" -qAtc "DROP SCHEMA IF EXISTS $schema CASCADE; CREATE SCHEMA $schema" >/dev/null
URL="$PG?options=-csearch_path%3D$schema"

cp -r "$VAULT" "$WORK/lite" && cp -r "$VAULT" "$WORK/pg"
expect_exit 0 -- "$E" init "$WORK/lite"
expect_exit 0 -- "$E" init "$WORK/pg" --postgres "$URL"
expect_contains "$OUT" "(PostgreSQL)" "init names the engine"
expect_exit 0 -- "$E" --brain "$WORK/lite" import
expect_exit 0 -- "$E" --brain "$WORK/pg" import
expect_exit 0 -- "$E" --brain "$WORK/pg" status
expect_contains "$OUT" "engine:           PostgreSQL" "status names the server"
expect_exit 0 -- "$E" --brain "$WORK/pg" --json status
expect_json "$OUT" 'd["stats"]["engine"] if "stats" in d else d["engine"]' "postgres"

# The same ranking, scores included, for queries in both languages.
for q in "warehouse robots" "Project Atlas pilot" "星河智能" "灯塔计划 知识助手" "partnership Seattle" \
         "+robots -Shenzhen" '"mobile robots"' "who is the COO"; do
  a=$("$E" --brain "$WORK/lite" --json search "$q" --limit 20 | python3 -c \
    'import json,sys; print([(r["slug"], round(r["score"], 9), r["line_start"]) for r in json.load(sys.stdin)["results"]])')
  b=$("$E" --brain "$WORK/pg" --json search "$q" --limit 20 | python3 -c \
    'import json,sys; print([(r["slug"], round(r["score"], 9), r["line_start"]) for r in json.load(sys.stdin)["results"]])')
  CHECKS=$((CHECKS + 1))
  [[ "$a" == "$b" && "$a" != "[]" ]] || fail "search '$q' differs: sqlite $a postgres $b"
done
expect_exit 0 -- "$E" --brain "$WORK/pg" check
expect_exit 0 -- "$E" --brain "$WORK/pg" check --full

# A second brain folder over the same database (another machine, another
# server) sees a write through the first, and its own writes are seen back.
mkdir -p "$WORK/second/.engram" && cp "$WORK/pg/.engram/config.toml" "$WORK/second/.engram/"
printf '# Zeppelin\nAirships over the harbour.\n' >"$WORK/zeppelin.md"
expect_exit 0 -- "$E" --brain "$WORK/pg" put notes/zeppelin -f "$WORK/zeppelin.md"
expect_exit 0 -- "$E" --brain "$WORK/second" --json search "airships harbour"
expect_json "$OUT" 'd["results"][0]["slug"]' "notes/zeppelin"

# Errors: an unreachable server is named (host and port), its password never.
expect_exit 1 -- "$E" init "$WORK/nowhere" --postgres "postgres://someone:hunter2-secret@127.0.0.1:1/brain"
expect_contains "$ERR" "127.0.0.1:1/brain" "unreachable server named"
expect_not_contains "$ERR$OUT" "hunter2" "password kept out of the error"
# A password given to init stays out of config.toml.
schema2="pge2e_pw_$$"
psql "$PG" -qAtc "DROP SCHEMA IF EXISTS $schema2 CASCADE; CREATE SCHEMA $schema2" >/dev/null
pw_url=$(sed "s|://engram@|://engram:hunter2-secret@|" <<<"$PG")
expect_exit 0 -- "$E" init "$WORK/pw" --postgres "$pw_url?options=-csearch_path%3D$schema2"
expect_not_contains "$(cat "$WORK/pw/.engram/config.toml")" "hunter2" "password not written to the config"
# Another program's database is refused and left alone.
schema3="pge2e_foreign_$$"
psql "$PG" -qAtc "DROP SCHEMA IF EXISTS $schema3 CASCADE; CREATE SCHEMA $schema3; CREATE TABLE $schema3.orders (id int)" >/dev/null
expect_exit 1 -- "$E" init "$WORK/foreign" --postgres "$PG?options=-csearch_path%3D$schema3"
expect_contains "$ERR" "another program" "foreign database refused"
expect_json "$(psql "$PG" -qAtc "SELECT count(*) FROM pg_tables WHERE schemaname = '$schema3'")" 'd' "1"
# url_env that is not set.
mkdir -p "$WORK/envb/.engram"
sed 's|^url_env = ""|url_env = "ENGRAM_TEST_UNSET_URL"|' "$WORK/pg/.engram/config.toml" >"$WORK/envb/.engram/config.toml"
expect_exit 1 -- "$E" --brain "$WORK/envb" status
expect_contains "$ERR" "ENGRAM_TEST_UNSET_URL" "unset url_env named"
ENGRAM_TEST_UNSET_URL="$URL" expect_exit 0 -- "$E" --brain "$WORK/envb" --json search "airships"

# migrate: SQLite -> PostgreSQL -> SQLite, the same search results all the way.
schema4="pge2e_migrate_$$"
psql "$PG" -qAtc "DROP SCHEMA IF EXISTS $schema4 CASCADE; CREATE SCHEMA $schema4" >/dev/null
results() {
  for q in "warehouse robots" "星河智能" "Project Atlas pilot" "partnership Seattle"; do
    "$E" --brain "$1" --json search "$q" --limit 20 | python3 -c \
      'import json,sys; print([(r["slug"], round(r["score"], 9)) for r in json.load(sys.stdin)["results"]])'
  done
}
before=$(results "$WORK/lite")
expect_exit 0 -- "$E" --brain "$WORK/lite" migrate --to "$PG?options=-csearch_path%3D$schema4"
expect_contains "$OUT" "verified: every table's row count and SHA-256 equal in both" "migrate verifies"
expect_contains "$OUT" "the brain now uses" "migrate switches the brain"
expect_exit 0 -- "$E" --brain "$WORK/lite" status
expect_contains "$OUT" "engine:           PostgreSQL" "the migrated brain runs on PostgreSQL"
CHECKS=$((CHECKS + 1))
[[ "$(results "$WORK/lite")" == "$before" ]] || fail "search changed after migrating to PostgreSQL"
expect_exit 0 -- "$E" --brain "$WORK/lite" check
# Back: the old file is still there (migrate never modifies a source) and is not overwritten.
expect_exit 1 -- "$E" --brain "$WORK/lite" migrate --to sqlite
expect_contains "$ERR" "move .engram/engram.db aside" "the old SQLite file is not overwritten"
mv "$WORK/lite/.engram/engram.db" "$WORK/old.db"
rm -f "$WORK/lite/.engram/engram.db-wal" "$WORK/lite/.engram/engram.db-shm"
expect_exit 0 -- "$E" --brain "$WORK/lite" --json migrate --to sqlite
expect_json "$OUT" 'd["switched"]' "True"
expect_exit 0 -- "$E" --brain "$WORK/lite" status
expect_not_contains "$OUT" "PostgreSQL" "back on SQLite"
CHECKS=$((CHECKS + 1))
[[ "$(results "$WORK/lite")" == "$before" ]] || fail "search changed after the round trip"
expect_exit 0 -- "$E" --brain "$WORK/lite" check --full
# A target that holds another brain is refused.
expect_exit 1 -- "$E" --brain "$WORK/lite" migrate --to "$URL"
expect_contains "$ERR" "already holds a brain" "a full target is refused"

# [store] pool_size: a server keeps at most that many connections open, however
# many requests arrive at once (each waits for a free one); the URL names the
# application, so this server's connections can be counted.
mkdir -p "$WORK/pooled/.engram" && cp "$WORK/pg/.engram/config.toml" "$WORK/pooled/.engram/"
app="engram-pool-$$"
expect_exit 0 -- "$E" --brain "$WORK/pooled" config set store.url "$URL&application_name=$app"
expect_exit 0 -- "$E" --brain "$WORK/pooled" config set store.pool_size 2
expect_exit 2 -- "$E" --brain "$WORK/pooled" config set store.pool_size -1
B="$WORK/pooled"
start_server "$WORK/pool.log" --rate-limit 0
python3 - "$PORT" >"$WORK/pool.out" <<'PY'
import json, sys, threading, urllib.request
port, codes, lock = sys.argv[1], {}, threading.Lock()
def client():
    for _ in range(15):
        req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/search", method="POST",
                                     data=json.dumps({"query": "warehouse robots", "limit": 5}).encode(),
                                     headers={"Content-Type": "application/json"})
        try:
            code = urllib.request.urlopen(req, timeout=30).status
        except Exception as e:
            code = getattr(e, "code", 0)
        with lock:
            codes[code] = codes.get(code, 0) + 1
threads = [threading.Thread(target=client) for _ in range(16)]
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps(codes))
PY
expect_contains "$(cat "$WORK/pool.out")" '{"200": 240}' "every concurrent request answered"
open_conns=$(psql "$PG" -qAtc "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app'")
CHECKS=$((CHECKS + 1))
[[ "$open_conns" -ge 1 && "$open_conns" -le 2 ]] || fail "pool_size 2, yet the server holds $open_conns connections"
stop_server
# Two servers over one database, vector arm included: a server answers its next
# request with what another process committed (caught up from the change log,
# its vector index kept, not rebuilt).
sed -i 's/^provider = "none"/provider = "hash"/' "$WORK/pg/.engram/config.toml"
expect_exit 0 -- "$E" --brain "$WORK/pg" embed
mkdir -p "$WORK/vec2/.engram" && cp "$WORK/pg/.engram/config.toml" "$WORK/vec2/.engram/"
B="$WORK/vec2"
start_server "$WORK/vec2.log" --rate-limit 0
vsearch() { curl -s -X POST "http://127.0.0.1:$PORT/v1/search" -H 'Content-Type: application/json' \
  -d '{"query": "beacon guiding ships at night", "mode": "vector", "limit": 3}'; }
expect_not_contains "$(vsearch)" "notes/lighthouse" "the page is not there yet"
printf '# Lighthouse\nA beacon guiding ships at night across the bay.\n' >"$WORK/lighthouse.md"
expect_exit 0 -- "$E" --brain "$WORK/pg" put notes/lighthouse -f "$WORK/lighthouse.md"
expect_json "$(vsearch)" 'd["results"][0]["slug"]' "notes/lighthouse"
expect_not_contains "$(cat "$WORK/vec2.log")" "rebuil" "caught up, not rebuilt"
stop_server

psql "$PG" -qAtc "DROP SCHEMA $schema CASCADE; DROP SCHEMA $schema2 CASCADE; DROP SCHEMA $schema3 CASCADE;
  DROP SCHEMA $schema4 CASCADE" >/dev/null
finish
