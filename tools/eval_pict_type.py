#!/usr/bin/env python3
# eval_pict_type.py - the paired touches' signed timing errors by the picture type (I, P, B) of
# the frame at or after each true contact: whether the codec's bidirectional pictures bias the
# presses (a B-frame is predicted from the next reference too).
# SPDX-License-Identifier: MIT
#   tools/eval_pict_type.py WORK FPS OUT_NAME
# For each scenario WORK/FPS/NAME with analyze outputs in OUT_NAME, pairs the touches as
# tools/eval_touch_diff.py does (its --all listing), reads the video's picture types with
# ffprobe, prints one line per paired touch and per picture type the count and the median
# signed error (ms).
import glob
import os
import re
import statistics
import subprocess
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: tools/eval_pict_type.py WORK FPS OUT_NAME")
    root, fps, out = sys.argv[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    rows = []
    for d in sorted(glob.glob(os.path.join(root, fps, "*", ""))):
        if not os.path.isdir(os.path.join(d, out)):
            continue
        listing = subprocess.run([sys.executable, os.path.join(here, "eval_touch_diff.py"), d, os.path.join(d, out),
                                  "--all"], capture_output=True, text=True, check=False).stdout
        frames = None
        for line in listing.splitlines():
            m = re.search(r"t=\s*([0-9.]+) s\s+([+-][0-9.]+) /\s+([0-9.]+)", line)
            if not m:
                continue
            if frames is None:
                probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                                        "frame=pts_time,pict_type", "-of", "csv=p=0",
                                        os.path.join(d, "video.mp4")], capture_output=True, text=True,
                                       check=False).stdout
                frames = [(float(a), b) for a, b in (x.split(",")[:2] for x in probe.split())]
            t, err = float(m.group(1)), float(m.group(2))
            kind = next((k for ts, k in frames if ts >= t - 1e-6), "?")
            rows.append((os.path.basename(os.path.normpath(d)), t, err, kind))
    for r in rows:
        print("%-22s %8.3f s %+7.1f ms  contact's frame %s" % r)
    for kind in "IPB":
        v = [r[2] for r in rows if r[3] == kind]
        if v:
            print("%s: %d touches, median signed error %+.1f ms" % (kind, len(v), statistics.median(v)))


if __name__ == "__main__":
    main()
