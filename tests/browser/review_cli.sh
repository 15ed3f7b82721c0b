#!/bin/sh
# review_cli.sh - `karuta-ref review` refuses bad input with one line and exit 1 (2 for
# usage) and leaves nothing behind; --page-only rebuilds index.html from a folder.
# Usage: review_cli.sh KARUTA_REF
# SPDX-License-Identifier: MIT
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
expect() { # expect CODE WHAT -- command...
  code=$1; what=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
  lines=$(wc -l < "$tmp/err")
  if [ "$rc" -ne "$code" ] || [ "$lines" -lt 1 ]; then
    echo "FAIL: $what: exit $rc (want $code), stderr:"; cat "$tmp/err"; fails=$((fails + 1))
  else
    echo "ok: $what: $(tail -1 "$tmp/err")"
  fi
}
printf '{"type":"match","format":"karuta-match/1"}\n' > "$tmp/m.jsonl"
expect 1 "missing video" -- "$bin" review "$tmp/none.mp4" --match "$tmp/m.jsonl" --out "$tmp/o1"
[ -e "$tmp/o1" ] && { echo "FAIL: $tmp/o1 left behind"; fails=$((fails + 1)); }
expect 1 "missing match log" -- "$bin" review "$tmp/m.jsonl" --match "$tmp/none.jsonl" --out "$tmp/o2"
[ -e "$tmp/o2" ] && { echo "FAIL: $tmp/o2 left behind"; fails=$((fails + 1)); }
expect 1 "output under a file" -- "$bin" review "$tmp/m.jsonl" --match "$tmp/m.jsonl" --out "$tmp/m.jsonl/x"
printf 'not a video\n' > "$tmp/v.mp4"
mkdir "$tmp/o3"
expect 1 "not a video" -- "$bin" review "$tmp/v.mp4" --match "$tmp/m.jsonl" --out "$tmp/o3"
[ -z "$(ls -A "$tmp/o3")" ] || { echo "FAIL: files left in $tmp/o3: $(ls -A "$tmp/o3")"; fails=$((fails + 1)); }
expect 2 "unknown option" -- "$bin" review --frobnicate
expect 2 "negative window" -- "$bin" review "$tmp/v.mp4" --match "$tmp/m.jsonl" --out "$tmp/o4" --before -1
# --page-only: the page from an existing folder; a broken rulings file is named with its line
cp "$here/fixture/events.jsonl" "$here/fixture/rulings.jsonl" "$tmp/o3/"
"$bin" review --page-only --out "$tmp/o3" || { echo "FAIL: --page-only"; fails=$((fails + 1)); }
for seq in $(python3 -c 'import json,sys; print(" ".join(str(json.loads(l)["seq"]) for l in open(sys.argv[1]) if "\"ruling\"" in l))' "$tmp/o3/rulings.jsonl"); do
  grep -q "data-ruling-seq=\"$seq\"" "$tmp/o3/index.html" || { echo "FAIL: ruling $seq not on the page"; fails=$((fails + 1)); }
done
# with a summary, what it says of the footage is on the page; a broken one is named with its line
printf '{"fps": 60, "light": {"flicker_rms": 0.03, "steadied_frames": 12}, "noise": {"noisy": true, "level_max": 17, "noisy_frames": 40}}\n' > "$tmp/o3/summary.json"
"$bin" review --page-only --out "$tmp/o3" && grep -q 'id="footage"' "$tmp/o3/index.html" &&
  grep -q 'The picture is noisy (the still mat changes by up to 17 levels' "$tmp/o3/index.html" ||
  { echo "FAIL: --page-only does not say what summary.json found"; fails=$((fails + 1)); }
printf '{"fps": 60,\n "light": oops}\n' > "$tmp/o3/summary.json"
expect 1 "broken summary" -- "$bin" review --page-only --out "$tmp/o3"
grep -q "summary.json:2:" "$tmp/err" || { echo "FAIL: the error does not name summary.json:2"; fails=$((fails + 1)); }
rm "$tmp/o3/summary.json"
printf '{"type":"ruling","seq":1}\n{oops\n' > "$tmp/o3/rulings.jsonl"
expect 1 "broken rulings" -- "$bin" review --page-only --out "$tmp/o3"
grep -q "rulings.jsonl:2:" "$tmp/err" || { echo "FAIL: the error does not name rulings.jsonl:2"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] || exit 1
echo "ok: review refuses bad input cleanly"
