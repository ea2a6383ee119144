#!/usr/bin/env bash
# The gate step of action.yml, kept in a file so tests/test_action.py runs exactly this script.
# Inputs come from the environment: GOLDEN, RUN or RETRIEVER, BASELINE, CONFIG, KS, OUT, and
# GITHUB_STEP_SUMMARY / GITHUB_OUTPUT as GitHub sets them. Exit: the gate's own code (0, 1 or 2).
set -uo pipefail
mkdir -p "$OUT"
if [ -n "${RUN:-}" ] && [ -n "${RETRIEVER:-}" ]; then
  echo "::error::give the action 'run' or 'retriever', not both"
  exit 2
elif [ -n "${RUN:-}" ]; then
  source_args=(--run "$RUN")
elif [ -n "${RETRIEVER:-}" ]; then
  # call the retriever once; the gate and the report both read the run it writes
  ragauge run "$GOLDEN" --retriever "$RETRIEVER" -o "$OUT/run.jsonl" || exit $?
  source_args=(--run "$OUT/run.jsonl")
else
  echo "::error::the action needs 'run' (a run file) or 'retriever' (a retriever spec)"
  exit 2
fi
config_args=()
if [ -n "${CONFIG:-}" ]; then config_args=(--config "$CONFIG"); fi

ragauge gate "$GOLDEN" "${source_args[@]}" --baseline "$BASELINE" "${config_args[@]}" \
  --format markdown -o "$OUT/gate.md"
status=$?
if [ -f "$OUT/gate.md" ]; then cat "$OUT/gate.md" >> "$GITHUB_STEP_SUMMARY"; fi
if [ "$status" -le 1 ]; then
  ragauge gate "$GOLDEN" "${source_args[@]}" --baseline "$BASELINE" "${config_args[@]}" \
    --format junit -o "$OUT/gate.xml" || true
  ragauge eval "$GOLDEN" "${source_args[@]}" -k "$KS" --format html -o "$OUT/report.html" || true
fi
echo "passed=$([ "$status" -eq 0 ] && echo true || echo false)" >> "$GITHUB_OUTPUT"
exit "$status"
