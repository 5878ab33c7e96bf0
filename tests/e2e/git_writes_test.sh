#!/usr/bin/env bash
# Writes on a git brain stick (issue 13, item 11): put, delete and the page
# edits — from the CLI, `engram call` and over HTTP — each become one commit
# of the file they wrote, the anchor moves with it, and neither `sync --full`
# nor `check --repair` undoes them. A file with the user's uncommitted work
# is never overwritten; commits the brain has not seen come first; add_link
# writes links the way the vault does.
source "$(dirname "$0")/lib.sh"
B="$WORK/vault"
mkdir -p "$B/people" "$B/work/people" "$B/notes"
printf '# Zhang San\nfounder of Acme\n' > "$B/people/Zhang San.md"
printf 'a colleague\n' > "$B/work/people/Li Si.md"
printf 'another Li Si\n' > "$B/people/Li Si.md"
printf 'alpha note\n' > "$B/notes/alpha.md"
printf 'beta note\n' > "$B/notes/beta.md"
g() { git -C "$B" "$@"; }
g init -q && g config user.name "Vault Owner" && g config user.email owner@example.com
g add -A && g commit -qm init
run() { "$ENGRAM" --brain "$B" "$@"; }
expect_exit 0 -- "$ENGRAM" init "$B"
expect_exit 0 -- run sync
commits() { g rev-list --count HEAD; }
anchor() { run --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["synced_commit"])'; }

# --- put: one commit, the anchor is HEAD, the work tree is clean ---
printf 'gamma words from a put\n' > "$WORK/gamma.md"
expect_exit 0 -- run put notes/gamma --file "$WORK/gamma.md"
expect_contains "$OUT" "committed $(g rev-parse --short=12 HEAD)" "put names its commit"
expect_json "$(run --json get notes/gamma)" 'd["path"]' notes/gamma.md
[[ $(commits) == 2 ]] || fail "put: $(commits) commits, want 2"
[[ $(g log -1 --format=%s) == "engram put: notes/gamma.md" ]] || fail "put message: $(g log -1 --format=%s)"
[[ $(g log -1 --format='%an <%ae>') == "Vault Owner <owner@example.com>" ]] || fail "author: $(g log -1 --format='%an <%ae>')"
expect_contains "$(g log -1 --format=%b)" "Engram-Caller: local user (cli)" "trailer names the caller"
[[ -z $(g status --porcelain) ]] || fail "work tree not clean after put: $(g status --porcelain)"
[[ $(anchor) == $(g rev-parse HEAD) ]] || fail "anchor $(anchor) is not HEAD $(g rev-parse HEAD)"
[[ $(g show HEAD:notes/gamma.md) == "gamma words from a put" ]] || fail "the commit does not hold the page"

# --- page edits (call = the operations MCP and HTTP run) and delete ---
expect_exit 0 -- run call add_tag '{"slug": "notes/alpha", "tag": "kept"}'
expect_json "$OUT" 'd["commit"] == "'"$(g rev-parse HEAD)"'"' True
[[ $(g log -1 --format=%s) == "engram tag: notes/alpha.md" ]] || fail "tag message: $(g log -1 --format=%s)"
expect_exit 0 -- run call add_timeline_entry '{"slug": "notes/alpha", "date": "2026-01-02", "summary": "met"}'
expect_exit 0 -- run delete notes/beta
[[ $(g log -1 --format=%s) == "engram delete: notes/beta.md" ]] || fail "delete message: $(g log -1 --format=%s)"
[[ -z $(g ls-tree HEAD notes/beta.md) ]] || fail "the deletion is not committed"
[[ $(commits) == 5 ]] || fail "$(commits) commits, want 5"
[[ -z $(g status --porcelain) ]] || fail "work tree not clean: $(g status --porcelain)"

# --- nothing undoes them ---
expect_exit 0 -- run sync --full
expect_exit 0 -- run check
expect_contains "$OUT" "consistent" "check after the writes"
expect_exit 0 -- run check --repair
expect_exit 1 -- run get notes/beta
expect_exit 0 -- run get notes/alpha
expect_contains "$OUT" "kept" "the tag survives sync --full and check --repair"
expect_contains "$OUT" "met" "the timeline entry survives"
expect_exit 0 -- run search "gamma words"
expect_contains "$OUT" "notes/gamma" "the put page survives"

