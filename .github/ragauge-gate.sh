#!/usr/bin/env bash
# The gate step of action.yml, kept in a file so tests/test_action.py runs exactly this script.
# Inputs come from the environment: GOLDEN, RUN or RETRIEVER, BASELINE, CONFIG, KS, OUT, and
# GITHUB_STEP_SUMMARY / GITHUB_OUTPUT as GitHub sets them. Exit: the gate's own code (0, 1 or 2), or
# the code of a report the user asked for that could not be written.
# An input is data, never an option: each goes in as --option=VALUE or after "--", so GOLDEN=--help
# names a file called "--help" instead of printing help.
set -uo pipefail
mkdir -p -- "$OUT"
if ! [[ "${KS:-5}" =~ ^[0-9]+(,[0-9]+)*$ ]]; then
  echo "::error::the action input 'k' must be positive integers separated by commas, got '${KS}'"
  echo "passed=false" >> "$GITHUB_OUTPUT"
  exit 2
fi
if [ -n "${RUN:-}" ] && [ -n "${RETRIEVER:-}" ]; then
  echo "::error::give the action 'run' or 'retriever', not both"
  echo "passed=false" >> "$GITHUB_OUTPUT"
  exit 2
elif [ -n "${RUN:-}" ]; then
  source_args=("--run=$RUN")
elif [ -n "${RETRIEVER:-}" ]; then
  # call the retriever once; the gate and the report both read the run it writes
  if ! ragauge run "--retriever=$RETRIEVER" "--output=$OUT/run.jsonl" -- "$GOLDEN"; then
    status=$?
    echo "passed=false" >> "$GITHUB_OUTPUT"
    exit "$status"
  fi
  source_args=("--run=$OUT/run.jsonl")
else
  echo "::error::the action needs 'run' (a run file) or 'retriever' (a retriever spec)"
  echo "passed=false" >> "$GITHUB_OUTPUT"
  exit 2
fi
config_args=()
if [ -n "${CONFIG:-}" ]; then config_args=("--config=$CONFIG"); fi

ragauge gate "${source_args[@]}" "--baseline=$BASELINE" "${config_args[@]}" --format markdown \
  "--output=$OUT/gate.md" -- "$GOLDEN"
status=$?
if [ -f "$OUT/gate.md" ]; then cat -- "$OUT/gate.md" >> "$GITHUB_STEP_SUMMARY"; fi
if [ "$status" -le 1 ]; then
  # the reports were asked for: one that cannot be written fails the step (the gate's 1 is expected here)
  ragauge gate "${source_args[@]}" "--baseline=$BASELINE" "${config_args[@]}" --format junit \
    "--output=$OUT/gate.xml" -- "$GOLDEN"
  junit=$?
  if [ "$junit" -gt 1 ]; then status=$junit; fi
  ragauge eval "${source_args[@]}" "-k" "$KS" --format html "--output=$OUT/report.html" -- "$GOLDEN"
  html=$?
  if [ "$html" -ne 0 ]; then
    echo "::error::the HTML report could not be written (exit $html)"
    status=$html
  fi
fi
echo "passed=$([ "$status" -eq 0 ] && echo true || echo false)" >> "$GITHUB_OUTPUT"
exit "$status"
