#!/usr/bin/env bash
# End-to-end (issue 13, items 2 and 3): one file never aborts an import or a
# sync, every file that is not a page is visible with its reason (and a
# quarantine's rule and line, never the content), a brain behind HEAD is
# reported, and no --json output aborts on invalid UTF-8.
source "$(dirname "$0")/lib.sh"
E=$ENGRAM
newrepo() {
  mkdir -p "$1" && git -C "$1" init -q && git -C "$1" config user.email t@example.com && git -C "$1" config user.name t
}
commit() { git -C "$1" add -A && git -C "$1" commit -qm "$2"; }
is_json() { python3 -c 'import json,sys; json.loads(sys.stdin.buffer.read().decode("utf-8"))' <<<"$1"; }

# YAML escapes of the Obsidian Help vault's Romanian and Bengali pages ("\_" U+00A0, "\N" U+0085):
# the import once aborted (exit 134, 0 pages). Every page is indexed and reads back as valid JSON.
B="$WORK/vault"
expect_exit 0 -- "$E" init "$B"
mkdir -p "$B/ro" "$B/Projects"
printf -- '---\ntitle: "Ghid\\_de\\_utilizare"\naliases: ["a\\Nb"]\n---\nPagina zebra.\n' > "$B/ro/ghid.md"
printf -- '---\ntitle: "x\\Ly\\Pz\\x85\\u00A0"\n---\nBengali zebra.\n' > "$B/ro/bn.md"
printf 'plain zebra note\n' > "$B/ro/plain.md"
printf 'about this brain\n' > "$B/README.md"
printf 'an ordinary note about projects\n' > "$B/Projects/README.md"
printf '# Servers\n\nthe db\npassword = "Sup3rS3cr3t!x9"\n' > "$B/ro/servers.md"
printf 'caf\xe9\n' > "$B/ro/latin1.md"
printf 'will throw\n' > "$B/ro/boom.md"
expect_exit 0 -- env ENGRAM_FAULT_THROW_PREPARING=ro/boom.md "$E" --brain "$B" import
expect_contains "$OUT" "4 added" "every good page lands next to a throwing one"
expect_contains "$OUT" "skipped ro/boom.md: could not be prepared" "the throwing file fails alone"
expect_contains "$OUT" "quarantined ro/servers.md (rule secret_assignment, line 4)" "quarantine names rule and line"
expect_contains "$OUT" "skipped by name (scope.skip_files) 1" "README.md at the root is counted"
expect_contains "$OUT" "quarantined 1" "quarantined files are counted"
expect_not_contains "$OUT" "Sup3rS3cr3t" "no content in the summary"
expect_exit 0 -- "$E" --brain "$B" --json get ro/ghid
expect_json "$OUT" 'd["title"]' $'Ghid\u00a0de\u00a0utilizare'
expect_json "$OUT" '"a\x85b" in d["aliases"]' "True"
expect_exit 0 -- "$E" --brain "$B" --json get ro/bn
expect_json "$OUT" 'd["title"]' $'x\u2028y\u2029z\u0085\u00a0'
expect_exit 0 -- "$E" --brain "$B" --json get Projects/README

# status lists failed and quarantined files with reason, rule and line; never content.
expect_exit 0 -- "$E" --brain "$B" status
expect_contains "$OUT" "ro/boom.md: could not be prepared" "status: failed file"
expect_contains "$OUT" "ro/latin1.md" "status: unreadable file"
expect_contains "$OUT" "ro/servers.md: rule secret_assignment, line 4" "status: quarantined file"
expect_not_contains "$OUT" "Sup3rS3cr3t" "status shows no content"
expect_exit 0 -- "$E" --brain "$B" --json status
expect_json "$OUT" '[(q["path"], q["rule"], q["line"]) for q in d["quarantined"]]' "[('ro/servers.md', 'secret_assignment', 4)]"
expect_exit 0 -- "$E" --brain "$B" --json audit
expect_json "$OUT" 'd["audit"][0]["line"]' "4"
# get says why a file is not a page, and how to index it.
expect_exit 1 -- "$E" --brain "$B" get ro/servers
expect_contains "$ERR" "rule secret_assignment, line 4" "get: quarantined"
expect_contains "$ERR" "quarantine.allow" "get: how to allow it"
expect_exit 1 -- "$E" --brain "$B" get ro/boom
expect_contains "$ERR" "could not be indexed (could not be prepared" "get: failed"
# The file fixed, the next import indexes it and forgets the failure.
expect_exit 0 -- "$E" --brain "$B" import
expect_exit 0 -- "$E" --brain "$B" --json status
expect_json "$OUT" '[f["path"] for f in d["sync_failures"]]' "['ro/latin1.md']"

