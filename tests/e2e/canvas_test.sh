#!/usr/bin/env bash
# End-to-end: Obsidian canvases (.canvas, JSON Canvas 1.0) are pages (issue 13, item 16) — imported, synced
# from git (full, incremental, --worktree) and kept current by import --watch; their cards are searched, their
# note cards are backlinks of the notes, broken canvases are named failures, and put refuses them.
source "$(dirname "$0")/lib.sh"
E=$ENGRAM
slugs() { "$E" --brain "$1" --json search "$2" | python3 -c 'import json,sys; print(" ".join(r["slug"] for r in json.load(sys.stdin)["results"]))'; }
backlinks() {
  "$E" --brain "$1" --json call get_backlinks "{\"slug\": \"$2\"}" |
    python3 -c 'import json,sys; print(" ".join(sorted(b["from"] + ":" + b["type"] for b in json.load(sys.stdin)["backlinks"])))'
}

# A small vault: notes, an image, a note and a canvas of one name, and a real-looking canvas.
make_vault() {
  local V=$1
  mkdir -p "$V/Projects" "$V/People" "$V/attachments" "$V/.obsidian"
  printf '# Lighthouse\nThe lighthouse project rebuilds search.\n' > "$V/Projects/Lighthouse.md"
  printf '# Li Hali\nDesigner.\n' > "$V/People/Li Hali.md"
  printf 'A note named Roadmap, not the canvas.\n' > "$V/Projects/Roadmap.md"
  printf '\x89PNG\r\n' > "$V/attachments/wireframe.png"
  printf '{}' > "$V/.obsidian/workspace.json"
  cat > "$V/Projects/Roadmap.canvas" <<'JSON'
{
	"nodes":[
		{"id":"8a1f3c5e7b9d0246","type":"group","x":-60,"y":-120,"width":1200,"height":820,"label":"Quarter plan"},
		{"id":"1b3d5f7a9c0e2468","type":"text","text":"## Milestones\n- migrate the **narwhal** cluster by June\n- review with [[People/Li Hali]] #milestone","x":-20,"y":-60,"width":420,"height":200},
		{"id":"2c4e6a8b0d1f3579","type":"text","text":"上线计划：先在杭州机房灰度发布","x":480,"y":-60,"width":420,"height":120,"color":"4"},
		{"id":"3d5f7b9a1c2e4680","type":"file","file":"Projects/Lighthouse.md","subpath":"#Goals","x":-20,"y":200,"width":420,"height":300},
		{"id":"4e6a8c0b2d3f5791","type":"file","file":"attachments/wireframe.png","x":480,"y":200,"width":420,"height":300},
		{"id":"5f7b9d1c3e4a6802","type":"link","url":"https://example.com/runbook","x":480,"y":540,"width":420,"height":80}
	],
	"edges":[
		{"id":"6a8c0e2d4f5b7913","fromNode":"1b3d5f7a9c0e2468","fromSide":"bottom","toNode":"3d5f7b9a1c2e4680","toSide":"top","label":"depends on"}
	]
}
JSON
}

# Plain folder: import.
V="$WORK/vault"; make_vault "$V"
printf '{"nodes": [{"id": "a", "type": "text", "text": "unfinished' > "$V/Projects/Broken.canvas"
"$E" init "$V" > /dev/null
expect_exit 0 -- "$E" --brain "$V" --json import
expect_json "$OUT" 'd["added"]' "4"
expect_json "$OUT" '[s["path"] for s in d["skipped"]]' "['Projects/Broken.canvas']"
expect_contains "$(json_get "$OUT" 'd["skipped"][0]["reason"]')" "Projects/Broken.canvas: not a valid JSON Canvas file (invalid JSON" "broken canvas named"
expect_json "$OUT" 'd["skipped_by_reason"]' "{'invalid canvas': 1}"
expect_exit 0 -- "$E" --brain "$V" --json get Projects/Roadmap.canvas
expect_json "$OUT" '(d["slug"], d["title"], d["type"])' "('projects/roadmap--canvas', 'Roadmap', 'canvas')"
expect_exit 0 -- "$E" --brain "$V" --json get Projects/Roadmap
expect_json "$OUT" '(d["slug"], d["type"])' "('projects/roadmap', 'project')"
expect_contains "$(slugs "$V" narwhal)" "projects/roadmap--canvas" "a text card is searched"
expect_contains "$(slugs "$V" 杭州机房)" "projects/roadmap--canvas" "a Chinese card is searched"
expect_contains "$(slugs "$V" "quarter plan")" "projects/roadmap--canvas" "a group label is searched"
expect_contains "$(slugs "$V" "depends on")" "projects/roadmap--canvas" "an edge label is searched"
expect_not_contains "$(slugs "$V" 8a1f3c5e7b9d0246)" "roadmap" "node ids are not text"
expect_contains "$(backlinks "$V" Projects/Lighthouse)" "projects/roadmap--canvas:mentions" "a note card is a backlink"
expect_contains "$(backlinks "$V" "People/Li Hali")" "projects/roadmap--canvas:mentions" "a wiki link in a card is a backlink"
expect_exit 0 -- "$E" --brain "$V" --json status
expect_json "$OUT" 'd["attachments"]' "1"
expect_json "$OUT" 'd["pages_by_type"]["canvas"]' "1"
expect_exit 0 -- "$E" --brain "$V" check

