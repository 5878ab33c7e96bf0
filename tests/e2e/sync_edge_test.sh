#!/usr/bin/env bash
# End-to-end: sync on awkward repositories and under crashes.
source "$(dirname "$0")/lib.sh"
E=$ENGRAM
# Pages in the crash-safety vault: 1000 by default; the sanitizer build passes fewer, as every full sync
# of it runs several times and ASan makes each one ~4x slower (the crash points scale with it).
PAGES=${2:-1000}
newrepo() {
  mkdir -p "$1" && git -C "$1" init -q && git -C "$1" config user.email t@example.com && git -C "$1" config user.name t
}
commit() { git -C "$1" add -A && git -C "$1" commit -qm "$2"; }
slugs() { "$E" --brain "$1" --json search "$2" | python3 -c 'import json,sys; print(" ".join(r["slug"] for r in json.load(sys.stdin)["results"]))'; }

# Empty repository (no commit yet): a clear error.
R="$WORK/empty"; newrepo "$R"; "$E" init "$R" > /dev/null
expect_exit 1 -- "$E" --brain "$R" sync
expect_contains "$ERR" "no commit yet" "unborn HEAD"

# Awkward files: CRLF, BOM, NUL bytes, names with spaces, quotes and Chinese.
R="$WORK/awkward"; newrepo "$R"; mkdir -p "$R/notes"
printf 'crlf line about kiwis\r\nsecond line\r\n' > "$R/notes/crlf.md"
printf '\xef\xbb\xbf---\ntitle: BOM page\n---\nkiwis with a byte-order mark\n' > "$R/notes/bom.md"
printf 'nul\0byte kiwis' > "$R/notes/nul.md"
printf 'spaced kiwis\n' > "$R/notes/with space.md"
printf 'quoted kiwis\n' > "$R/notes/it's \"quoted\".md"
printf '中文文件名 kiwis\n' > "$R/notes/奇异果.md"
commit "$R" awkward
"$E" init "$R" > /dev/null
expect_exit 1 -- "$E" --brain "$R" --json sync
expect_json "$OUT" 'd["added"]' "5"
expect_json "$OUT" '[f["path"] for f in d["failed"]]' "['notes/nul.md']"
expect_contains "$(json_get "$OUT" 'd["failed"][0]["reason"]')" "NUL" "NUL bytes named"
expect_exit 0 -- "$E" --brain "$R" --json get notes/bom
expect_json "$OUT" 'd["title"]' "BOM page"
hits=$(slugs "$R" kiwis)
for s in notes/crlf notes/with-space notes/its-quoted notes/奇异果; do expect_contains "$hits" "$s" "awkward name $s"; done

# Case-only rename keeps the page.
git -C "$R" mv notes/crlf.md notes/CRLF.md && commit "$R" case
expect_exit 1 -- "$E" --brain "$R" --json sync   # nul.md is still failing (retried)
expect_json "$OUT" '(d["renamed"], d["deleted"])' "(1, 0)"
expect_exit 0 -- "$E" --brain "$R" --json get notes/crlf
expect_json "$OUT" 'd["path"]' "notes/CRLF.md"

# Regression: a failed file that is then deleted leaves no failure to retry.
git -C "$R" rm -q notes/nul.md && commit "$R" drop-nul
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_exit 0 -- "$E" --brain "$R" --json status
expect_json "$OUT" 'd["sync_failures"]' "[]"

# Detached HEAD syncs the checked-out commit.
printf 'later kiwi page\n' > "$R/notes/later.md" && commit "$R" later
git -C "$R" checkout -q --detach HEAD~1
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" 'd["to"]' "$(git -C "$R" rev-parse HEAD)"
expect_exit 1 -- "$E" --brain "$R" get notes/later

# Submodules and symlinks pointing outside are skipped and said.
S="$WORK/sub"; newrepo "$S"; printf 'inside the submodule\n' > "$S/x.md"; commit "$S" sub
R="$WORK/withsub"; newrepo "$R"; printf 'top page\n' > "$R/top.md"
git -C "$R" -c protocol.file.allow=always submodule add -q "$S" vendored 2>/dev/null
ln -s /etc/passwd "$R/outside.md"
commit "$R" with-sub
"$E" init "$R" > /dev/null
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" 'sorted(s["path"] for s in d["skipped"])' "['outside.md', 'vendored']"
expect_json "$OUT" 'd["added"]' "1"

# A shallow clone syncs.
R2="$WORK/shallow"
git clone -q --depth 1 "file://$R" "$R2" 2>/dev/null
"$E" init "$R2" > /dev/null
expect_exit 0 -- "$E" --brain "$R2" --json sync
expect_json "$OUT" 'd["added"]' "1"

# Crash safety. A fault point aborts the process after N files of a sync (before it commits), and
# SIGKILL lands at random moments; every time, the next sync converges and check passes.
V="$WORK/big"; newrepo "$V"
python3 "$(dirname "$0")/../../bench/gen_vault.py" "$V" "$PAGES"
commit "$V" big
"$E" init "$V" > /dev/null
for n in 1 $((PAGES / 4)) $((PAGES - 1)); do
  expect_exit 134 -- env ENGRAM_FAULT_ABORT_AFTER_FILES=$n "$E" --brain "$V" sync --full --quiet
  expect_exit 0 -- "$E" --brain "$V" sync --quiet
  expect_exit 0 -- "$E" --brain "$V" check
