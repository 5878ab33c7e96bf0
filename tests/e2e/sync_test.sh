#!/usr/bin/env bash
# End-to-end: `engram sync` on real git repositories.
source "$(dirname "$0")/lib.sh"
E=$ENGRAM
R="$WORK/repo"
mkdir -p "$R/people" "$R/notes"
git -C "$R" init -q
git -C "$R" config user.email test@example.com
git -C "$R" config user.name test
commit() { git -C "$R" add -A && git -C "$R" commit -qm "$1"; }
slugs() { "$E" --brain "$R" --json search "$1" | python3 -c 'import json,sys; print(" ".join(r["slug"] for r in json.load(sys.stdin)["results"]))'; }

printf -- '---\ntitle: Alice Chen\n---\nAlice builds warehouse robots.\n' > "$R/people/alice.md"
printf 'Bob invests in [[people/alice]] and robots.\n' > "$R/people/bob.md"
printf '# About this vault\nrobots everywhere\n' > "$R/README.md"
commit one

# Not a repository: a clear error that suggests import.
mkdir -p "$WORK/plain" && expect_exit 0 -- "$E" init "$WORK/plain"
expect_exit 1 -- "$E" --brain "$WORK/plain" sync
expect_contains "$ERR" "engram import" "sync outside git"

expect_exit 0 -- "$E" init "$R"
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" 'd["mode"]' "full walk (first sync)"
expect_json "$OUT" '(d["added"], d["deleted"])' "(2, 0)"
expect_contains "$(slugs robots)" "people/alice" "first sync indexed"
expect_not_contains "$(slugs robots)" "readme" "README.md is skipped by default"

# Rename keeps identity, delete removes everything, a bad file is named and does not block.
before=$("$E" --brain "$R" --json get people/alice | python3 -c 'import json,sys; print(json.load(sys.stdin)["created_at"])')
git -C "$R" mv people/alice.md people/alice-chen.md
git -C "$R" rm -q people/bob.md
printf 'caf\xe9 robots\n' > "$R/notes/latin1.md"
printf 'Drones and robots in Suzhou.\n' > "$R/notes/drones.md"
printf 'link' > "$R/notes/target.txt" && ln -s target.txt "$R/notes/link.md"
commit two
expect_exit 1 -- "$E" --brain "$R" --json sync
expect_json "$OUT" 'd["mode"]' "diff"
expect_json "$OUT" '(d["added"], d["renamed"], d["deleted"])' "(1, 1, 1)"
expect_json "$OUT" '[f["path"] for f in d["failed"]]' "['notes/latin1.md']"
expect_json "$OUT" '[s["path"] for s in d["skipped"]]' "['notes/link.md']"
expect_exit 0 -- "$E" --brain "$R" --json get people/alice-chen
expect_json "$OUT" 'd["created_at"]' "$before"
expect_exit 1 -- "$E" --brain "$R" get people/alice
expect_exit 1 -- "$E" --brain "$R" get people/bob
expect_not_contains "$(slugs invests)" "people/bob" "deleted page left no search hit"
expect_exit 0 -- "$E" --brain "$R" --json status
expect_json "$OUT" '[f["path"] for f in d["sync_failures"]]' "['notes/latin1.md']"
expect_json "$OUT" 'd["synced_commit"]' "$(git -C "$R" rev-parse HEAD)"

# The failed file is retried once fixed.
printf 'Café notes about robots.\n' > "$R/notes/latin1.md"
commit three
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" '(d["added"], len(d["failed"]))' "(1, 0)"
expect_exit 0 -- "$E" --brain "$R" --json status
expect_json "$OUT" 'd["sync_failures"]' "[]"

# Nothing new: up to date. Rewritten history: said, and converges.
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" 'd["mode"]' "up to date"
printf 'Amended drones page.\n' > "$R/notes/drones.md"
git -C "$R" commit -qa --amend -m "three amended"
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_contains "$(json_get "$OUT" 'd["mode"]')" "history was rewritten" "rewrite detected"
expect_contains "$(slugs amended)" "notes/drones" "rewritten content indexed"

# A file moved into an excluded folder leaves the brain.
mkdir -p "$R/.archive" && git -C "$R" mv notes/drones.md .archive/drones.md && commit four
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" 'd["deleted"]' "1"
expect_exit 1 -- "$E" --brain "$R" get notes/drones

# --worktree applies uncommitted changes; the next plain sync converges back to HEAD.
printf 'Uncommitted zebra notes.\n' > "$R/notes/zebra.md"
expect_exit 0 -- "$E" --brain "$R" --json sync --worktree
expect_json "$OUT" 'd["worktree"]' "True"
expect_contains "$(slugs zebra)" "notes/zebra" "worktree change indexed"
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_contains "$(json_get "$OUT" 'd["mode"]')" "full walk" "dirty anchor walks"
expect_not_contains "$(slugs zebra)" "notes/zebra" "uncommitted file gone after a plain sync"

