#!/usr/bin/env bash
# tools/eval_events.sh [--fps "30 60 120"] [--work DIR] [--holdout] [--no-render] [--results FILE]
#                      [--lag] [--phase F] [--look-seed N] [--jitter F] [--drop F]
#                      [--ramp FROM:TO:FPS[:EASE]] [--readout F] [--flicker F] [--flicker-wave W]
#                      [--flicker-hz F] [--shutter F] [--gop S] [--bframes N] [--noise F] [--size WxH] [--told-readout]
#                      [--out-name NAME] [--skip NAME]... [NAME...]
#   Renders synthetic scenarios (karuta-synth, cached in WORK/FPS/NAME), runs
#   `karuta-ref analyze` on each, compares with the truth (tools/eval_events.py) and
#   prints a markdown table per frame rate (held-out scenarios in their own table), then
#   each ruling flagged without need with the review reasons it gives.
#   Builds into $KR_BUILD (default build). Default WORK: out/eval. --no-render: scenarios
#   not rendered yet are left out (a shared cache being filled by someone else). --results:
#   name of the per-rate results file in WORK/FPS (default results.jsonl). --lag: also runs
#   tools/event_lag on each scenario (WORK/FPS/lag.jsonl) and prints how long after its time
#   each observation was released (newest frame's time minus its t_us), all scenarios pooled.
#   --phase F: render with every action moved F (0..1) of a frame period later (karuta-synth
#   --phase), so contacts written on round times fall between frames; use its own WORK.
#   --look-seed N: render with karuta-synth --look-seed N: the same layout and actions under
#   the skins, sleeves, camera, light and tatami the seed N draws for what each scenario
#   leaves unset; use its own WORK.
#   --jitter F, --drop F: render a variable-rate file (karuta-synth --jitter, --drop: frame
#   times moved by up to F of a period, a share F of the frames left out); use its own WORK.
#   --ramp FROM:TO:FPS[:EASE]: render with a slow-motion ramp (karuta-synth --ramp: frames at
#   FPS from FROM to TO seconds, real-time presentation times); use its own WORK.
#   --readout F: render with a rolling shutter reading the rows over F (0..1) of a period
#   (karuta-synth --readout); --flicker F: lamps flickering by F (karuta-synth --flicker), so
#   that analyze can measure the readout from their bands; --flicker-wave W: the lamps'
#   waveform, sine or square (lamps that switch; karuta-synth --flicker-wave); --flicker-hz
#   F: their frequency (karuta-synth --flicker-hz: 120 where the mains run at 60 Hz); --shutter F:
#   each frame's exposure, a share of the period (karuta-synth --shutter); --gop S: the
#   video's keyframe interval in seconds (karuta-synth --gop; the renders' default 2 s puts
#   a keyframe 50 ms before most scenarios' first contacts); --bframes N: B-frames between
#   the video's references (karuta-synth --bframes; 0 as most phones record, the renders'
#   default the encoder preset's 3); --noise F: the sensor's noise, grey levels (karuta-synth
#   --noise; the renders' default 2.2, a dim hall or a phone's small sensor more); --size WxH: the
#   frame size (karuta-synth --size; the renders' default 1280x720, a webcam's 640x360 less).
#   --told-readout: analyze is given the render's readout (meta.json readout_us) with
#   --readout-us; without it analyze assumes a global shutter.
#   --out-name NAME: analyze into WORK/FPS/SCENARIO/NAME (default out), so that two builds
#   run on the same renders side by side (KR_BUILD=<the base's build> ... --out-name base
#   --results base.jsonl, then the change's with the defaults; tools/eval_touch_diff.py
#   SCENARIO_DIR SCENARIO_DIR/base SCENARIO_DIR/out for the touches that moved).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${KR_BUILD:-build}
work=out/eval
fpss="60"
holdout=0
lag=0
render=1
told_readout=0
resname=results.jsonl
outname=out
skip=()
names=()
synth_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --fps) fpss=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --holdout) holdout=1; shift ;;
    --no-render) render=0; shift ;;
    --lag) lag=1; shift ;;
    --results) resname=$2; shift 2 ;;
    --skip) skip+=("$2"); shift 2 ;;
    --phase) synth_args+=(--phase "$2"); shift 2 ;;
    --look-seed) synth_args+=(--look-seed "$2"); shift 2 ;;
    --jitter) synth_args+=(--jitter "$2"); shift 2 ;;
    --drop) synth_args+=(--drop "$2"); shift 2 ;;
    --ramp) synth_args+=(--ramp "$2"); shift 2 ;;
    --readout) synth_args+=(--readout "$2"); shift 2 ;;
    --flicker) synth_args+=(--flicker "$2"); shift 2 ;;
    --flicker-wave) synth_args+=(--flicker-wave "$2"); shift 2 ;;
    --flicker-hz) synth_args+=(--flicker-hz "$2"); shift 2 ;;
    --shutter) synth_args+=(--shutter "$2"); shift 2 ;;
    --gop) synth_args+=(--gop "$2"); shift 2 ;;
    --bframes) synth_args+=(--bframes "$2"); shift 2 ;;
    --noise) synth_args+=(--noise "$2"); shift 2 ;;
    --size) synth_args+=(--size "$2"); shift 2 ;;
    --told-readout) told_readout=1; shift ;;
    --out-name) outname=$2; shift 2 ;;
    -h|--help) sed -n 2,42p "$0"; exit 0 ;;
    -*) echo "eval_events.sh: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
