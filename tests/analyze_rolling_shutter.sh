#!/bin/sh
# analyze_rolling_shutter.sh - a camera reading its rows one after another (a phone's rolling
# shutter): rendered at 30 fps with the rows read over the whole period (33.3 ms, karuta-synth
# --readout 1), two takes at the picture's ends: A presses a card of her lower row (the
# bottom rows, seen late) and B sweeps one of his lower row (the top rows, seen early).
# Told the readout (analyze --readout-us, or a calibration made with calibrate
# --readout-us), A's press is within an eighth of a frame of the truth and B's sweep within a
# quarter (timed from its path alone at 30 fps, a sweep is put midway across the card, half
# its way across at 3 m/s is 8.7 ms: this one touched down 3.5 ms after its fingertip
# entered, +6.5 ms); not told, A's press comes out early by more than an eighth (the scene
# needs the correction). The calibration file
# serves as well as --readout-us; summary.json says the readout used; the takes and counts
# are the truth's. Not told, under lamps flickering at 100 Hz, the readout is measured from
# the bands they make across the picture (and none is found with a global shutter); live
# measures it on its first frames and gives analyze's events.
# Usage: analyze_rolling_shutter.sh KARUTA_REF KARUTA_SYNTH
# SPDX-License-Identifier: MIT
set -eu
kr=$1
synth=$2
. "$(dirname "$0")/synth_analyze.sh"
fail() { echo "FAIL: $*"; exit 1; }
cat > "$tmp/rows.json" <<'E'
{
  "name": "rolling_rows",
  "description": "Two takes at the ends of the picture: A presses a card of her lower row (the bottom rows), B sweeps one of his lower row (the top rows).",
  "seed": 5,
  "players": {"A": {"name": "Sato", "hand": "right", "skin": "light"},
              "B": {"name": "Ito", "hand": "right", "skin": "medium"}},
  "layout": {"per_side": 25,
             "place": [{"card": 31, "owner": "A", "row": "lower", "x_mm": -200},
                       {"card": 41, "owner": "B", "row": "lower", "x_mm": 150}]},
  "readings": [
    {"card": 31, "kami_s": 1.0,
     "actions": [{"do": "press", "player": "A", "card": 31, "t": 0.40}]},
    {"card": 41, "kami_s": 6.5,
     "actions": [{"do": "sweep", "player": "B", "card": 41, "t": 0.40, "speed": 3.0, "dir": "left"}]}
  ]
}
E
synth_analyze "$tmp/rows.json" --fps 30 --readout 1 --duration 8.5
readout=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["readout_us"])' "$tmp/s/meta.json")
[ "$readout" = 33333 ] || fail "the render's readout is $readout us, not 33333"
"$kr" analyze "$tmp/s/video.mp4" --match "$tmp/s/match.jsonl" --readout-us "$readout" --out "$tmp/t" 2>"$tmp/terr" ||
  { cat "$tmp/terr"; fail "analyze --readout-us failed"; }
grep -q '"readout_us": 33333' "$tmp/t/summary.json" || fail "summary.json does not give the readout used"
grep -q '"readout_us": 0' "$tmp/o/summary.json" || fail "summary.json without a readout does not say 0"
# the readout kept in a calibration gives the same
"$kr" calibrate "$tmp/s/video.mp4" --readout-us "$readout" --no-overlay -o "$tmp/calib.json" >/dev/null 2>&1 ||
  fail "calibrate --readout-us failed"
grep -q '"readout_us":[[:space:]]*33333' "$tmp/calib.json" || fail "the calibration does not keep the readout"
"$kr" analyze "$tmp/s/video.mp4" --match "$tmp/s/match.jsonl" --calib "$tmp/calib.json" --out "$tmp/c" 2>/dev/null ||
  fail "analyze --calib with a readout failed"
grep -q '"readout_us": 33333' "$tmp/c/summary.json" || fail "the calibration's readout was not used"
python3 - "$tmp" <<'E' || exit 1
import json, sys
tmp = sys.argv[1]
def touches(path):
    return {(e["player"], e["card"]): e["t_us"] for e in map(json.loads, open(path)) if e.get("type") == "touch"}