# --full walks even when nothing changed.
expect_exit 0 -- "$E" --brain "$R" --json sync --full
expect_json "$OUT" 'd["mode"]' "full walk (--full)"

# One writer: a second writer waits, then fails naming the lock; readers do not wait.
flock "$R/.engram/write.lock" sleep 3 &
holder=$!
sleep 0.3
expect_exit 1 -- env ENGRAM_STORE_LOCK_TIMEOUT_MS=300 "$E" --brain "$R" sync
expect_contains "$ERR" "write.lock" "lock holder named"
expect_exit 0 -- "$E" --brain "$R" search robots
wait $holder
expect_exit 0 -- "$E" --brain "$R" sync --quiet
# Scopes: a changed scope walks everything; excluded folders match whole components.
mkdir -p "$R/04_Archive" "$R/my04_Archive"
printf 'Archived walrus notes.\n' > "$R/04_Archive/old.md"
printf 'Kept walrus notes.\n' > "$R/my04_Archive/kept.md"
commit scopes
expect_exit 0 -- "$E" --brain "$R" sync --quiet
expect_contains "$(slugs walrus)" "04_archive/old" "indexed before the exclusion"
sed -i 's/^exclude = \[\]$/exclude = ["04_Archive"]/' "$R/.engram/config.toml"
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" 'd["mode"]' "full walk (the scope changed)"
expect_json "$OUT" 'd["deleted"]' "1"
expect_not_contains "$(slugs walrus)" "04_archive/old" "excluded folder left the brain"
expect_contains "$(slugs walrus)" "my04_archive/kept" "look-alike folder kept"
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" 'd["mode"]' "up to date"

# Quarantine: sensitive files never reach the index; an audit row names path and rule, not content.
printf 'Deploy notes: aws AKIA2E0A8F3B244C9986 for the pelican bucket.\n' > "$R/notes/deploy.md"
printf 'Pelican facts, harmless.\n' > "$R/notes/pelican.md"
commit sensitive
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" '[(q["path"], q["rule"]) for q in d["quarantined"]]' "[('notes/deploy.md', 'aws_access_key')]"
expect_not_contains "$(slugs pelican)" "notes/deploy" "quarantined file not searchable"
expect_exit 0 -- "$E" --brain "$R" --json audit
expect_json "$OUT" '(d["audit"][0]["path"], d["audit"][0]["rule"])' "('notes/deploy.md', 'aws_access_key')"
expect_not_contains "$OUT" "AKIA" "audit never holds content"
expect_not_contains "$(cat "$R/.engram/sync.log" 2>/dev/null)" "AKIA" "log never holds content"
printf 'Pelican facts. Contact 13812345678.\n' > "$R/notes/pelican.md"
commit becomes-sensitive
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" '[q["rule"] for q in d["quarantined"]]' "['cn_mobile']"
expect_exit 1 -- "$E" --brain "$R" get notes/pelican
sed -i 's|^allow = \[\]$|allow = ["notes/pelican.md"]|' "$R/.engram/config.toml"
expect_exit 0 -- "$E" --brain "$R" --json sync --full
expect_exit 0 -- "$E" --brain "$R" get notes/pelican
# Withdrawing the allow-list entry: check finds the indexed page that the rules now quarantine.
sed -i 's|^allow = \["notes/pelican.md"\]$|allow = []|' "$R/.engram/config.toml"
expect_exit 1 -- "$E" --brain "$R" check
expect_contains "$OUT" "notes/pelican.md: indexed although sensitive-content rule cn_mobile" "check flags quarantined page"
expect_exit 0 -- "$E" --brain "$R" check --repair
expect_exit 1 -- "$E" --brain "$R" get notes/pelican
expect_exit 1 -- bash -c "printf 'token: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n' | \"$E\" --brain \"$R\" put notes/leak"
expect_contains "$ERR" "github_token" "put refuses sensitive content"
[[ ! -e "$R/notes/leak.md" ]] || fail "refused page was written"
sed -i 's|^disable = \[\]$|disable = ["no_such_rule"]|' "$R/.engram/config.toml"
expect_exit 2 -- "$E" --brain "$R" status
expect_contains "$ERR" "unknown rule 'no_such_rule'" "unknown rule rejected"
sed -i 's|^disable = \["no_such_rule"\]$|disable = []|' "$R/.engram/config.toml"

