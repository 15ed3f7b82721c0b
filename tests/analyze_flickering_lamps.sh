#!/bin/sh
# analyze_flickering_lamps.sh - lamps flickering by 5 % at 100 Hz (old tubes, cheap LED
# drivers), seen at 60 fps with a global shutter: every frame is lit a little brighter or
# darker than the last, and a hand lying still on a card changes by more than the picture's
# noise. analyze measures the swing, steadies the picture and says so (a warning,
# summary.json's light), and A's press (samples/scenarios/dead_fault.json, a fault in B's
# territory) is timed within half a frame; under the usual lamps (1.2 %) the picture is
# left as it is. live, given the same footage through GStreamer, says so as it starts.
# Usage: analyze_flickering_lamps.sh KARUTA_REF KARUTA_SYNTH
# SPDX-License-Identifier: MIT
set -eu
kr=$1
synth=$2
. "$(dirname "$0")/synth_analyze.sh"
fail() { echo "FAIL: $*"; exit 1; }
synth_said "the light flickers" flicker samples/scenarios/dead_fault.json "--fps 60 --duration 3" --flicker 0.05
python3 - "$tmp" <<'E' || exit 1
import json, sys
tmp = sys.argv[1]
def touch(path):
    t = [e for e in map(json.loads, open(path)) if e.get("type") == "touch" and e["player"] == "A" and e["card"] == 5]
    return t[0] if t else None
truth = touch(tmp + "/s_flicker/truth.jsonl")["t_us"]
half = 1e6 / 60 / 2
for run, want in (("flicker", True), ("o", False)):
    light = json.load(open(tmp + "/%s/summary.json" % run))["light"]
    if (light["steadied_frames"] > 0) != want:
        sys.exit("FAIL: %s: light %s" % (run, light))
    got = touch(tmp + "/%s/events.jsonl" % run)
    if got is None or abs(got["t_us"] - truth) > half:
        sys.exit("FAIL: %s: A's press of card 5 is %s (truth %d us)" % (run, got and got["t_us"], truth))
    print("%s: flicker %.1f %%, steadied %d frames, press %+.1f ms" % (run, 100 * light["flicker_rms"],
          light["steadied_frames"], (got["t_us"] - truth) / 1e3), end="; ")
E
# live (the same footage played by GStreamer) steadies it too, and says so
if gst-inspect-1.0 avdec_h264 >/dev/null 2>&1; then
  export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/browser/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
  "$kr" live --source "filesrc location=$tmp/s_flicker/video.mp4 ! decodebin" --match "$tmp/s_flicker/match.jsonl" --out "$tmp/live" \
    --exit-on-eof --no-sync 2>"$tmp/lerr" || { cat "$tmp/lerr"; fail "live failed"; }
  grep -q "live: the light flickers" "$tmp/lerr" || fail "live does not say the light flickers: $(cat "$tmp/lerr")"
  grep -q '"steadied_frames": [1-9]' "$tmp/live/summary.json" || fail "live's summary.json does not say the frames steadied"
  echo "live: said"
fi
echo "ok"
