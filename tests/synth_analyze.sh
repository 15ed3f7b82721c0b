# synth_analyze.sh - sourced by the end-to-end tests that render a scenario and analyze it
# (analyze_variable_rate.sh, analyze_slow_motion.sh): with $kr (karuta-ref) and $synth
# (karuta-synth) set, `synth_analyze SCENARIO.json [KARUTA_SYNTH OPTIONS...]` renders into
# $tmp/s, analyzes into $tmp/o (stderr shown and the test failed if analyze fails) and
# rules the truth into $tmp/truth_rulings.jsonl; $tmp is made here and removed on exit.
# SPDX-License-Identifier: MIT
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
synth_analyze() {
  scenario=$1
  shift
  "$synth" "$scenario" -o "$tmp/s" "$@" >/dev/null 2>&1
  "$kr" analyze "$tmp/s/video.mp4" --match "$tmp/s/match.jsonl" --out "$tmp/o" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
  "$kr" rule "$tmp/s/truth.jsonl" > "$tmp/truth_rulings.jsonl"
}
