#!/usr/bin/env bash
# End-to-end (issue 17, item 1): `engram entity merge` on a git brain, through
# the real binary. The Markdown is the truth: links to the merged page are
# rewritten in every page (private ones too, never in code) keeping their
# shown text; the kept page gets the names as aliases, the text, the facts and
# the timeline; the merged page becomes a redirect its names still resolve
# through; each page written is its own commit. Bad merges are clear errors.
# `entity split` undoes a merge, and splits a page about two people.
source "$(dirname "$0")/lib.sh"
E=$ENGRAM
B="$WORK/brain"
mkdir -p "$B/people" "$B/companies" "$B/notes"
printf -- '---\ntitle: 张三\ntype: person\naliases: [Zhang San]\ncompany: "[[companies/xinghe]]"\n---\n# 张三\n\nFounder.\n' \
  >"$B/people/zhang-san.md"
printf -- '---\ntitle: San Zhang (old)\ntype: person\naliases: [老张]\nrole: CEO\n---\n# San Zhang\n\nRuns [[companies/xinghe]].\n\n<!-- timeline -->\n\n- **2019-03-01** | Founded Xinghe\n' \
  >"$B/people/san-zhang.md"
printf -- '---\ntitle: Xinghe\ntype: company\nfounder: "[[people/san-zhang]]"\n---\nLed by [[people/san-zhang|San]], see [[san-zhang#Bio]].\nSyntax: `[[san-zhang]]` stays.\n' \
  >"$B/companies/xinghe.md"
printf -- '---\nvisibility: private\n---\nDinner with [[people/san-zhang]].\n' >"$B/notes/dinner.md"
printf -- '---\ntitle: Hidden\ntype: person\nvisibility: private\n---\nA private person.\n' >"$B/people/hidden.md"
git -C "$B" init -q && git -C "$B" add -A && git -C "$B" -c user.email=t@t -c user.name=t commit -qm init
git -C "$B" config user.email t@t && git -C "$B" config user.name t
expect_exit 0 -- "$E" init "$B"
expect_exit 0 -- "$E" --brain "$B" sync
COMMITS=$(git -C "$B" rev-list --count HEAD)

expect_exit 0 -- "$E" --brain "$B" --json entity merge people/san-zhang people/zhang-san
expect_json "$OUT" 'd["links_rewritten"]' "4"
expect_json "$OUT" 'sorted(d["pages_rewritten"])' "['companies/xinghe', 'notes/dinner', 'people/san-zhang', 'people/zhang-san']"
expect_json "$OUT" 'd["aliases_added"]' "['San Zhang (old)', '老张']"
expect_json "$OUT" 'len(d["commits"])' "4"
[[ $(git -C "$B" rev-list --count HEAD) -eq $((COMMITS + 4)) ]] || fail "each page written is its own commit"
X=$(cat "$B/companies/xinghe.md")
expect_contains "$X" 'founder: "[[zhang-san|people/san-zhang]]"' "a frontmatter link, its shown text kept"
expect_contains "$X" "[[zhang-san|San]]" "a link with its own text"
expect_contains "$X" "[[zhang-san#Bio|san-zhang]]" "the heading kept"
expect_contains "$X" '`[[san-zhang]]` stays' "code is not rewritten"
expect_contains "$(cat "$B/notes/dinner.md")" "[[zhang-san|people/san-zhang]]" "a private page's link too"
K=$(cat "$B/people/zhang-san.md")
expect_contains "$K" "aliases: [Zhang San, San Zhang (old), 老张]" "the names became aliases"
expect_contains "$K" "## Merged from San Zhang (old)" "the text moved"
expect_contains "$K" "- fact: role: CEO" "the frontmatter facts moved"
expect_contains "$K" "- **2019-03-01** | Founded Xinghe" "the timeline moved"
S=$(cat "$B/people/san-zhang.md")
expect_contains "$S" "type: redirect" "the merged page is a redirect"
expect_contains "$S" "merged_into: people/zhang-san" "naming the page kept"

# Its names lead to the page kept; the facts are there.
expect_exit 0 -- "$E" --brain "$B" --json entity resolve "San Zhang (old)"
expect_json "$OUT" '[c["slug"] for c in d["candidates"]]' "['people/zhang-san']"
expect_exit 0 -- "$E" --brain "$B" --json entity resolve san-zhang
expect_json "$OUT" 'd["candidates"][0]["reason"]' "file name, merged into people/zhang-san"
expect_exit 0 -- "$E" --brain "$B" --json facts people/zhang-san
expect_json "$OUT" '[f["value"] for f in d["facts"] if f["predicate"] == "role"]' "['CEO']"
expect_exit 0 -- "$E" --brain "$B" --json search "Who founded Xinghe?"
expect_json "$OUT" '[i["slug"] for i in d["answer"]["items"]]' "['people/zhang-san']"

