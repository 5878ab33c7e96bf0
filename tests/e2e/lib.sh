# Shared helpers for the end-to-end tests (sourced).
set -uo pipefail
ENGRAM=${1:?usage: $0 ENGRAM_BINARY}
ENGRAM=$(realpath "$ENGRAM")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/engram-e2e-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FAILURES=0
CHECKS=0

fail() { echo "FAIL: $*" >&2; FAILURES=$((FAILURES + 1)); }

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
