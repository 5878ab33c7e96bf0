#!/usr/bin/env bash
# Quality gate: nDCG@10 of `engram eval` on a BEIR-layout set must reach MIN.
# Usage: quality_gate.sh ENGRAM SET_DIR MIN   (exit 77 = skipped: set absent)
set -euo pipefail
engram=$1 dir=$2 min=$3
if [[ ! -f "$dir/corpus.jsonl" ]]; then
  if [[ -n "${CI:-}" ]]; then
    echo "FAIL: no evaluation set at $dir; CI must run the quality gates" >&2
    exit 1
  fi
  echo "SKIP: no evaluation set at $dir (the gates need ../shared/eval beside the repository)" >&2
  exit 77
fi
out=$("$engram" --json eval --corpus "$dir/corpus.jsonl" --queries "$dir/queries.jsonl" --qrels "$dir/qrels/test.tsv")
echo "$out"
python3 - "$min" "$out" <<'PY'
import json, sys
minimum, result = float(sys.argv[1]), json.loads(sys.argv[2])
ndcg = result["ndcg@10"]
print(f"nDCG@10 {ndcg:.4f} (gate {minimum})")
sys.exit(0 if ndcg >= minimum else 1)
PY