# put writes Markdown: a canvas is refused, by name or by its page's slug, and nothing is written.
expect_exit 2 -- "$E" --brain "$V" put Projects/New.canvas <<< '{"nodes": []}'
expect_contains "$ERR" "is a canvas (JSON Canvas)" "put of a canvas refused"
CHECKS=$((CHECKS + 1)); [[ ! -e "$V/Projects/New.canvas" && ! -e "$V/Projects/New.canvas.md" ]] || fail "put wrote a file"
expect_exit 2 -- "$E" --brain "$V" put projects/roadmap--canvas <<< 'overwrite'
CHECKS=$((CHECKS + 1)); grep -q narwhal "$V/Projects/Roadmap.canvas" || fail "put overwrote the canvas"
expect_exit 2 -- "$E" --brain "$V" call add_tag '{"slug": "Projects/Roadmap.canvas", "tag": "x"}'
expect_contains "$OUT" "is a canvas" "add_tag on a canvas refused"

# A git brain: a full sync, then incremental ones (edit, rename, delete), then --worktree.
newrepo() {
  mkdir -p "$1" && git -C "$1" init -q && git -C "$1" config user.email t@example.com && git -C "$1" config user.name t
}
commit() { git -C "$1" add -A && git -C "$1" commit -qm "$2"; }
R="$WORK/repo"; newrepo "$R"; make_vault "$R"; commit "$R" vault
"$E" init "$R" > /dev/null
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" 'd["added"]' "4"
expect_contains "$(slugs "$R" narwhal)" "projects/roadmap--canvas" "git: a text card is searched"
expect_contains "$(backlinks "$R" Projects/Lighthouse)" "projects/roadmap--canvas:mentions" "git: a note card is a backlink"
sed -i 's/narwhal/walrus/' "$R/Projects/Roadmap.canvas"; commit "$R" edit-canvas
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" '(d["mode"], d["updated"])' "('diff', 1)"
expect_contains "$(slugs "$R" walrus)" "projects/roadmap--canvas" "git: an edited card is searched"
expect_not_contains "$(slugs "$R" narwhal)" "roadmap" "git: the old card text is gone"
git -C "$R" mv Projects/Roadmap.canvas Projects/Plan.canvas; commit "$R" rename-canvas
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" 'd["renamed"]' "1"
expect_contains "$(slugs "$R" walrus)" "projects/plan--canvas" "git: a renamed canvas keeps its text"
printf '{"nodes": [' > "$R/Projects/Bad.canvas"; commit "$R" bad-canvas
expect_exit 1 -- "$E" --brain "$R" --json sync
expect_json "$OUT" '[f["path"] for f in d["failed"]]' "['Projects/Bad.canvas']"
expect_contains "$(json_get "$OUT" 'd["failed"][0]["reason"]')" "not a valid JSON Canvas file" "git: a broken canvas named"
git -C "$R" rm -q Projects/Plan.canvas Projects/Bad.canvas; commit "$R" drop-canvas
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" 'd["deleted"]' "1"
expect_not_contains "$(slugs "$R" walrus)" "canvas" "git: a deleted canvas is gone"
expect_not_contains "$(backlinks "$R" Projects/Lighthouse)" "canvas" "git: its links are gone"
expect_exit 0 -- "$E" --brain "$R" check
cat > "$R/Sketch.canvas" <<'JSON'
{"nodes":[{"id":"a","type":"text","text":"uncommitted pangolin idea","x":0,"y":0,"width":200,"height":80}]}
JSON
expect_exit 0 -- "$E" --brain "$R" --json sync --worktree
expect_contains "$(slugs "$R" pangolin)" "sketch--canvas" "sync --worktree reads an uncommitted canvas"

# import --watch: a canvas saved in a watched folder is searched after a quiet moment.
W="$WORK/watched"; mkdir -p "$W"; printf 'first note\n' > "$W/first.md"
"$E" init "$W" > /dev/null
"$E" --brain "$W" --json import --watch --quiet 0.2 > "$WORK/watch.jsonl" 2> "$WORK/watch.err" &
watcher=$!
for i in $(seq 1 50); do [[ -s "$WORK/watch.jsonl" ]] && break; sleep 0.1; done
printf '{"nodes":[{"id":"a","type":"text","text":"axolotl board","x":0,"y":0,"width":1,"height":1}]}' > "$W/Board.canvas"
for i in $(seq 1 50); do [[ "$(slugs "$W" axolotl 2>/dev/null)" == *board--canvas* ]] && break; sleep 0.1; done
expect_contains "$(slugs "$W" axolotl)" "board--canvas" "import --watch indexes a new canvas"
kill -INT "$watcher"; wait "$watcher"

finish
