# synth_analyze.sh - sourced by the end-to-end tests that render a scenario and analyze it
# (analyze_variable_rate.sh, analyze_slow_motion.sh): with $kr (karuta-ref) and $synth
# (karuta-synth) set, `synth_analyze SCENARIO.json [KARUTA_SYNTH OPTIONS...]` renders into
# $tmp/s, analyzes into $tmp/o (stderr shown and the test failed if analyze fails) and
# rules the truth into $tmp/truth_rulings.jsonl; $tmp is made here and removed on exit.
# `synth_said SENTENCE NAME SCENARIO "COMMON OPTIONS" OPTIONS...`: rendered with both option
# lists, analyze's stderr says SENTENCE (then in $tmp/NAME, the render in $tmp/s_NAME, the
# truth's rulings $tmp/truth_NAME.jsonl); rendered with the common ones alone ($tmp/o,
# $tmp/s), it does not. Needs fail().
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
synth_said() {
  said=$1 name=$2 scenario=$3 common=$4
  shift 4
  # shellcheck disable=SC2086 # the common options are words
  synth_analyze "$scenario" $common "$@"
  grep -q "video.mp4: $said" "$tmp/err" || fail "not said ($said): $(cat "$tmp/err")"
  mv "$tmp/o" "$tmp/$name"
  mv "$tmp/s" "$tmp/s_$name"
  mv "$tmp/truth_rulings.jsonl" "$tmp/truth_$name.jsonl"
  # shellcheck disable=SC2086
  synth_analyze "$scenario" $common
  ! grep -q "$said" "$tmp/err" || fail "said without $*: $(cat "$tmp/err")"
}
