#!/usr/bin/env bash
# End-to-end: PostgreSQL going away under engram, on a cluster of the test's
# own (it is crashed and restarted): the server killed (`pg_ctl stop -m
# immediate`) during the first sync of 3,000 pages — the sync fails and
# says so, the next one converges and `engram check` passes — and a server's
# connections cut between requests — the next reads are retried and answer.
source "$(dirname "$0")/lib.sh"
E=$ENGRAM
here=$(cd "$(dirname "$0")/../.." && pwd)
pages=${2:-3000}
cl=$(mktemp -u /tmp/engram-pgfault-XXXXXX)
trap '"$here/scripts/pg-test-cluster" stop "$cl"; rm -rf "$WORK"' EXIT
# PostgreSQL's default durability: without synchronous commit a crash right after a commit loses it.
ENGRAM_PG_DURABLE=1 "$here/scripts/pg-test-cluster" start "$cl" 2>/dev/null
PG=$(cat "$cl/url")
bin=$(cat "$cl/bin")

R="$WORK/repo"
python3 "$here/bench/gen_vault.py" "$R" "$pages" >/dev/null
git -C "$R" init -q && git -C "$R" add -A && git -C "$R" -c user.email=t@t -c user.name=t commit -qm corpus
expect_exit 0 -- "$E" init "$R" --postgres "$PG"

# The server dies in the middle of the first sync.
"$E" --brain "$R" sync >"$WORK/sync1.out" 2>"$WORK/sync1.err" &
sync_pid=$!
# Inside its transaction: the lease is taken and the terms table is filling.
for _ in $(seq 1 600); do
  n=$(psql "$PG" -qAtc "SELECT count(*) FROM engram_writer WHERE holder <> ''" 2>/dev/null || echo 0)
  [[ "$n" == 1 ]] && break
  sleep 0.05
done
sleep 0.5
as_pg_owner "$bin/pg_ctl" -D "$cl/data" -m immediate -w stop >/dev/null
wait $sync_pid
code=$?
CHECKS=$((CHECKS + 1))
[[ $code -ne 0 ]] || fail "the sync whose server died reported success"
expect_contains "$(cat "$WORK/sync1.err")" "PostgreSQL" "the failed sync names the database"
"$here/scripts/pg-test-cluster" restart "$cl"
expect_exit 0 -- "$E" --brain "$R" status
expect_contains "$OUT" "pages:            0" "nothing of the interrupted sync landed"
# The dead sync's lease does not hold the next one back (same host, process gone).
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_exit 0 -- "$E" --brain "$R" --json status
expect_json "$OUT" 'd["stats"]["pages"] if "stats" in d else d["pages"]' "$pages"
expect_exit 0 -- "$E" --brain "$R" check
expect_exit 0 -- "$E" --brain "$R" check --full

# Connections cut between a server's requests: reads are tried again on a new connection.
B=$R
start_server "$WORK/serve.log" --rate-limit 0
search() { curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$PORT/v1/search" \
  -H 'Content-Type: application/json' -d '{"query": "project notes", "limit": 5}'; }
expect_contains "$(search)" "200" "search before the cut"
psql "$PG" -qAtc "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()
  AND backend_type = 'client backend'" >/dev/null
for i in 1 2 3; do expect_contains "$(search)" "200" "search $i after the connections were cut"; done
stop_server
finish