ninja -C "$build" src/app/karuta-ref tools/synth/karuta-synth tools/event_lag >&2
files=()
if [ ${#names[@]} -gt 0 ]; then
  for n in "${names[@]}"; do
    f=samples/scenarios/$n.json
    [ -f "$f" ] || f=samples/scenarios/holdout/$n.json
    files+=("$f")
  done
else
  files=(samples/scenarios/*.json)
  [ $holdout = 1 ] && files+=(samples/scenarios/holdout/*.json)
fi
for fps in $fpss; do
  res="$work/$fps/$resname"
  mkdir -p "$work/$fps"
  : > "$res"
  [ $lag = 1 ] && : > "$work/$fps/lag.jsonl"
  for f in "${files[@]}"; do
    n=$(basename "$f" .json)
    for s in "${skip[@]+"${skip[@]}"}"; do [ "$s" = "$n" ] && continue 2; done
    d="$work/$fps/$n"
    if [ ! -f "$d/video.mp4" ]; then
      [ $render = 1 ] || { echo "== $n @ $fps not rendered, left out" >&2; continue; }
      echo "== render $n @ $fps" >&2
      "$build/tools/synth/karuta-synth" "$f" -o "$d" --fps "$fps" "${synth_args[@]+"${synth_args[@]}"}" >&2
    fi
    echo "== analyze $n @ $fps" >&2
    rm -rf "${d:?}/$outname"
    told=()
    [ "$told_readout" = 1 ] && told=(--readout-us "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("readout_us", 0))' "$d/meta.json")")
    "$build/src/app/karuta-ref" analyze "$d/video.mp4" --match "$d/match.jsonl" --out "$d/$outname" \
        "${told[@]+"${told[@]}"}" 2>"$d/$outname.err" || true
    if [ -f "$d/$outname/events.jsonl" ]; then
      python3 tools/eval_events.py "$d" "$d/$outname" --karuta-ref "$build/src/app/karuta-ref" >> "$res"
    else
      echo "{\"scenario\":\"$n\",\"failed\":\"$(tr -d '"\n' < "$d/$outname.err" | cut -c1-200)\"}" >> "$res"
    fi
    if [ $lag = 1 ]; then
      echo "== event_lag $n @ $fps" >&2
      "$build/tools/event_lag" "$d/video.mp4" "$d/match.jsonl" >> "$work/$fps/lag.jsonl" || true
    fi
  done
  python3 tools/eval_events_table.py "$res" --title "$fps fps"
  # every ruling flagged without need, with the reasons it gives (what to remove)
  python3 -c 'import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
out = ["- %s%s %s" % (r["scenario"], " (held out)" if r.get("holdout") else "", d) for r in rows for d in r.get("flag_no_need_details", [])]
if out: print("\nFlagged without need, with their reasons (%s fps):\n" % sys.argv[2] + "\n".join(out) + "\n")' "$res" "$fps"
  if [ $lag = 1 ]; then python3 tools/eval_events_table.py --lag "$work/$fps/lag.jsonl" --title "$fps fps"; fi
done
