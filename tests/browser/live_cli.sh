#!/bin/sh
# live_cli.sh - `karuta-ref live` faults: a source that cannot open is reported and
# retried while the run goes on; SIGTERM ends it cleanly with complete files (every
# line whole, summary.json written); a malformed pipeline or missing options end at
# once with one line (exit 1 / 2). Usage: live_cli.sh KARUTA_REF
# SPDX-License-Identifier: MIT
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
export LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
gst-inspect-1.0 filesrc >/dev/null 2>&1 || { echo "SKIP: GStreamer is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
cp "$here/fixture/events.jsonl" "$tmp/match.jsonl"
"$bin" live --source "filesrc location=$tmp/none.mp4 ! decodebin" --match "$tmp/match.jsonl" \
  --out "$tmp/out" --retry-max-s 0.5 2>"$tmp/err" &
pid=$!
sleep 3
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: SIGTERM: exit $rc"; cat "$tmp/err"; fails=$((fails + 1)); }
n=$(grep -c "source failed" "$tmp/err")
[ "$n" -ge 2 ] || { echo "FAIL: the source was not retried ($n attempts reported)"; cat "$tmp/err"; fails=$((fails + 1)); }
grep -q '"ended": "signal"' "$tmp/out/summary.json" 2>/dev/null || { echo "FAIL: no complete summary.json"; fails=$((fails + 1)); }
python3 - "$tmp/out/events.jsonl" "$tmp/out/rulings.jsonl" "$tmp/match.jsonl" <<'PY' || fails=$((fails + 1))
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]   # every line complete JSON
ru = [json.loads(l) for l in open(sys.argv[2])]
inp = [json.loads(l) for l in open(sys.argv[3]) if l.strip()]
readings = [r for r in inp if r['type'] in ('kami_start', 'kimariji', 'shimo_start', 'reading_void')]
got = [r for r in ev if r['type'] in ('kami_start', 'kimariji', 'shimo_start', 'reading_void')]
if len(got) != len(readings):
    sys.exit('FAIL: %d reading records written, %d in the match log' % (len(got), len(readings)))
if len([r for r in ru if r['type'] == 'ruling']) != len({r['seq'] for r in readings}):
    sys.exit('FAIL: %d rulings for %d readings' % (len(ru), len({r['seq'] for r in readings})))
print('ok: %d events, %d rulings, all lines complete' % (len(ev), len(ru)))
PY
"$bin" live --source "no such ! element" --match "$tmp/match.jsonl" --out "$tmp/o2" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] || { echo "FAIL: bad pipeline: exit $rc"; cat "$tmp/err"; fails=$((fails + 1)); }
"$bin" live --source x 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || { echo "FAIL: missing options: exit $rc"; fails=$((fails + 1)); }
# usage errors: one line naming what is wrong, exit 2, nothing written
for args in "--frobnicate:unknown option '--frobnicate'" "stray:unexpected argument 'stray'" \
            "--http:--http needs a value" "--http 70000:--http: bad value '70000'"; do
  a=${args%%:*}; want=${args#*:}
  # shellcheck disable=SC2086
  "$bin" live --source x --match "$tmp/match.jsonl" --out "$tmp/o3" $a 2>"$tmp/err"; rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l < "$tmp/err")" -ne 1 ] || ! grep -qF -- "$want" "$tmp/err" || [ -e "$tmp/o3" ]; then
    echo "FAIL: live ... $a: exit $rc, want 2 and one line with: $want"; cat "$tmp/err"; fails=$((fails + 1))
  fi
done
[ "$fails" -eq 0 ] || exit 1
echo "ok: live reports and retries a failed source, ends cleanly on SIGTERM, refuses bad options"