# --- the user's uncommitted work is never clobbered ---
printf 'my unsaved thought\n' >> "$B/notes/alpha.md"
before=$(commits)
expect_exit 1 -- run call add_tag '{"slug": "notes/alpha", "tag": "clobber"}'
expect_contains "$OUT" "uncommitted local changes" "dirty file refused"
printf 'over\n' > "$WORK/over.md"
expect_exit 1 -- run put notes/alpha --file "$WORK/over.md"
expect_contains "$ERR" "notes/alpha.md' has uncommitted local changes" "put names the file"
expect_contains "$(cat "$B/notes/alpha.md")" "my unsaved thought" "the user's edit is intact"
g add notes/alpha.md
expect_exit 1 -- run delete notes/alpha
expect_contains "$ERR" "staged changes" "staged file refused"
g reset -q notes/alpha.md && g checkout -q notes/alpha.md
printf 'scratch\n' > "$B/notes/scratch.md"
expect_exit 1 -- run put notes/scratch --file "$WORK/over.md"
expect_contains "$ERR" "untracked" "untracked file refused"
expect_contains "$(cat "$B/notes/scratch.md")" "scratch" "the untracked file is intact"
rm "$B/notes/scratch.md"
printf 'drafts/\n' > "$B/.gitignore" && g add .gitignore && g commit -qm "ignore drafts"
expect_exit 1 -- run put drafts/x --file "$WORK/over.md"
expect_contains "$ERR" "ignored by git" "ignored path refused"
[[ ! -e "$B/drafts/x.md" ]] || fail "a refused put left drafts/x.md"
[[ $(commits) == $((before + 1)) ]] || fail "refused writes committed something"

# --- a commit the brain has not seen comes first, and is kept ---
printf 'delta from the user\n' > "$B/notes/delta.md" && g add notes/delta.md && g commit -qm "user adds delta"
user_commit=$(g rev-parse HEAD)
expect_exit 0 -- run call add_tag '{"slug": "notes/delta", "tag": "seen"}'
[[ $(g rev-parse HEAD~1) == "$user_commit" ]] || fail "the write is not on top of the user's commit"
[[ $(anchor) == $(g rev-parse HEAD) ]] || fail "anchor is not HEAD after catching up"
expect_exit 0 -- run search delta
expect_contains "$OUT" "notes/delta" "the user's commit was indexed"

# --- links the vault's way ---
expect_exit 0 -- run call add_link '{"slug": "notes/alpha", "target": "people/zhang-san"}'
expect_contains "$(cat "$B/notes/alpha.md")" "[[Zhang San]]" "a unique file name is the link"
expect_exit 0 -- run call add_link '{"slug": "notes/alpha", "target": "work/people/Li Si"}'
expect_contains "$(cat "$B/notes/alpha.md")" "[[work/people/Li Si]]" "a shared file name gets the shortest path that reaches it"
expect_exit 0 -- run call get_backlinks '{"slug": "work/people/Li Si"}'
expect_contains "$OUT" "notes/alpha" "the written link resolves to its target"
expect_exit 0 -- run call --remote --scope write add_link '{"slug": "notes/delta", "target": "Zhang San"}'
expect_contains "$(cat "$B/notes/delta.md")" "[[people/Zhang San]]" "a remote caller's link names the whole path"
expect_not_contains "$(cat "$B/notes/alpha.md" "$B/notes/delta.md")" "zhang-san]]" "never the slug form"

# --- author and message from config.toml ---
python3 - "$B/.engram/config.toml" <<'EOF'
import re, sys
p = sys.argv[1]; s = open(p).read()
s = s.replace('author_name = ""', 'author_name = "Agent Smith"').replace('author_email = ""', 'author_email = "agent@example.com"')
s = s.replace('message = "engram {operation}: {path}"', 'message = "brain: {operation} {path} by {caller} via {transport} {unknown}"')
open(p, "w").write(s)
EOF
expect_exit 0 -- run call --remote --scope write add_tag '{"slug": "notes/gamma", "tag": "x"}'
[[ $(g log -1 --format='%an <%ae>') == "Agent Smith <agent@example.com>" ]] || fail "configured author: $(g log -1 --format='%an <%ae>')"
[[ $(g log -1 --format=%s) == "brain: tag notes/gamma.md by engram call --remote via call {unknown}" ]] ||
  fail "configured message: $(g log -1 --format=%s)"
sed -i 's/^message = .*/message = ""/' "$B/.engram/config.toml"
expect_exit 2 -- run put notes/x --file "$WORK/over.md"
expect_contains "$ERR" "git.message" "an empty message template is a config error"

# --- a plain folder and an imported folder are never committed to ---
P="$WORK/plain"; mkdir -p "$P"
expect_exit 0 -- "$ENGRAM" init "$P"
expect_exit 0 -- "$ENGRAM" --brain "$P" put n --file "$WORK/over.md"
expect_not_contains "$OUT" "committed" "plain folder"
[[ ! -d "$P/.git" ]] || fail "a plain folder became a repository"
finish
