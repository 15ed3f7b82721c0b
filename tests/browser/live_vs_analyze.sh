#!/bin/sh
# live_vs_analyze.sh - the same H.264 footage through `karuta-ref analyze` and through
# `karuta-ref live` (the file played at real speed by GStreamer, with sync) must give
# the same events and rulings. The first SECONDS of the video are re-encoded to H.264
# (640x360, yuv420p) to keep the test short. GStreamer's libav decoder gives the same YUV
# as FFmpeg's, and live makes BGR from it with FFmpeg's swscale exactly as analyze's
# reader does (kr_capture ff_convert), so both run kr_pipe on identical pixels: the
# events.jsonl files must be identical line for line, the rulings the same, and both
# summaries must put the camera at the same place. (One thing differs by design:
# analyze's reader tells the detector which frames are keyframes (kr_frame_t.key),
# GStreamer's decoded buffers do not say; a press whose landing's last change fell on a
# keyframe would be timed apart. These 12 s have none.)
# Then the same with the reading records appended to the match file while live runs.
# Usage: live_vs_analyze.sh KARUTA_REF [VIDEO MATCH.jsonl [SECONDS]]   (exit 77: skipped)
# SPDX-License-Identifier: MIT
set -eu
bin=$1
video=${2:-samples/demo/video.mp4}
match=${3:-samples/demo/match.jsonl}
secs=${4:-12}
[ -f "$video" ] || { echo "SKIP: no footage at $video"; exit 77; }
command -v ffmpeg >/dev/null 2>&1 || { echo "SKIP: ffmpeg is not installed"; exit 77; }
gst-inspect-1.0 avdec_h264 >/dev/null 2>&1 || { echo "SKIP: GStreamer avdec_h264 (gstreamer1.0-libav) missing"; exit 77; }
# under ASan: GLib/GStreamer keep a few allocations for the process lifetime
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ffmpeg -loglevel error -i "$video" -t "$secs" -vf scale=640:360 -c:v libx264 -preset veryfast -crf 20 \
  -pix_fmt yuv420p -an "$tmp/v.mp4"
"$bin" analyze "$tmp/v.mp4" --match "$match" --out "$tmp/an" 2>"$tmp/an.err" || { cat "$tmp/an.err"; exit 1; }
"$bin" live --source "filesrc location=$tmp/v.mp4 ! decodebin" --match "$match" --out "$tmp/live" \
  --exit-on-eof 2>"$tmp/live.err" || { cat "$tmp/live.err"; exit 1; }
if ! cmp -s "$tmp/an/events.jsonl" "$tmp/live/events.jsonl"; then
  echo "FAIL: events.jsonl differ (analyze <, live >):"
  diff "$tmp/an/events.jsonl" "$tmp/live/events.jsonl" | head -20
  exit 1
fi
echo "ok: the same $(wc -l < "$tmp/an/events.jsonl") events"
python3 - "$tmp/an/rulings.jsonl" "$tmp/live/rulings.jsonl" "$tmp/live/summary.json" "$tmp/live/events.jsonl" \
  "$tmp/an/summary.json" <<'PY'
import json, sys
def load(p):
    return [json.loads(l) for l in open(p, encoding='utf-8') if l.strip()]
an, lv = load(sys.argv[1]), load(sys.argv[2])
lv_ev = load(sys.argv[4])
summ = json.load(open(sys.argv[3]))
print('analyze: %d records, live: %d records; live max lag %.0f ms' % (len(an), len(lv), summ['max_lag_ms']))
TOL = 20000  # us: one frame at 50-60 fps, and the sub-frame estimate
def key(r):
    if r['type'] == 'match_end':
        return ('end', r.get('winner'), json.dumps(r.get('counts'), sort_keys=True))
    t = r.get('take') or {}
    return (r['seq'], r['card'], r.get('location'), r.get('established'), t.get('player'), t.get('how'),
            json.dumps([(f['player'], f.get('territories')) for f in r.get('faults', [])]),
            r.get('double_fault'), json.dumps(r.get('voided'), sort_keys=True),
            json.dumps(r.get('send'), sort_keys=True), json.dumps(r.get('counts'), sort_keys=True))
fails = 0
if len(an) != len(lv):
    print('FAIL: %d rulings from analyze, %d from live' % (len(an), len(lv)))
    fails += 1
