#!/usr/bin/env bash
# End-to-end: reads from a real streaming replica of the test cluster
# (pg_basebackup -R, a hot standby on another port): a brain folder with
# [store] read_url searches through it, results say when it lags, writes go
# to the primary, and a replica that goes away leaves reads on the primary.
source "$(dirname "$0")/lib.sh"
E=$ENGRAM
PG=$(cat "${ENGRAM_TEST_PG_URL_FILE:?needs the test cluster}")
bin=$(cat "$(dirname "$ENGRAM_TEST_PG_URL_FILE")/bin")
port=$(sed -n 's|.*:\([0-9]*\)/.*|\1|p' <<<"$PG")
S=$(mktemp -d /tmp/engram-standby-XXXXXX)
chmod 700 "$S"
if [[ $(id -u) -eq 0 ]]; then chown nobody "$S"; fi
cleanup_standby() { as_pg_owner "$bin/pg_ctl" -D "$S/data" -m immediate -w stop >/dev/null 2>&1; rm -rf "$S"; }
trap 'cleanup_standby; rm -rf "$WORK"' EXIT
as_pg_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$port" -U engram -D "$S/data" -R -X stream --checkpoint=fast >"$WORK/basebackup.log" 2>&1 ||
  { cat "$WORK/basebackup.log" >&2; exit 1; }
sport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_pg_owner "$bin/pg_ctl" -D "$S/data" -l "$S/log" -w -t 60 \
  -o "-p $sport -k $S -c listen_addresses=127.0.0.1 -c hot_standby=on -c max_connections=300 -c max_wal_senders=4" start >/dev/null ||
  { cat "$S/log" >&2; exit 1; }
STANDBY=${PG/:$port\//:$sport\/}

schema="rep_$$"
psql "$PG" -qAtc "CREATE SCHEMA $schema" >/dev/null
W="$WORK/writer" R="$WORK/reader"
cp -r "$(dirname "$0")/../../examples/vault" "$W"
expect_exit 0 -- "$E" init "$W" --postgres "$PG?options=-csearch_path%3D$schema"
expect_exit 0 -- "$E" --brain "$W" import
mkdir -p "$R/.engram"
sed "s|^read_url = \"\"|read_url = \"$STANDBY?options=-csearch_path%3D$schema\"|" "$W/.engram/config.toml" \
  >"$R/.engram/config.toml"
grep -q "^read_url = \"postgres" "$R/.engram/config.toml" || fail "read_url not set in the test's config"
# The standby catches up with the import.
for _ in $(seq 1 100); do
  n=$(psql "$STANDBY?options=-csearch_path%3D$schema" -qAtc "SELECT count(*) FROM pages" 2>/dev/null || echo 0)
  [[ "$n" == 42 ]] && break
  sleep 0.1
done
expect_exit 0 -- "$E" --brain "$R" status
# (Other tests write to the same cluster meanwhile: the standby may be a moment behind on their WAL.)
expect_contains "$OUT" "read replica:     127.0.0.1:$sport/engram_test (" "status names the replica"
expect_exit 0 -- "$E" --brain "$R" --json search "warehouse robots"
expect_json "$OUT" 'd["results"][0]["slug"]' "companies/northwind-robotics"

# Replay paused: a write on the primary is not on the replica yet, and the
# results say they come from a replica that lags.
psql "$STANDBY" -qAtc "SELECT pg_wal_replay_pause()" >/dev/null
printf '# Zeppelin\nAirships over the harbour.\n' >"$W/zeppelin.md"
expect_exit 0 -- "$E" --brain "$W" put notes/zeppelin -f "$W/zeppelin.md"
sleep 1.2
expect_exit 0 -- "$E" --brain "$R" --json search "airships harbour warehouse"
expect_not_contains "$OUT" "notes/zeppelin" "the paused replica does not have the new page"
expect_contains "$OUT" "behind the primary" "results name the lagging replica"
expect_exit 0 -- "$E" --brain "$R" status
expect_contains "$OUT" "read replica:     127.0.0.1:$sport/engram_test (" "status shows the lag"
expect_not_contains "$OUT" "(0 s behind)" "status shows a lag above zero"
psql "$STANDBY" -qAtc "SELECT pg_wal_replay_resume()" >/dev/null
for _ in $(seq 1 50); do
  "$E" --brain "$R" --json search "airships harbour" | grep -q notes/zeppelin && break
  sleep 0.1
done
expect_exit 0 -- "$E" --brain "$R" --json search "airships harbour"
expect_json "$OUT" 'd["results"][0]["slug"]' "notes/zeppelin"

# A server on the reader reads its own writes, even with replay paused.
psql "$STANDBY" -qAtc "SELECT pg_wal_replay_pause()" >/dev/null
B=$R
start_server "$WORK/serve.log" --rate-limit 0
printf '# Quokka\nQuokkas of Rottnest island.\n' >"$WORK/quokka.md"
body=$(python3 -c 'import json,sys; print(json.dumps({"content": open(sys.argv[1]).read()}))' "$WORK/quokka.md")
expect_exit 0 -- curl -sf -X PUT "http://127.0.0.1:$PORT/v1/pages/notes/quokka" -H 'Content-Type: application/json' \
  -d "$body"
for i in 1 2 3 4; do
  expect_exit 0 -- curl -sf -X POST "http://127.0.0.1:$PORT/v1/search" -H 'Content-Type: application/json' \
    -d '{"query": "quokkas rottnest", "limit": 3}'
  expect_json "$OUT" 'd["results"][0]["slug"]' "notes/quokka"
done
stop_server
psql "$STANDBY" -qAtc "SELECT pg_wal_replay_resume()" >/dev/null

# The replica goes away: reads go to the primary, status says so.
as_pg_owner "$bin/pg_ctl" -D "$S/data" -m immediate -w stop >/dev/null
expect_exit 0 -- "$E" --brain "$R" --json search "airships harbour"
expect_json "$OUT" 'd["results"][0]["slug"]' "notes/zeppelin"
expect_exit 0 -- "$E" --brain "$R" status
expect_contains "$OUT" "unreachable: reads go to the primary" "status says the replica is unreachable"

psql "$PG" -qAtc "DROP SCHEMA $schema CASCADE" >/dev/null
finish
