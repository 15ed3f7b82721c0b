#!/bin/sh
# analyze_debug_span.sh - --debug-span writes the tracker overlays of exactly the frames
# whose time lies in the span (samples/demo: frame i at i/60 s), and a span that is not
# FROM[,TO] in seconds with FROM <= TO is refused with exit 2 and one line naming it.
# Usage: analyze_debug_span.sh KARUTA_REF   (run from the source root)
# SPDX-License-Identifier: MIT
set -eu
kr=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
"$kr" analyze samples/demo/video.mp4 --match samples/demo/match.jsonl --out "$tmp/out" \
  --debug-dir "$tmp/png" --debug-every 1 --debug-span 2.0,2.1 2>"$tmp/err" || {
  echo "FAIL: analyze with --debug-span failed:"; cat "$tmp/err"; exit 1; }
# 2.0 s ... 2.1 s at 60 fps: frames 120 ... 126
got=$(cd "$tmp/png" && ls | tr '\n' ' ')
want="f000120.png f000121.png f000122.png f000123.png f000124.png f000125.png f000126.png "
if [ "$got" != "$want" ]; then echo "FAIL: overlays written: $got, want $want"; fails=1; fi
for bad in 3,2 a,2 1,x ""; do
  rc=0
  "$kr" analyze samples/demo/video.mp4 --match samples/demo/match.jsonl --out "$tmp/bad" \
    --debug-dir "$tmp/png2" --debug-span "$bad" 2>"$tmp/err" || rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l < "$tmp/err")" -ne 1 ] || ! grep -q -- "--debug-span" "$tmp/err"; then
    echo "FAIL: --debug-span '$bad': exit $rc, want 2 and one line naming the option:"; cat "$tmp/err"; fails=1
  fi
  if [ -e "$tmp/bad" ] || [ -e "$tmp/png2" ]; then echo "FAIL: --debug-span '$bad' wrote output"; fails=1; fi
done
[ $fails -eq 0 ] && echo "ok: --debug-span writes the frames of its span; bad spans refused"
exit $fails
