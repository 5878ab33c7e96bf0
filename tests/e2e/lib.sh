# Shared helpers for the end-to-end tests (sourced).
set -uo pipefail
ENGRAM=${1:?usage: $0 ENGRAM_BINARY}
ENGRAM=$(realpath "$ENGRAM")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/engram-e2e-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FAILURES=0
CHECKS=0

# On PostgreSQL (ENGRAM_E2E_STORE=postgres; the test cluster's URL in the file
# ENGRAM_TEST_PG_URL_FILE): each new brain the script inits gets a schema of
# its own in the cluster (`init --postgres`); everything else runs as written.
if [[ "${ENGRAM_E2E_STORE:-}" == postgres ]]; then
  PG_URL=$(cat "${ENGRAM_TEST_PG_URL_FILE:?ENGRAM_E2E_STORE=postgres needs ENGRAM_TEST_PG_URL_FILE}")
  cat >"$WORK/.engram-on-postgres" <<EOF
#!/usr/bin/env bash
args=("\$@"); i=0
while (( i < \${#args[@]} )); do
  case "\${args[i]}" in --brain) i=\$((i + 2)) ;; -*) i=\$((i + 1)) ;; *) break ;; esac
done
if (( i < \${#args[@]} )) && [[ "\${args[i]}" == init && " \$* " != *" --postgres "* ]]; then
  dir=.
  if (( i + 1 < \${#args[@]} )) && [[ "\${args[i + 1]}" != -* ]]; then dir=\${args[i + 1]}; fi
  if [[ ! -f "\$dir/.engram/config.toml" ]]; then
    schema="e\$\$_\${RANDOM}\${RANDOM}"
    psql "$PG_URL" -qAtc "CREATE SCHEMA \$schema" >/dev/null || exit 1
    exec "$ENGRAM" "\${args[@]:0:i+1}" --postgres "$PG_URL?options=-csearch_path%3D\$schema" "\${args[@]:i+1}"
  fi
fi
exec "$ENGRAM" "\$@"
EOF
  chmod +x "$WORK/.engram-on-postgres"
  ENGRAM="$WORK/.engram-on-postgres"
fi

fail() { echo "FAIL: $*" >&2; FAILURES=$((FAILURES + 1)); }

# as_pg_owner COMMAND...: runs a PostgreSQL server program as the owner of the
# test clusters (`nobody` under root, as scripts/pg-test-cluster runs them).
as_pg_owner() { if [[ $(id -u) -eq 0 ]]; then runuser -u nobody -- "$@"; else "$@"; fi; }

# brain_sql BRAIN SQL: raw SQL on a brain's database behind engram's back, as a
# buggy writer or a damaged disk would change it: SQLite with foreign keys off,
# PostgreSQL with foreign keys and triggers off (session_replication_role).
brain_sql() {
  local url
  url=$(sed -n 's/^url = "\(.*\)"$/\1/p' "$1/.engram/config.toml")
  if grep -q '^engine = "postgres"' "$1/.engram/config.toml"; then
    psql "$url" -qAt -v ON_ERROR_STOP=1 -c "SET session_replication_role = replica; $2" >/dev/null
  else
    python3 -c 'import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); db.executescript(sys.argv[2]); db.commit()' \
      "$1/.engram/engram.db" "$2"
  fi
}

# expect_exit CODE -- command...   (stdout/stderr kept in $OUT / $ERR)
expect_exit() {
  local want=$1; shift; [[ $1 == "--" ]] && shift
  CHECKS=$((CHECKS + 1))
  OUT=$("$@" 2>"$WORK/.stderr"); local got=$?
  ERR=$(cat "$WORK/.stderr")
  if [[ $got -ne $want ]]; then fail "exit $got (want $want): $*"$'\n'"stdout: $OUT"$'\n'"stderr: $ERR"; fi
}

expect_contains() {  # expect_contains HAYSTACK NEEDLE WHAT
  CHECKS=$((CHECKS + 1))
  [[ "$1" == *"$2"* ]] || fail "$3: expected to contain '$2', got: $1"
}

expect_not_contains() {
  CHECKS=$((CHECKS + 1))
  [[ "$1" != *"$2"* ]] || fail "$3: expected not to contain '$2'"
}

# json_get JSON PYTHON_EXPR  e.g. json_get "$OUT" 'd["results"][0]["slug"]'
json_get() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(eval(sys.argv[1]))' "$2" <<<"$1"; }

expect_json() {  # expect_json JSON EXPR WANT
  CHECKS=$((CHECKS + 1))
  local got; got=$(json_get "$1" "$2" 2>&1) || { fail "invalid JSON for $2: $1"; return; }
  [[ "$got" == "$3" ]] || fail "$2: got '$got', want '$3'"
}

# start_server LOG [serve options…]: `engram serve` on the brain $B at a free
# port; sets PORT and SERVER_PID. stop_server ends it.
start_server() {
  local log=$1; shift
  "$ENGRAM" --brain "$B" serve --port 0 "$@" 2>"$log" &
  SERVER_PID=$!
  PORT=""
  for _ in $(seq 1 100); do
    PORT=$(sed -n 's|.*on http://[^:]*:\([0-9]*\).*|\1|p' "$log" | head -1)
    [[ -n "$PORT" ]] && break
    sleep 0.1
  done
  [[ -n "$PORT" ]] || fail "server did not start: $(cat "$log")"
}
stop_server() { kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; }

finish() {
  echo "$((CHECKS - FAILURES)) passed, $FAILURES failed"
  [[ $FAILURES -eq 0 ]]
}
