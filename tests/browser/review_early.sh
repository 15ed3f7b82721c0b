#!/bin/sh
# review_early.sh - `karuta-ref review` makes its clips beside analyze, as the rulings come,
# and keeps them only when the final files agree: on the bundled demo clips are made while
# analyze runs (--timings says how many), and each MP4 shows frame for frame the pictures
# of the one made after analyze (--clips-after; the files themselves may differ in x264's
# note of its thread count: the last clip left is encoded with automatic threads) and
# each contact sheet is byte for byte the same; analyze's files are the same either way.
# Usage: review_early.sh KARUTA_REF
# SPDX-License-Identifier: MIT
set -u
bin=$1
command -v ffmpeg >/dev/null 2>&1 || { echo "SKIP: ffmpeg is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
run() { # run DIR [OPTION]
  d=$1; shift
  "$bin" review samples/demo/video.mp4 --match samples/demo/match.jsonl --out "$tmp/$d" --before 0.25 --after 0.35 \
    --timings "$@" >"$tmp/$d.out" 2>"$tmp/$d.err" || { rc=$?; cat "$tmp/$d.err"; fail "review $* exited $rc"; exit 1; }
}
run early
run after --clips-after
line=$(grep '^review: [0-9]* clips' "$tmp/early.err")
n=$(echo "$line" | sed -n 's/^review: \([0-9]*\) clips.*/\1/p')
made=$(echo "$line" | sed -n 's/.* \([0-9]*\) made while it ran.*/\1/p')
[ -n "$n" ] && [ "$n" -ge 1 ] || fail "no clips: $line"
# (a ruling analyze gives only at its very end may be cut after it: at least one beside it)
[ -n "$made" ] && [ "$made" -ge 1 ] && [ "$made" -le "$n" ] || fail "$made of $n clips made while analyze ran: $line"
grep -q ' 0 made while it ran' "$tmp/after.err" || fail "--clips-after: $(grep '^review: [0-9]* clips' "$tmp/after.err")"
for f in events.jsonl rulings.jsonl; do
  cmp -s "$tmp/early/$f" "$tmp/after/$f" || fail "$f differs"
done
k=0
pictures() { # the decoded frames' checksums and times (framemd5 without its header)
  ffmpeg -v error -i "$1" -f framemd5 - 2>/dev/null | grep -v '^#'
}
for a in "$tmp"/after/clips/seq*.mp4 "$tmp"/after/clips/seq*.png; do
  [ -e "$a" ] || continue
  b=$tmp/early/clips/$(basename "$a")
  case $a in
    *.mp4) pa=$(pictures "$a"); pb=$(pictures "$b")
           [ -n "$pa" ] && [ "$pa" = "$pb" ] || fail "$(basename "$a") shows other frames than the one made after analyze" ;;
    *) cmp -s "$a" "$b" || fail "$(basename "$a") differs from the one made after analyze" ;;
  esac
  k=$((k + 1))
done
[ "$k" -eq $((2 * n)) ] || fail "$k clip files after analyze, expected $((2 * n))"
[ "$(ls "$tmp/early/clips" | wc -l)" = "$(ls "$tmp/after/clips" | wc -l)" ] || fail "the clip folders differ: $(ls "$tmp/early/clips")"
[ "$fails" -eq 0 ] || { cat "$tmp/early.err"; exit 1; }
echo "ok: $n clips made beside analyze, each showing the same frames as made after it"