# Bad merges.
expect_exit 2 -- "$E" --brain "$B" entity merge people/zhang-san "Zhang San"
expect_contains "$ERR" "cannot merge people/zhang-san into itself" "into itself"
expect_exit 2 -- "$E" --brain "$B" entity merge people/zhang-san people/hidden
expect_contains "$ERR" "cannot merge public people/zhang-san into private people/hidden" "into a private page"
expect_exit 2 -- "$E" --brain "$B" entity merge people/san-zhang people/hidden
expect_contains "$ERR" "already merged" "a redirect"
expect_exit 1 -- "$E" --brain "$B" entity merge people/nobody people/zhang-san
expect_contains "$ERR" "people/nobody" "a page that is not there"
[[ $(git -C "$B" rev-list --count HEAD) -eq $((COMMITS + 4)) ]] || fail "a refused merge writes nothing"

# Split undoes a merge: the redirect gets back its names, type and text; links shown as its names or
# its slug reach it again ("[[zhang-san|San]]" says neither and stays).
expect_exit 0 -- "$E" --brain "$B" --json entity split people/san-zhang
expect_json "$OUT" 'd["restored"], d["into"], d["from"]' "(True, 'people/san-zhang', 'people/zhang-san')"
expect_json "$OUT" 'd["names_moved"]' "['San Zhang (old)', '老张']"
expect_json "$OUT" 'd["sections_moved"], d["links_rewritten"]' "(1, 3)"
S=$(cat "$B/people/san-zhang.md")
expect_contains "$S" 'title: "San Zhang (old)"' "its title"
expect_contains "$S" 'type: "person"' "its type"
expect_contains "$S" 'aliases: ["老张"]' "its other names"
expect_contains "$S" "- fact: role: CEO" "its facts"
expect_contains "$S" "Runs [[companies/xinghe]]." "its text"
K=$(cat "$B/people/zhang-san.md")
expect_contains "$K" "aliases: [Zhang San]" "the kept page's own names"
expect_not_contains "$K" "Merged from" "the merged text left"
X=$(cat "$B/companies/xinghe.md")
expect_contains "$X" 'founder: "[[san-zhang|people/san-zhang]]"' "a link shown as the slug"
expect_contains "$X" "[[san-zhang#Bio|san-zhang]]" "a link shown as the file name"
expect_contains "$X" "[[zhang-san|San]]" "a link shown otherwise stays"
expect_exit 0 -- "$E" --brain "$B" --json entity resolve 老张
expect_json "$OUT" '[c["slug"] for c in d["candidates"]]' "['people/san-zhang']"
expect_exit 0 -- "$E" --brain "$B" --json facts people/san-zhang
expect_json "$OUT" '[f["value"] for f in d["facts"] if f["predicate"] == "role"]' "['CEO']"
expect_exit 0 -- "$E" --brain "$B" check
N=$(git -C "$B" rev-list --count HEAD)

# Split one page of two people: the aliases and section named move, and the links shown as them.
printf -- '---\ntitle: Li Wei\ntype: person\naliases: [Wei, "Li Wei (Tencent)"]\n---\n# Li Wei\n\nCTO of Xinghe; not [[people/li-wei|Li Wei (Tencent)]].\n\n## At Tencent\n\nLeads WeChat Pay.\n\n## Hobbies\n\nGo.\n' \
  >"$B/people/li-wei.md"
printf -- 'Met [[people/li-wei|Li Wei (Tencent)]] and [[people/li-wei|Li Wei]].\n' >"$B/notes/met.md"
git -C "$B" add -A && git -C "$B" commit -qm "two li weis"
expect_exit 0 -- "$E" --brain "$B" sync
N=$(git -C "$B" rev-list --count HEAD)
expect_exit 0 -- "$E" --brain "$B" entity split people/li-wei people/li-wei-tencent --name "Li Wei (Tencent)" \
  --section "At Tencent"
