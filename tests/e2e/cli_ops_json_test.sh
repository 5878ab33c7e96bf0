#!/usr/bin/env bash
# End-to-end: every CLI command that has an operation prints, with --json,
# exactly the operation's JSON — the document `engram call` (and so MCP and
# HTTP) gives for the same arguments on the same brain. Timings are left out
# of the comparison.
source "$(dirname "$0")/lib.sh"
E=$ENGRAM

# same_json WHAT CLI_JSON CALL_JSON: equal once timings are dropped.
same_json() {
  CHECKS=$((CHECKS + 1))
  local diff
  diff=$(python3 - "$2" "$3" <<'PY'
import json, sys
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in ("seconds", "took_ms", "stage_ms")}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
try:
    a, b = (strip(json.loads(s)) for s in sys.argv[1:3])
except ValueError as e:
    print("not JSON:", e); sys.exit()
if a != b:
    print("cli:  " + json.dumps(a, ensure_ascii=False, sort_keys=True))
    print("call: " + json.dumps(b, ensure_ascii=False, sort_keys=True))
PY
)
  [[ -z "$diff" ]] || fail "$1: the CLI's --json differs from the operation's"$'\n'"$diff"
}

# cli_vs_call WHAT 'CLI ARGS...' OP 'JSON ARGS': runs both, compares stdout.
cli_vs_call() {
  local what=$1 op=$3 args=$4
  local -a cli; read -r -a cli <<<"$2"
  expect_exit 0 -- "$E" --brain "$B" --json "${cli[@]}"
  local from_cli=$OUT
  expect_exit 0 -- "$E" --brain "$B" call "$op" "$args"
  same_json "$what" "$from_cli" "$OUT"
}

# A folder brain with a few pages.
B="$WORK/brain"
expect_exit 0 -- "$E" init "$B"
mkdir -p "$B/people" "$B/notes"
printf -- '---\ntitle: 张三\ntype: person\ntags: [founder]\n---\nZhang San founded Northwind robots.\n\n---\n\n- **2026-04-07** | Met about the warehouse robots\n' > "$B/people/zhang-san.md"
printf -- '---\ntitle: Robot notes\ntags: [robots]\n---\nWarehouse robots and [[people/zhang-san]].\n' > "$B/notes/robots.md"
printf -- '---\ntitle: Secret diary\nvisibility: private\n---\nRobots at night.\n' > "$B/notes/diary.md"
cli_vs_call "import --dry-run" "import --dry-run $B" import "{\"dir\": \"$B\", \"dry_run\": true}"
expect_exit 0 -- "$E" --brain "$B" import

cli_vs_call "status" "status" status '{}'
cli_vs_call "get" "get people/zhang-san" get_page '{"slug": "people/zhang-san"}'
cli_vs_call "list" "list" list_pages '{}'
cli_vs_call "list --type --tag --limit" "list --type person --tag founder --limit 5" list_pages \
  '{"type": "person", "tag": "founder", "limit": 5}'
cli_vs_call "search" "search robots" search '{"query": "robots"}'
cli_vs_call "search --explain --limit --mode" "search robots --explain --limit 2 --mode keyword" search \
  '{"query": "robots", "explain": true, "limit": 2, "mode": "keyword"}'
cli_vs_call "search filters" "search robots --type person --tag founder --folder people/ --source default --since 2000-01-01 --until 2100-12-31" \
  search '{"query": "robots", "filters": {"type": ["person"], "tag": ["founder"], "folder": "people/", "source": "default", "since": "2000-01-01", "until": "2100-12-31"}}'
cli_vs_call "context" "context robots --max-chars 900 --limit 3" context '{"query": "robots", "max_chars": 900, "limit": 3}'
printf -- '- Prefers answers in Chinese\n' > "$WORK/MEMORY.md"
cli_vs_call "context --memory" "context robots --memory $WORK/MEMORY.md" context \
  '{"query": "robots", "memory": "- Prefers answers in Chinese\n", "memory_name": "MEMORY.md"}'

# Writes: the same write twice gives the same document when the brain is the
# same before each (put, then delete, then put again).
printf -- '---\ntitle: New page\n---\nFresh robots.\n' > "$WORK/new.md"
expect_exit 0 -- "$E" --brain "$B" --json put notes/new --file "$WORK/new.md"
put_cli=$OUT
expect_exit 0 -- "$E" --brain "$B" call delete_page '{"slug": "notes/new"}'
expect_exit 0 -- "$E" --brain "$B" call put_page "$(python3 -c 'import json,sys; print(json.dumps({"slug": "notes/new", "content": open(sys.argv[1]).read()}))' "$WORK/new.md")"
same_json "put" "$put_cli" "$OUT"
expect_exit 0 -- "$E" --brain "$B" --json delete notes/new
del_cli=$OUT
expect_exit 0 -- "$E" --brain "$B" call put_page "$(python3 -c 'import json,sys; print(json.dumps({"slug": "notes/new", "content": open(sys.argv[1]).read()}))' "$WORK/new.md")"
expect_exit 0 -- "$E" --brain "$B" call delete_page '{"slug": "notes/new"}'
same_json "delete" "$del_cli" "$OUT"

# Errors are the same document too.
expect_exit 1 -- "$E" --brain "$B" --json get notes/missing
err_cli=$OUT
expect_exit 1 -- "$E" --brain "$B" call get_page '{"slug": "notes/missing"}'
same_json "get error" "$err_cli" "$OUT"

# A git brain: sync (after the first, both find nothing new).
R="$WORK/repo"
mkdir -p "$R/people"
git -C "$R" init -q
git -C "$R" config user.email test@example.com
git -C "$R" config user.name test
printf -- '---\ntitle: Alice Chen\n---\nAlice builds warehouse robots.\n' > "$R/people/alice.md"
git -C "$R" add -A && git -C "$R" commit -qm one
expect_exit 0 -- "$E" init "$R"
expect_exit 0 -- "$E" --brain "$R" sync
B=$R
cli_vs_call "sync" "sync" sync '{}'
cli_vs_call "sync --full" "sync --full" sync '{"full": true}'
# A sync that applied the work tree makes the next one walk the tree: once
# first, so both compared syncs start from the same state.
expect_exit 0 -- "$E" --brain "$B" sync --worktree
cli_vs_call "sync --worktree" "sync --worktree" sync '{"worktree": true}'
cli_vs_call "status (git)" "status" status '{}'
finish
