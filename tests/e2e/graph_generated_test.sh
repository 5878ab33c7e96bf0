#!/usr/bin/env bash
# End-to-end (issue 17, item 6): the second half of the gold set — a brain of
# 1,500 generated entities (bench/gen_graph_brain.py, fixed seed) with 80
# questions whose answers follow from what was generated (founders, employers,
# roles now and before a promotion, homes, when someone joined or was
# promoted; English and Chinese), asked through `engram eval --graph`; and the
# walks on it stay bounded.
source "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
E=$ENGRAM
B="$WORK/brain"
expect_exit 0 -- python3 "$HERE/../../bench/gen_graph_brain.py" "$B" --entities 1500 --links 8 --seed 11 \
  --questions "$WORK/q.jsonl" --count 80
expect_json "$OUT" 'd["pages"]' "1500"
expect_exit 0 -- "$E" init "$B"
expect_exit 0 -- "$E" --brain "$B" import "$B"
expect_exit 0 -- "$E" --brain "$B" --json eval --graph "$WORK/q.jsonl"
expect_json "$OUT" 'd["questions"]' "80"
expect_json "$OUT" 'd["accuracy"] >= 0.95' "True"
expect_json "$OUT" 'sorted(d["by_group"])' \
  "['current/en', 'current/zh', 'past/en', 'relation/en', 'relation/zh', 'temporal/en', 'temporal/zh']"
expect_exit 0 -- "$E" --brain "$B" --json graph people/p3 --depth 6
expect_json "$OUT" 'd["truncated"] and len(d["nodes"]) <= 1000' "True"
expect_exit 0 -- "$E" --brain "$B" --json path people/p3 people/p900
expect_json "$OUT" 'd["found"] and d["hops"] <= 12' "True"
finish
