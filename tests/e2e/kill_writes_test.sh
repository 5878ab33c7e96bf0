#!/usr/bin/env bash
# End-to-end (issue 32, item 3): writes of Markdown files killed at random
# points converge. Each round kills `entity merge`, `entity split` (plain and
# git brains) or a single-file write (put, link, facts --add on a git brain)
# with SIGKILL at a crash point picked at random among the points that write
# really reaches (ENGRAM_CRASH_AT, common/crash_point.h: the process names the
# point it died at, so every kill is known to have landed inside the write).
# After each kill `engram check` must name the interrupted write; then
# re-running the command (odd rounds) or `engram check --repair` (even rounds)
# must finish it, and every file must hold exactly the bytes an uninterrupted
# run leaves — no second "Merged from" section, no temporary file, nothing
# uncommitted on a git brain — and check must pass.
#
# ENGRAM_KILL_ROUNDS (default 10) rounds per operation and brain kind;
# ENGRAM_KILL_SEED fixes the random points (printed, to replay a failure).
source "$(dirname "$0")/lib.sh"
E=$ENGRAM
ROUNDS=${ENGRAM_KILL_ROUNDS:-10}
SEED=${ENGRAM_KILL_SEED:-$((RANDOM * 32768 + RANDOM))}
echo "kill test: seed $SEED, $ROUNDS rounds per case (ENGRAM_KILL_SEED=$SEED replays it)"
RANDOM=$SEED
KILLS=0

# make_brain DIR KIND: a brain whose pages link to the entities merged and split.
make_brain() {
  local b=$1 kind=$2 i
  mkdir -p "$b/people" "$b/notes" "$b/companies"
  printf -- '---\ntitle: Robert Ames\ntype: person\naliases: [Rob]\nrole: CFO\n---\n# Robert Ames\n\nRuns the books at [[companies/acme]].\n\n<!-- timeline -->\n\n- **2021-04-01** | Joined [[companies/acme]]\n' \
    >"$b/people/robert.md"
  printf -- '---\ntitle: Bob Ames\ntype: person\n---\n# Bob Ames\n\nKnown as Bob. See [[people/robert]].\n' \
    >"$b/people/bob.md"
  printf -- '---\ntitle: Li Wei\ntype: person\naliases: [Wei, "Li Wei (Tencent)"]\n---\n# Li Wei\n\nCTO of Acme.\n\n## At Tencent\n\nLeads payments.\n\n## Hobbies\n\nGo.\n' \
    >"$b/people/li-wei.md"
  printf -- '---\ntitle: Acme\ntype: company\n---\nAcme, founded by [[people/robert|Rob]].\n' >"$b/companies/acme.md"
  for i in $(seq 1 24); do
    printf -- '# Note %s\n\nMet [[people/robert]] and [[robert|Robert]] about %s; also [[people/li-wei|Li Wei (Tencent)]] and [[people/li-wei]].\n' \
      "$i" "$i" >"$b/notes/n$i.md"
  done
  printf -- '---\nvisibility: private\n---\nDinner with [[people/robert]].\n' >"$b/notes/dinner.md"
  if [[ $kind == git ]]; then
    git -C "$b" init -q && git -C "$b" config user.email t@t && git -C "$b" config user.name t
    git -C "$b" add -A && git -C "$b" commit -qm init
    "$E" init "$b" >/dev/null 2>&1 && "$E" --brain "$b" sync >/dev/null 2>&1 || fail "making the $kind brain"
  else
    "$E" init "$b" >/dev/null 2>&1 && "$E" --brain "$b" import "$b" >/dev/null 2>&1 || fail "making the $kind brain"
  fi
}

# snapshot DIR: every file of the brain but engram's and git's own, with its hash; on a git brain
# also the committed tree (blobs by path) and whatever is not committed.
snapshot() {
  (cd "$1" && find . -path ./.engram -prune -o -path ./.git -prune -o -type f -print | LC_ALL=C sort | xargs -d '\n' sha256sum)
  if [[ -d "$1/.git" ]]; then
    git -C "$1" ls-tree -r HEAD
    git -C "$1" status --porcelain --untracked-files=all
  fi
}

