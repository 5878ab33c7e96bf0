#!/usr/bin/env bash
# End-to-end: a page's date is the note's (frontmatter `updated`/`date`/
# `created`, else its last commit in a git brain, else its file's
# modification time), never when engram indexed it: `search --since/--until`,
# `get`, `list` and the context block show it.
source "$(dirname "$0")/lib.sh"
E=$ENGRAM
R="$WORK/vault"
mkdir -p "$R/notes"
git -C "$R" init -q
git -C "$R" config user.email test@example.com
git -C "$R" config user.name test
commit_at() {  # commit_at DATE MESSAGE
  git -C "$R" add -A
  GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1" git -C "$R" commit -qm "$2"
}
slugs() {  # slugs QUERY [flags...]: the result slugs, sorted
  local q=$1; shift
  "$E" --brain "$R" --json search "$q" --mode keyword "$@" |
    python3 -c 'import json,sys; print(" ".join(sorted(r["slug"] for r in json.load(sys.stdin)["results"])))'
}
field() {  # field SLUG KEY: a field of `get --json`
  "$E" --brain "$R" --json get "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$2"
}

printf 'Robots sort parcels in the old warehouse.\n' > "$R/notes/2019-robots.md"
commit_at "2019-03-10T09:00:00Z" "2019"
printf 'Robots learn to climb stairs.\n' > "$R/notes/2021-robots.md"
printf -- '---\ndate: 2015-07-04\n---\nRobots in a note whose frontmatter dates it.\n' > "$R/notes/dated-robots.md"
commit_at "2021-08-20T14:30:00Z" "2021"
printf 'Robots deliver groceries.\n' > "$R/notes/2023-robots.md"
printf -- '---\nupdated: someday\n---\nRobots with a date that is no date.\n' > "$R/notes/bad-date-robots.md"
commit_at "2023-01-05T00:00:00Z" "2023"

expect_exit 0 -- "$E" init "$R"
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" 'd["added"]' "5"
expect_json "$OUT" '[(w["path"], "updated" in w["warning"]) for w in d["warnings"]]' "[('notes/bad-date-robots.md', True)]"

# get: the last commit's time, the frontmatter's date; the index time apart.
expect_exit 0 -- "$E" --brain "$R" --json get notes/2019-robots
expect_json "$OUT" 'd["updated_at"]' "2019-03-10T09:00:00Z"
expect_json "$OUT" 'd["created_at"]' "2019-03-10T09:00:00Z"
expect_json "$OUT" 'd["indexed_at"] > "2024"' "True"
expect_exit 0 -- "$E" --brain "$R" --json get notes/dated-robots
expect_json "$OUT" 'd["updated_at"]' "2015-07-04"
expect_exit 0 -- "$E" --brain "$R" --json get notes/bad-date-robots  # not a date: the commit's
expect_json "$OUT" 'd["updated_at"]' "2023-01-05T00:00:00Z"

# list shows the same dates.
expect_exit 0 -- "$E" --brain "$R" --json list
expect_json "$OUT" '{p["slug"]: p["updated_at"] for p in d["pages"]}["notes/2021-robots"]' "2021-08-20T14:30:00Z"
expect_json "$OUT" '{p["slug"]: p["updated_at"] for p in d["pages"]}["notes/dated-robots"]' "2015-07-04"

# --since/--until in keyword mode, by the notes' dates (all were indexed today).
[[ "$(slugs robots)" == "notes/2019-robots notes/2021-robots notes/2023-robots notes/bad-date-robots notes/dated-robots" ]] ||
  fail "all robots: $(slugs robots)"
[[ "$(slugs robots --since 2021-01-01)" == "notes/2021-robots notes/2023-robots notes/bad-date-robots" ]] ||
  fail "--since 2021-01-01: $(slugs robots --since 2021-01-01)"
[[ "$(slugs robots --until 2019-03-10)" == "notes/2019-robots notes/dated-robots" ]] ||
  fail "--until 2019-03-10 (the whole day): $(slugs robots --until 2019-03-10)"
[[ "$(slugs robots --since 2019-01-01 --until 2021-12-31)" == "notes/2019-robots notes/2021-robots" ]] ||
  fail "--since 2019 --until 2021: $(slugs robots --since 2019-01-01 --until 2021-12-31)"
CHECKS=$((CHECKS + 4))
expect_exit 0 -- "$E" --brain "$R" --json search robots --mode keyword --until 2016-01-01
expect_json "$OUT" '[(r["slug"], r["date"]) for r in d["results"]]' "[('notes/dated-robots', '2015-07-04')]"

# The context block dates each result by its note.
expect_exit 0 -- "$E" --brain "$R" context "stairs" --mode keyword
expect_contains "$OUT" "notes/2021-robots | 2021-robots | note | 2021-08-20 |" "context block date"

# An incremental sync dates what it writes by the new commit; others keep theirs.
printf 'Robots climb stairs and ladders now.\n' > "$R/notes/2021-robots.md"
commit_at "2024-02-02T02:02:02Z" "2024"
expect_exit 0 -- "$E" --brain "$R" --json sync
expect_json "$OUT" '(d["mode"], d["updated"])' "('diff', 1)"
[[ "$(field notes/2021-robots updated_at)" == "2024-02-02T02:02:02Z" ]] || fail "incremental date: $(field notes/2021-robots updated_at)"
[[ "$(field notes/2021-robots created_at)" == "2021-08-20T14:30:00Z" ]] || fail "created date: $(field notes/2021-robots created_at)"
[[ "$(field notes/2019-robots updated_at)" == "2019-03-10T09:00:00Z" ]] || fail "untouched page kept its date"
CHECKS=$((CHECKS + 3))

# A plain folder (engram import): the files' modification times.
P="$WORK/folder"
mkdir -p "$P/notes"
printf 'Gardening with compost.\n' > "$P/notes/compost.md"
printf 'Gardening with mulch.\n' > "$P/notes/mulch.md"
printf -- '---\ncreated: 2001-01-01\n---\nGardening with seeds.\n' > "$P/notes/seeds.md"
touch -d "2018-04-01 12:00:00 UTC" "$P/notes/compost.md" "$P/notes/seeds.md"
touch -d "2022-09-09 08:00:00 UTC" "$P/notes/mulch.md"
B="$WORK/brain"
expect_exit 0 -- "$E" init "$B"
expect_exit 0 -- "$E" --brain "$B" --json import "$P"
expect_json "$OUT" 'd["added"]' "3"
expect_exit 0 -- "$E" --brain "$B" --json get notes/compost
expect_json "$OUT" 'd["updated_at"]' "2018-04-01T12:00:00Z"
expect_exit 0 -- "$E" --brain "$B" --json get notes/seeds
expect_json "$OUT" '(d["created_at"], d["updated_at"])' "('2001-01-01', '2001-01-01')"
expect_exit 0 -- "$E" --brain "$B" --json search gardening --mode keyword --since 2020-01-01
expect_json "$OUT" '[r["slug"] for r in d["results"]]' "['notes/mulch']"
expect_exit 0 -- "$E" --brain "$B" --json search gardening --mode keyword --until 2018-04-01
expect_json "$OUT" 'sorted(r["slug"] for r in d["results"])' "['notes/compost', 'notes/seeds']"

finish