truth = touches(tmp + "/s/truth.jsonl")
told, blind, calib = (touches(tmp + "/%s/events.jsonl" % d) for d in ("t", "o", "c"))
eighth = 1e6 / 30 / 8
for k, t in sorted(truth.items()):
    print("%s card %d: told %+.1f ms, not told %+.1f ms" % (k + ((told.get(k, t) - t) / 1e3, (blind.get(k, t) - t) / 1e3)),
          end="; ")
    share, what = (1, "an eighth") if k == ("A", 31) else (2, "a quarter")  # B's card 41: a sweep
    for how, got in (("--readout-us", told), ("the calibration's readout", calib)):
        if k not in got or abs(got[k] - t) > share * eighth:
            sys.exit("FAIL: with %s %s's touch of card %d is missing or off by more than %s of a frame"
                     % ((how,) + k + (what,)))
if not blind.get(("A", 31), 0) < truth[("A", 31)] - eighth:
    sys.exit("FAIL: the scene does not need the readout: A's press not told is within an eighth of a frame")
E
python3 - "$tmp/t/rulings.jsonl" "$tmp/truth_rulings.jsonl" <<'E' || exit 1
import json, sys
def takes(path):
    return [(r["seq"], (r["take"] or {}).get("player"), r["faults"], r["counts"]) for r in map(json.loads, open(path))
            if r.get("type") == "ruling"]
if takes(sys.argv[1]) != takes(sys.argv[2]):
    sys.exit("FAIL: the takes, faults or counts told the readout differ from the truth's")
E
# not told, under lamps flickering by 6 %: measured from the bands they make (a global
# shutter's picture, under the same lamps, has none)
python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); s["look"] = {"flicker": 0.06}; json.dump(s, open(sys.argv[2], "w"))' \
  "$tmp/rows.json" "$tmp/lamps.json"
for ro in 1 0; do
  "$synth" "$tmp/lamps.json" -o "$tmp/l$ro" --fps 30 --readout $ro --duration 3 >/dev/null 2>&1 || fail "render with lamps"
  "$kr" analyze "$tmp/l$ro/video.mp4" --match "$tmp/l$ro/match.jsonl" --out "$tmp/lo$ro" 2>"$tmp/lerr$ro" ||
    { cat "$tmp/lerr$ro"; fail "analyze under lamps failed"; }
done
python3 - "$tmp" <<'E' || exit 1
import json, sys
cal = [json.load(open(sys.argv[1] + "/lo%d/summary.json" % ro))["calibration"] for ro in (1, 0)]
if cal[0]["readout_from"] != "flicker" or abs(cal[0]["readout_us"] - 33333) > 1000:
    sys.exit("FAIL: the lamps' bands did not give the readout: %s" % cal[0])
if cal[1]["readout_from"] != "none" or cal[1]["readout_us"] != 0:
    sys.exit("FAIL: a global shutter under the lamps was given a readout: %s" % cal[1])
print("lamps: measured %d us" % cal[0]["readout_us"], end="; ")
E
grep -q "l1/video.mp4: rolling shutter" "$tmp/lerr1" || fail "the measured readout is not said: $(cat "$tmp/lerr1")"
# live measures it on its first frames too (the same footage through GStreamer): the same
# readout, and the same events as analyze's
if gst-inspect-1.0 avdec_h264 >/dev/null 2>&1; then
  export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/browser/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
  for ro in 1 0; do
    "$kr" live --source "filesrc location=$tmp/l$ro/video.mp4 ! decodebin" --match "$tmp/l$ro/match.jsonl" \
      --out "$tmp/live$ro" --exit-on-eof --no-sync 2>"$tmp/liverr$ro" || { cat "$tmp/liverr$ro"; fail "live failed"; }
  done
  python3 - "$tmp" <<'E' || exit 1
import json, sys
tmp = sys.argv[1]
for ro, want in ((1, "flicker"), (0, "none")):
    s = json.load(open(tmp + "/live%d/summary.json" % ro))
    if s["readout_from"] != want or (ro and abs(s["readout_us"] - 33333) > 1000) or (not ro and s["readout_us"]):
        sys.exit("FAIL: live on the %s shutter: readout %s from %s" % (("global", "rolling")[ro], s["readout_us"],
                 s["readout_from"]))
    if open(tmp + "/live%d/events.jsonl" % ro).read() != open(tmp + "/lo%d/events.jsonl" % ro).read():
        sys.exit("FAIL: live's events differ from analyze's (%s shutter)" % ("global", "rolling")[ro])
print("live: measured %d us" % json.load(open(tmp + "/live1/summary.json"))["readout_us"], end="; ")
E
fi
echo "ok: rolling shutter of $readout us corrected"
