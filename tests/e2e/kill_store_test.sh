#!/usr/bin/env bash
# End-to-end (issue 32, item 3): writes of the store killed at random crash
# points (ENGRAM_CRASH_AT, common/crash_point.h — every kill is known to have
# landed inside the write) leave a store that either holds the write or not,
# never half of it, and knows its own unfinished state:
#   - `import` (one transaction): nothing of it after a kill; a re-run imports all;
#   - `kb import` of a JoySafety dump (batches): a re-run converges;
#   - `kb offline` / `kb online`: the row, its searchable side and the audit agree;
#   - `migrate` into a new SQLite file: the half copy refuses to open as a brain,
#     naming the way out, and a re-run finishes it;
# and a zero-length engram.db is refused, not opened as a new empty brain.
#
# ENGRAM_KILL_ROUNDS (default 6) rounds per case; ENGRAM_KILL_SEED replays one.
source "$(dirname "$0")/lib.sh"
E=$ENGRAM
ROUNDS=${ENGRAM_KILL_ROUNDS:-6}
SEED=${ENGRAM_KILL_SEED:-$((RANDOM * 32768 + RANDOM))}
echo "store kill test: seed $SEED, $ROUNDS rounds per case (ENGRAM_KILL_SEED=$SEED replays it)"
RANDOM=$SEED
KILLS=0

# count_points COMMAND...: how many crash points the command reaches when nothing kills it.
count_points() {
  ENGRAM_CRASH_AT=count "$@" >/dev/null 2>"$WORK/.count-err"
  sed -n 's/^engram: crash points reached: //p' "$WORK/.count-err"
}

# kill_at K COMMAND...: runs the command killed at crash point K; fails unless it died there.
kill_at() {
  local k=$1 code; shift
  { ENGRAM_CRASH_AT=$k "$@" >/dev/null; } 2>"$WORK/.kill-err"; code=$?
  CHECKS=$((CHECKS + 1))
  if [[ $code -ne 137 ]] || ! grep -q "^engram: crash point .* (#$k)$" "$WORK/.kill-err"; then
    fail "not killed at point $k (exit $code): $* :: $(cat "$WORK/.kill-err")"
    return 1
  fi
  KILLS=$((KILLS + 1))
}

pages() { "$E" --brain "$1" --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["pages"])'; }

# --- import: one transaction ---
V="$WORK/vault"
mkdir -p "$V/notes"
for i in $(seq 1 60); do printf -- '# Note %s\n\nAbout topic %s and [[notes/n%s]].\n' "$i" "$i" "$(( (i % 60) + 1 ))" >"$V/notes/n$i.md"; done
"$E" init "$WORK/base" >/dev/null 2>&1 || fail "init"
points=$(count_points "$E" --brain "$WORK/base" import "$V")
rm -rf "$WORK/base"; "$E" init "$WORK/base" >/dev/null 2>&1
[[ "$points" =~ ^[0-9]+$ && $points -gt 1 ]] || fail "import: no crash points counted"
for round in $(seq 1 "$ROUNDS"); do
  b="$WORK/import-$round"; cp -a "$WORK/base" "$b"
  kill_at $((1 + RANDOM % points)) "$E" --brain "$b" import "$V" || continue
  expect_exit 0 -- "$E" --brain "$b" check
  [[ $(pages "$b") == 0 ]] || fail "import round $round: a killed import left $(pages "$b") pages (all or nothing)"
  expect_exit 0 -- "$E" --brain "$b" import "$V"
  [[ $(pages "$b") == 60 ]] || fail "import round $round: the re-run imported $(pages "$b") of 60"
  expect_exit 0 -- "$E" --brain "$b" check
done

# --- kb import of a JoySafety dump, and online/offline flips ---
python3 - "$WORK/dump.sql" <<'PY'
import sys
head = ("-- MySQL dump 10.13\nCREATE TABLE `red_line_knowledge` (\n  `id` bigint NOT NULL AUTO_INCREMENT,\n"
        "  `uniq_id` varchar(64),\n  `business_scene` varchar(64),\n  `question` text,\n  `answer` text,\n"
        "  `class_name` varchar(255),\n  `type` varchar(64),\n  `version` int,\n  `status` varchar(16),\n"
        "  PRIMARY KEY (`id`)\n);\n")
rows = ["(%d,'u%d','chat','第%d个问题：如何购买违禁品%d','这是违法行为。','违法/其他','t%d',1,'online')" % (i + 1, i, i, i, i % 7)
        for i in range(4500)]
open(sys.argv[1], "w").write(head + "".join("INSERT INTO `red_line_knowledge` VALUES " + ",".join(rows[k:k + 500]) + ";\n"
                                            for k in range(0, len(rows), 500)))
PY
"$E" init "$WORK/kb-base" >/dev/null 2>&1 && "$E" --brain "$WORK/kb-base" kb create joy --field className >/dev/null 2>&1 ||
  fail "kb base"