# Git: the same through sync; a brain behind HEAD is not "consistent", and status shows the last sync's error.
R="$WORK/repo"; newrepo "$R"
printf -- '---\ntitle: "a\\_b"\n---\nbody one\n' > "$R/a.md"
printf 'second\n' > "$R/b.md"
printf 'x\npassword = "Sup3rS3cr3t!x9"\n' > "$R/pw.md"
printf 'root readme\n' > "$R/README.md"
commit "$R" one
expect_exit 0 -- "$E" init "$R"
expect_exit 1 -- env ENGRAM_FAULT_THROW_PREPARING=b.md "$E" --brain "$R" sync
expect_contains "$OUT" "1 added" "sync: the rest lands"
expect_contains "$OUT" "failed b.md: could not be prepared" "sync: the throwing file fails alone"
expect_contains "$OUT" "quarantined pw.md (rule secret_assignment, line 2)" "sync: quarantine line"
expect_contains "$OUT" "skipped by name (scope.skip_files) 1" "sync: skip counts"
expect_exit 0 -- "$E" --brain "$R" sync
expect_exit 0 -- "$E" --brain "$R" check
printf 'third\n' > "$R/c.md"; commit "$R" two
expect_exit 1 -- "$E" --brain "$R" check
expect_contains "$OUT" "is not HEAD" "check reports a brain behind HEAD"
expect_contains "$OUT" "inconsistent" "check is not 'consistent' behind HEAD"
cp "$R/.git/HEAD" "$WORK/HEAD.bak"
printf 'ref: refs/heads/no-such-branch\n' > "$R/.git/HEAD"
expect_exit 1 -- "$E" --brain "$R" sync --quiet
expect_exit 0 -- "$E" --brain "$R" status
expect_contains "$OUT" "last sync failed: " "status shows the last sync's error"
cp "$WORK/HEAD.bak" "$R/.git/HEAD"
expect_exit 0 -- "$E" --brain "$R" sync --quiet
expect_exit 0 -- "$E" --brain "$R" --json status
expect_json "$OUT" 'd["last_sync_error"]' "None"
expect_exit 0 -- "$E" --brain "$R" check

# --json never aborts on invalid UTF-8: in --brain, in every argument, in file names.
BAD=$'\xff\xfe'
mkdir -p "$B/bad$BAD"; printf 'zebra in a badly named file\n' > "$B/bad$BAD/n$BAD.md"
printf 'bad\n' > "$WORK/in$BAD.md"
runs=(
  "status" "check" "audit" "import" "sync" "list" "list --type $BAD" "list --tag $BAD" "get $BAD" "get a$BAD/b"
  "delete $BAD" "search zebra" "search $BAD" "search zebra --folder $BAD --mode keyword" "context zebra"
  "context $BAD" "hook status" "put x$BAD --file $WORK/in$BAD.md" "put ok --file $WORK/in$BAD.md"
  "import $WORK/no$BAD" "embed" "model list" "token list" "token create --name $BAD" "token revoke $BAD"
  "call get_page {\"slug\":\"$BAD\"}" "call search {\"query\":\"$BAD\"}" "call get_page {\"slug\":$BAD}"
)
for brain in "$B" "$WORK/x$BAD"; do
  for cmd in "${runs[@]}"; do
    # shellcheck disable=SC2086
    OUT=$("$E" --json --brain "$brain" $cmd 2>/dev/null); code=$?
    CHECKS=$((CHECKS + 1))
    [[ $code -ne 134 && $code -lt 128 ]] || fail "--json $cmd (brain $brain) crashed with $code"
    CHECKS=$((CHECKS + 1))
    is_json "$OUT" || fail "--json $cmd (brain $brain, exit $code) printed no valid JSON: $OUT"
  done
done
finish