# check: consistent after syncs; drift is found, named and repaired.
expect_exit 0 -- "$E" --brain "$R" --json check
expect_json "$OUT" 'd["ok"]' "True"
# Foreign keys off: deleting a page strands its rows, as a buggy writer would.
brain_sql "$R" "DELETE FROM pages WHERE slug = 'notes/latin1';
  DELETE FROM postings WHERE term_id = (SELECT term_id FROM postings ORDER BY term_id LIMIT 1);"
expect_exit 1 -- "$E" --brain "$R" --json check
expect_json "$OUT" 'd["ok"]' "False"
expect_contains "$OUT" "file of the synced commit has no page" "missing page found"
expect_contains "$OUT" "chunks of deleted pages" "orphans found"
expect_contains "$OUT" "full-text index disagrees" "index drift found"
expect_exit 0 -- "$E" --brain "$R" --json check --repair
expect_json "$OUT" '(d["repaired"], d["remaining"])' "(True, [])"
expect_exit 0 -- "$E" --brain "$R" check
expect_contains "$(slugs café)" "notes/latin1" "repaired page searchable"

# Issue 12 item 7: after a body-only edit synced from git, the title's words are still found;
# drift in any derived structure is named by check --full and restored by --repair.
printf -- '---\ntitle: Axolotl Habitat\n---\nLakes near the city.\n' > "$R/notes/axolotl.md"
git -C "$R" add -A && git -C "$R" commit -qm "axolotl"
expect_exit 0 -- "$E" --brain "$R" sync --quiet
printf -- '---\ntitle: Axolotl Habitat\n---\nCanals, now, in the body only.\n' > "$R/notes/axolotl.md"
git -C "$R" commit -qam "axolotl body"
expect_exit 0 -- "$E" --brain "$R" sync --quiet
expect_contains "$(slugs axolotl)" "notes/axolotl" "title-only word found after a synced body edit"
expect_exit 0 -- "$E" --brain "$R" --json check --full
expect_json "$OUT" 'd["ok"]' "True"
brain_sql "$R" "DELETE FROM tags WHERE page_id = (SELECT id FROM pages WHERE slug = 'notes/axolotl');
  INSERT INTO tags(page_id, tag) VALUES ((SELECT id FROM pages WHERE slug = 'notes/axolotl'), 'stray');
  UPDATE links SET to_slug = 'elsewhere' WHERE from_page = (SELECT id FROM pages ORDER BY id LIMIT 1);
  UPDATE corpus_stats SET titles = titles + 3;"
expect_exit 1 -- "$E" --brain "$R" check --full
expect_contains "$OUT" "notes/axolotl.md: tags differ from a rebuild" "tag drift named"
expect_contains "$OUT" "corpus statistics" "statistics drift named"
expect_exit 0 -- "$E" --brain "$R" --json check --full --repair
expect_json "$OUT" '(d["repaired"], d["remaining"])' "(True, [])"
expect_exit 0 -- "$E" --brain "$R" check --full

# Hooks: idempotent, keep other content, respect core.hooksPath, sync in the background.
printf '#!/bin/sh\necho user-hook\n' > "$R/.git/hooks/post-commit" && chmod +x "$R/.git/hooks/post-commit"
expect_exit 0 -- "$E" --brain "$R" hook install
expect_exit 0 -- "$E" --brain "$R" --json hook install
expect_json "$OUT" '[h["installed"] for h in d["hooks"]]' "[True, True, True]"
expect_json "$OUT" 'd["hooks"][0]["other_content"]' "True"
[[ $(grep -c '>>> engram sync >>>' "$R/.git/hooks/post-commit") -eq 1 ]] || fail "hook block duplicated"
expect_contains "$(cat "$R/.git/hooks/post-commit")" "echo user-hook" "existing hook kept"
[[ -x "$R/.git/hooks/post-merge" ]] || fail "hook not executable"
printf 'Hooked page about quokkas.\n' > "$R/notes/quokka.md" && commit hooked
for i in $(seq 1 50); do
  [[ "$("$E" --brain "$R" --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["synced_commit"])')" == "$(git -C "$R" rev-parse HEAD)" ]] && break
  sleep 0.1
done
expect_contains "$(slugs quokkas)" "notes/quokka" "post-commit hook synced in the background"
expect_exit 0 -- "$E" --brain "$R" --json hook uninstall
expect_json "$OUT" '[h["installed"] for h in d["hooks"]]' "[False, False, False]"
expect_contains "$(cat "$R/.git/hooks/post-commit")" "echo user-hook" "uninstall keeps other content"
[[ ! -e "$R/.git/hooks/post-merge" ]] || fail "an engram-only hook file was left behind"
git -C "$R" config core.hooksPath githooks
expect_exit 0 -- "$E" --brain "$R" --json hook install
expect_json "$OUT" 'd["hooks"][0]["file"]' "$(realpath "$R")/githooks/post-commit"
expect_exit 2 -- "$E" --brain "$R" hook frobnicate

finish