for a, l in zip(an, lv):
    if key(a) != key(l):
        print('FAIL: differ:\n  analyze %s\n  live    %s' % (json.dumps(a, ensure_ascii=False), json.dumps(l, ensure_ascii=False)))
        fails += 1
        continue
    ta, tl = (a.get('take') or {}).get('t_us'), (l.get('take') or {}).get('t_us')
    if ta is not None and abs(ta - tl) > TOL:
        print('FAIL: reading %s take at %d us (analyze) vs %d us (live)' % (a.get('seq'), ta, tl))
        fails += 1
# the write latency (summary.json record_latency_ms): every timed line of events.jsonl
# counted once; per record the pipeline latency (its releasing frame's capture -> flushed)
# is at most the event latency (its own frame's capture -> flushed) and at most the time
# to durable, so each quantile is too
rl = summ['record_latency_ms']
timed = sum(1 for r in lv_ev if 't_us' in r)
g = {x['records']: x for x in rl['groups']}
counted = g['observations']['n'] + g['log records']['n'] + rl['released_at_end']
if counted != timed:
    print('FAIL: record_latency_ms counts %d records, events.jsonl has %d timed lines' % (counted, timed))
    fails += 1
for x in rl['groups']:
    for q in ('p50', 'p95', 'max'):
        if x['n'] and not (x['pipeline'][q] <= x['event'][q] + 0.01 and x['pipeline'][q] <= x['pipeline_durable'][q] + 0.01):
            print('FAIL: %s %s: pipeline %.2f ms, event %.2f ms, durable %.2f ms' %
                  (x['records'], q, x['pipeline'][q], x['event'][q], x['pipeline_durable'][q]))
            fails += 1
# where the camera stands: live calibrates from its first frames, analyze from the file's;
# the same footage puts the camera at the same place (analyze_camera_files.sh checks
# analyze's against the render's camera)
ca = json.load(open(sys.argv[5]))['calibration']['camera']
cl = summ.get('camera')
if not ca or not cl or ((ca['x_mm'] - cl['x_mm']) ** 2 + (ca['y_mm'] - cl['y_mm']) ** 2) ** 0.5 > 5 or \
        abs(cl['height_mm'] / ca['height_mm'] - 1) > 0.01:
    print('FAIL: the camera: analyze %s, live %s' % (ca, cl))
    fails += 1
if fails:
    sys.exit(1)
print('ok: the same %d rulings; write latency of %d records, observations (pipeline) p50 %s ms' %
      (len(an), counted, g['observations']['pipeline']['p50']))
PY

# The reader's records arriving while live runs: the match file starts with only the
# match and layout records; each reading record is appended a second before its time
# (wall time since start: the source clock of a file played at real speed is never
# ahead of it), those past the clip's end together near its end. Same files as analyze.
grep -E '"type": *"(match|layout)"' "$match" > "$tmp/grow.jsonl"
"$bin" live --source "filesrc location=$tmp/v.mp4 ! decodebin" --match "$tmp/grow.jsonl" --out "$tmp/grow" \
  --exit-on-eof 2>"$tmp/grow.err" &
pid=$!
python3 - "$match" "$tmp/grow.jsonl" "$secs" <<'PY'
import json, sys, time
t0, secs = time.time(), float(sys.argv[3])
lines = [l.rstrip('\n') for l in open(sys.argv[1], encoding='utf-8') if l.strip()]
later = [l for l in lines if json.loads(l)['type'] not in ('match', 'layout')]
with open(sys.argv[2], 'a', encoding='utf-8') as f:
    for l in later:
        t = min(json.loads(l).get('t_us', 0) / 1e6 - 1.0, secs - 3.0)
        if t0 + t > time.time():
            time.sleep(t0 + t - time.time())
        f.write(l + '\n')
        f.flush()
PY
wait $pid || { echo "FAIL: live with a growing match file"; cat "$tmp/grow.err"; exit 1; }
for f in events.jsonl rulings.jsonl; do
  if ! cmp -s "$tmp/an/$f" "$tmp/grow/$f"; then
    echo "FAIL: $f differs when the reading records arrive while running (analyze <, live >):"
    diff "$tmp/an/$f" "$tmp/grow/$f" | head -20
    exit 1
  fi
done
echo "ok: reading records arriving while running give the same events and rulings"