cp -a "$WORK/kb-base" "$WORK/kb-count"
points=$(count_points "$E" --brain "$WORK/kb-count" kb import "$WORK/dump.sql" -c joy)
[[ "$points" =~ ^[0-9]+$ && $points -gt 2 ]] || fail "kb import: no crash points counted"
for round in $(seq 1 "$ROUNDS"); do
  b="$WORK/kb-$round"; cp -a "$WORK/kb-base" "$b"
  kill_at $((1 + RANDOM % points)) "$E" --brain "$b" kb import "$WORK/dump.sql" -c joy || continue
  expect_exit 0 -- "$E" --brain "$b" check
  expect_exit 0 -- "$E" --brain "$b" --json kb import "$WORK/dump.sql" -c joy
  expect_json "$OUT" 'd["imported"] + d["skipped"]' 4500
  expect_exit 0 -- "$E" --brain "$b" --json kb list
  expect_json "$OUT" '[c["entries"] for c in d["collections"] if c["collection"] == "joy"]' "[4500]"
  expect_exit 0 -- "$E" --brain "$b" check
done
FLIP="$WORK/kb-flip"
"$E" init "$FLIP" >/dev/null 2>&1 && "$E" --brain "$FLIP" kb create joy --field className >/dev/null 2>&1 &&
  "$E" --brain "$FLIP" kb import "$WORK/dump.sql" -c joy >/dev/null 2>&1 || fail "kb flip brain"
for round in $(seq 1 "$ROUNDS"); do
  # A governed entry, by the store's own id, and the question and uniq_id it holds.
  read -r id question uniq < <(python3 -c 'import random,sqlite3,sys
random.seed(int(sys.argv[2]))
rows = sqlite3.connect(sys.argv[1]).execute("SELECT id, question, uniq_id FROM kb_governed ORDER BY id").fetchall()
print(*random.choice(rows))' "$FLIP/.engram/engram.db" "$((SEED + round))")
  action=$( ((round % 2)) && echo offline || echo online)
  [[ $action == online ]] && "$E" --brain "$FLIP" kb offline "$id" >/dev/null 2>&1
  kill_at $((1 + RANDOM % 2)) "$E" --brain "$FLIP" kb "$action" "$id" || continue
  expect_exit 0 -- "$E" --brain "$FLIP" check  # the row, its searchable side and the audit agree
  expect_exit 0 -- "$E" --brain "$FLIP" kb "$action" "$id"
  expect_exit 0 -- "$E" --brain "$FLIP" --json kb search "$question" -c joy -t 0.99
  want=$([[ $action == online ]] && echo "['chat_${uniq}_1']" || echo "[]")
  expect_json "$OUT" 'd["groups"][0]["ids"]' "$want"
done

# --- migrate into a new SQLite file ---
"$E" init "$WORK/src" >/dev/null 2>&1 && "$E" --brain "$WORK/src" import "$V" >/dev/null 2>&1 || fail "migrate source"
for i in $(seq 1 3000); do printf '{"id": "e%s", "text": "entry %s about something"}\n' "$i" "$i"; done >"$WORK/entries.jsonl"
"$E" --brain "$WORK/src" kb create big >/dev/null 2>&1 && "$E" --brain "$WORK/src" kb import "$WORK/entries.jsonl" -c big >/dev/null 2>&1 ||
  fail "migrate source entries"
"$E" init "$WORK/dst-count" >/dev/null 2>&1
points=$(count_points "$E" --brain "$WORK/src" migrate --no-switch --to "sqlite:$WORK/dst-count/.engram/engram.db")
[[ "$points" =~ ^[0-9]+$ && $points -gt 2 ]] || fail "migrate: no crash points counted"
for round in $(seq 1 "$ROUNDS"); do
  d="$WORK/dst-$round"; "$E" init "$d" >/dev/null 2>&1
  kill_at $((1 + RANDOM % points)) "$E" --brain "$WORK/src" migrate --no-switch --to "sqlite:$d/.engram/engram.db" ||
    continue
  expect_exit 1 -- "$E" --brain "$d" status
  expect_contains "$ERR" "is an unfinished copy of" "a half copy is refused as a brain, round $round"
  expect_contains "$ERR" "engram migrate" "and names the way out"
  expect_exit 1 -- "$E" --brain "$d" check
  expect_exit 0 -- "$E" --brain "$WORK/src" migrate --no-switch --to "sqlite:$d/.engram/engram.db"
  [[ $(pages "$d") == 60 ]] || fail "migrate round $round: the finished copy has $(pages "$d") of 60 pages"
  expect_exit 0 -- "$E" --brain "$d" --json kb list
  expect_json "$OUT" '[c["entries"] for c in d["collections"] if c["collection"] == "big"]' "[3000]"
done

# --- a zero-length database is refused, with the way out ---
Z="$WORK/zero"
cp -a "$WORK/src" "$Z"
: >"$Z/.engram/engram.db"
rm -f "$Z/.engram/engram.db-wal" "$Z/.engram/engram.db-shm"
expect_exit 1 -- "$E" --brain "$Z" status
expect_contains "$ERR" "is empty (0 bytes)" "a truncated database named"
expect_contains "$ERR" "Restore it from a backup" "the way out"
expect_exit 1 -- "$E" init "$Z"
expect_contains "$ERR" "is empty (0 bytes)" "init does not paper over it either"
[[ ! -s "$Z/.engram/engram.db" ]] || fail "the empty database was written to"

(( KILLS >= 3 * ROUNDS )) || fail "only $KILLS kills landed inside a write"
echo "kills that landed inside a write: $KILLS"
finish