expect_contains "$OUT" "split people/li-wei-tencent from people/li-wei: 1 name(s), 1 section(s) moved, 2 link(s)" "the report"
T=$(cat "$B/people/li-wei-tencent.md")
expect_contains "$T" 'title: "Li Wei (Tencent)"' "the new page's title"
expect_contains "$T" "Split from [[people/li-wei]]" "where it came from"
expect_contains "$T" "Leads WeChat Pay." "the section moved"
L=$(cat "$B/people/li-wei.md")
expect_contains "$L" "aliases: [Wei]" "the alias left"
expect_not_contains "$L" "At Tencent" "the section left"
expect_contains "$L" "## Hobbies" "the rest stays"
expect_contains "$L" "not [[li-wei-tencent|Li Wei (Tencent)]]" "its own link shown as the moved name"
M=$(cat "$B/notes/met.md")
expect_contains "$M" "[[li-wei-tencent|Li Wei (Tencent)]]" "the link shown as the moved name"
expect_contains "$M" "[[people/li-wei|Li Wei]]" "the other link stays"
# One commit per page written: li-wei's cut and its own link rewritten are one write of that page.
[[ $(git -C "$B" rev-list --count HEAD) -eq $((N + 3)) ]] || fail "each page written is its own commit"
expect_exit 0 -- "$E" --brain "$B" check

# Bad splits write nothing.
N=$(git -C "$B" rev-list --count HEAD)
expect_exit 2 -- "$E" --brain "$B" entity split people/li-wei people/x --name "Nobody"
expect_contains "$ERR" "'Nobody' is not an alias of people/li-wei" "a name the page does not have"
expect_exit 2 -- "$E" --brain "$B" entity split people/li-wei people/x --name "Li Wei"
expect_contains "$ERR" "(it is its title)" "the title"
expect_exit 2 -- "$E" --brain "$B" entity split people/li-wei people/x --section "Nowhere" --title X
expect_contains "$ERR" "people/li-wei has no section 'Nowhere'" "a missing section"
expect_exit 2 -- "$E" --brain "$B" entity split people/li-wei people/li-wei-tencent --name Wei
expect_contains "$ERR" "already exists" "onto an existing page"
expect_exit 2 -- "$E" --brain "$B" entity split people/li-wei
expect_contains "$ERR" "needs the new page's slug" "no new page"
expect_exit 2 -- "$E" --brain "$B" entity split people/li-wei people/x
expect_contains "$ERR" "at least one alias (--name) or section (--section)" "nothing to move"
expect_exit 2 -- "$E" --brain "$B" entity split people/li-wei ../outside --name Wei
[[ $(git -C "$B" rev-list --count HEAD) -eq $N ]] || fail "a refused split writes nothing"
[[ ! -e "$B/people/x.md" && ! -e "$WORK/outside.md" ]] || fail "no page made by a refused split"

# Private text never moves to a public page unasked (issue 32): the refusal says what would be exposed.
printf -- '---\ntitle: Robert\ntype: person\nvisibility: private\naliases: [Rob]\nnickname: "Robbie"\n---\n# Robert\n\nSecret salary talks.\n\n<!-- timeline -->\n\n- **2024-01-02** | Moved to Oslo\n' \
  >"$B/people/robert.md"
printf -- '---\ntitle: Bob\ntype: person\n---\n# Bob\n\nPublic Bob.\n' >"$B/people/bob.md"
git -C "$B" add -A && git -C "$B" commit -qm "robert and bob"
expect_exit 0 -- "$E" --brain "$B" sync
N=$(git -C "$B" rev-list --count HEAD)
expect_exit 2 -- "$E" --brain "$B" entity merge people/robert people/bob
expect_contains "$ERR" "merging private people/robert into public people/bob would show remote callers" "why"
expect_contains "$ERR" "its text (" "the text named"
expect_contains "$ERR" "its properties as facts (nickname)" "the properties named"
expect_contains "$ERR" "its names as aliases (Robert, Rob)" "the names named"
expect_contains "$ERR" "its timeline (1 entries)" "the timeline named"
expect_contains "$ERR" "--publish" "the way to do it anyway"
[[ $(git -C "$B" rev-list --count HEAD) -eq $N ]] || fail "a refused merge writes nothing"
expect_not_contains "$(cat "$B/people/bob.md")" "Secret salary" "bob untouched"
expect_exit 0 -- "$E" --brain "$B" --json entity merge people/robert people/bob --publish
expect_contains "$(cat "$B/people/bob.md")" "Secret salary talks." "published on request"
expect_contains "$(cat "$B/people/robert.md")" "visibility: private" "the redirect stays private"
# Undoing it into the private page is a narrowing: allowed; a public page restored from a private one is not.
expect_exit 0 -- "$E" --brain "$B" entity split people/robert
expect_not_contains "$(cat "$B/people/bob.md")" "Secret salary" "the text went back"
finish