done
RANDOM=7   # the same "random" moments on every run of the test
for run in 1 2 3 4 5 6; do
  printf 'change %s\n' "$run" >> "$V/notes/page-00011.md"
  git -C "$V" mv "people/page-$(printf %05d $(( (run - 1) * 6 ))).md" "people/moved-$run.md"
  commit "$V" "crash run $run"
  "$E" --brain "$V" sync --full --quiet &
  pid=$!
  sleep "0.$(( RANDOM % 60 + 1 ))"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  expect_exit 0 -- "$E" --brain "$V" sync --quiet
  expect_exit 0 -- "$E" --brain "$V" check
done
expect_exit 0 -- "$E" --brain "$V" --json get people/moved-6

# --watch: new commits and (with --worktree) file changes are synced; SIGINT ends it cleanly.
W="$WORK/watched"; newrepo "$W"; printf 'first page\n' > "$W/a.md"; commit "$W" first
"$E" init "$W" > /dev/null
"$E" --brain "$W" --json sync --watch --interval 0.2 > "$WORK/watch.jsonl" 2> "$WORK/watch.err" &
watcher=$!
sleep 0.8
printf 'committed okapi notes\n' > "$W/b.md"; commit "$W" second
for i in $(seq 1 40); do [[ "$(slugs "$W" okapi)" == *"b"* ]] && break; sleep 0.1; done
expect_contains "$(slugs "$W" okapi)" "b" "watch synced a new commit"
kill -INT "$watcher"; wait "$watcher"; rc=$?
CHECKS=$((CHECKS + 1)); [[ $rc -eq 0 ]] || fail "watch exited $rc on SIGINT"
expect_contains "$(cat "$WORK/watch.jsonl")" '"anchor"' "watch prints one JSON document per sync"
"$E" --brain "$W" sync --watch --worktree --interval 0.2 --quiet &
watcher=$!
sleep 0.8
printf 'uncommitted tapir notes\n' > "$W/c.md"
for i in $(seq 1 40); do [[ "$(slugs "$W" tapir)" == *"c"* ]] && break; sleep 0.1; done
expect_contains "$(slugs "$W" tapir)" "c" "watch --worktree synced a file change"
kill -TERM "$watcher"; wait "$watcher"; rc=$?
CHECKS=$((CHECKS + 1)); [[ $rc -eq 0 ]] || fail "watch exited $rc on SIGTERM"

# Regression: a modified file whose blob is missing from the object store is
# a named failure, never a deletion; the anchor stays until it can be read.
R="$WORK/damaged"; newrepo "$R"; printf 'orig quokka page\n' > "$R/q.md"; printf 'other page\n' > "$R/o.md"; commit "$R" first
"$E" init "$R" > /dev/null
expect_exit 0 -- "$E" --brain "$R" sync --quiet
first=$(git -C "$R" rev-parse HEAD)
printf 'changed quokka page\n' > "$R/q.md"; printf 'other page edited\n' > "$R/o.md"; commit "$R" second
blob=$(git -C "$R" rev-parse HEAD:q.md)
mv "$R/.git/objects/${blob:0:2}/${blob:2}" "$WORK/saved-blob"
expect_exit 1 -- "$E" --brain "$R" --json sync
expect_json "$OUT" '[f["path"] for f in d["failed"]]' "['q.md']"
expect_json "$OUT" '(d["deleted"], d["updated"])' "(0, 1)"
expect_contains "$(json_get "$OUT" 'd["failed"][0]["reason"]')" "missing" "missing blob named"
expect_exit 0 -- "$E" --brain "$R" --json get q
expect_contains "$OUT" "orig quokka" "the page is kept while its blob is missing"
expect_exit 0 -- "$E" --brain "$R" --json status
expect_json "$OUT" 'd["synced_commit"]' "$first"
expect_exit 1 -- "$E" --brain "$R" --json sync   # still unreadable: failed again, not deleted
expect_json "$OUT" '(d["deleted"], len(d["failed"]))' "(0, 1)"
mkdir -p "$R/.git/objects/${blob:0:2}"; mv "$WORK/saved-blob" "$R/.git/objects/${blob:0:2}/${blob:2}"
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" 'd["updated"]' "1"
expect_exit 0 -- "$E" --brain "$R" --json get q
expect_contains "$OUT" "changed quokka" "the page follows once the blob is back"
expect_exit 0 -- "$E" --brain "$R" check

# Readers do not wait for a writer.
"$E" --brain "$V" sync --full --quiet &
writer=$!
sleep 0.1
start=$(date +%s%N)
expect_exit 0 -- "$E" --brain "$V" search "robot warehouse"
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
CHECKS=$((CHECKS + 1)); (( elapsed < 1500 )) || fail "a search waited ${elapsed} ms for the writer"
wait "$writer"
finish