# run_case NAME KIND COMMAND...: the command (engram arguments after --brain DIR) killed at random points.
run_case() {
  local name=$1 kind=$2; shift 2
  local base="$WORK/$name-$kind" ref="$WORK/$name-$kind-ref" b="$WORK/$name-$kind-run"
  make_brain "$base" "$kind"
  [[ -n "${SETUP:-}" ]] && eval "$SETUP"
  rm -rf "$ref" && cp -a "$base" "$ref"
  "$E" --brain "$ref" "$@" >/dev/null 2>"$WORK/.ref-err" || { fail "$name ($kind) uninterrupted: $(cat "$WORK/.ref-err")"; return; }
  local want; want=$(snapshot "$ref")
  rm -rf "$b" && cp -a "$base" "$b"
  ENGRAM_CRASH_AT=count "$E" --brain "$b" "$@" >/dev/null 2>"$WORK/.count-err"
  local points; points=$(sed -n 's/^engram: crash points reached: //p' "$WORK/.count-err")
  [[ "$points" =~ ^[0-9]+$ && $points -gt 0 ]] || { fail "$name ($kind): no crash points counted: $(cat "$WORK/.count-err")"; return; }
  local round k code
  for round in $(seq 1 "$ROUNDS"); do
    k=$((1 + RANDOM % points))
    rm -rf "$b" && cp -a "$base" "$b"
    # In a group, so that the shell's own "Killed" notice lands in the file too.
    { ENGRAM_CRASH_AT=$k "$E" --brain "$b" "$@" >/dev/null; } 2>"$WORK/.kill-err"; code=$?
    CHECKS=$((CHECKS + 1))
    if [[ $code -ne 137 ]] || ! grep -q "^engram: crash point .* (#$k)$" "$WORK/.kill-err"; then
      fail "$name ($kind) round $round: not killed at point $k of $points (exit $code): $(cat "$WORK/.kill-err")"
      continue
    fi
    KILLS=$((KILLS + 1))
    local at; at=$(sed -n 's/^engram: crash point \(.*\) (#.*$/\1/p' "$WORK/.kill-err")
    expect_exit 1 -- "$E" --brain "$b" check
    expect_contains "$OUT$ERR" "an interrupted write: $name" "$name ($kind) killed at '$at' (#$k): check names it"
    if (( round % 2 == 1 )); then
      expect_exit 0 -- "$E" --brain "$b" "$@"
    else
      expect_exit 0 -- "$E" --brain "$b" check --repair
    fi
    CHECKS=$((CHECKS + 1))
    local got; got=$(snapshot "$b")
    if [[ "$got" != "$want" ]]; then
      fail "$name ($kind) killed at '$at' (#$k of $points), finished by $( ((round % 2)) && echo a re-run || echo check --repair): files differ from an uninterrupted run:"$'\n'"$(diff <(echo "$want") <(echo "$got") | head -20)"
    fi
    expect_exit 0 -- "$E" --brain "$b" check
  done
}

for kind in plain git; do
  run_case merge "$kind" entity merge people/robert people/bob
  run_case split "$kind" entity split people/li-wei people/li-wei-tencent --name "Li Wei (Tencent)" --section "At Tencent"
done
# Single-file writes on a git brain: engram's own half-done write is never blamed on the user.
printf -- '# Fresh\n\nA new page about [[people/bob]].\n' >"$WORK/fresh.md"
run_case put git put notes/fresh --file "$WORK/fresh.md"
run_case link git link people/bob companies/acme --type works_at
run_case fact git facts people/bob --add "role: CTO" --since 2024-05

# A file the person changed after the kill: the interrupted write stops at it
# (check --repair fails and names it) and `check --repair --discard` keeps the
# person's version, finishes the other files and closes the journal.
for kind in plain git; do
  b="$WORK/conflict-$kind"
  rm -rf "$b" && make_brain "$b" "$kind"
  { ENGRAM_CRASH_AT=1 "$E" --brain "$b" entity merge people/robert people/bob >/dev/null; } 2>/dev/null
  printf -- '\nMy own line.\n' >>"$b/notes/n24.md"
  mine=$(cat "$b/notes/n24.md")
  expect_exit 1 -- "$E" --brain "$b" check --repair
  expect_contains "$ERR" "'notes/n24.md' was changed since this merge planned it" "conflict ($kind): --repair names the changed file"
  expect_contains "$ERR" "check --repair --discard" "conflict ($kind): --repair tells how to keep it"
  expect_exit 0 -- "$E" --brain "$b" check --repair --discard
  CHECKS=$((CHECKS + 1))
  [[ "$(cat "$b/notes/n24.md")" == "$mine" ]] || fail "conflict ($kind): --discard did not keep the person's version"
  CHECKS=$((CHECKS + 1))
  grep -q 'type: redirect' "$b/people/robert.md" && grep -q '\[\[bob' "$b/notes/n1.md" ||
    fail "conflict ($kind): --discard did not finish the merge's other files"
  expect_exit 0 -- "$E" --brain "$b" check
  expect_exit 0 -- "$E" --brain "$b" put notes/after --file "$WORK/fresh.md"
done

(( KILLS >= 5 * ROUNDS )) || fail "only $KILLS kills landed inside a write"
echo "kills that landed inside a write: $KILLS"
finish
