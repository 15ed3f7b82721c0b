#!/bin/sh
# analyze_interrupt.sh - SIGINT or SIGTERM while analyze runs its frames: exit 1, one line
# on stderr that says so, and nothing in the output folder (no outputs, no temporaries).
# Usage: analyze_interrupt.sh KARUTA_REF   (run from the source root: uses samples/demo)
# SPDX-License-Identifier: MIT
set -eu
kr=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
for sig in INT TERM; do
  out=$tmp/out-$sig
  # (a shell starts background jobs with SIGINT ignored, which analyze respects: exec it
  # with SIGINT at its default, as from a terminal)
  python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
    "$kr" analyze samples/demo/video.mp4 --match samples/demo/match.jsonl --out "$out" 2>"$tmp/err-$sig" &
  pid=$!
  # the temporaries appear just before the frames run: the handler is in place by then
  n=0
  while ! ls "$out"/events.jsonl.tmp.* >/dev/null 2>&1; do
    n=$((n + 1))
    if [ $n -gt 3000 ] || ! kill -0 $pid 2>/dev/null; then echo "FAIL ($sig): analyze never started its frames"; cat "$tmp/err-$sig"; exit 1; fi
    sleep 0.01
  done
  kill -$sig $pid
  rc=0
  wait $pid || rc=$?
  if [ $rc -ne 1 ]; then echo "FAIL ($sig): exit status $rc, want 1"; fails=1; fi
  if [ "$(wc -l < "$tmp/err-$sig")" -ne 1 ] || ! grep -q "interrupted by SIG$sig" "$tmp/err-$sig"; then
    echo "FAIL ($sig): want one line saying it was interrupted, got:"; cat "$tmp/err-$sig"; fails=1
  fi
  left=$(ls -A "$out" 2>/dev/null || true) # (the folder made by the run is taken away too)
  if [ -n "$left" ]; then echo "FAIL ($sig): files left in the output folder: $left"; fails=1; fi
done
[ $fails -eq 0 ] && echo "ok: SIGINT and SIGTERM end analyze with exit 1, one line, nothing written"
exit $fails
