#!/usr/bin/env python3
# eval_camera_pose.py - where analyze put the camera (summary.json's calibration.camera, from the
# fitted homography and a focal length guessed from the picture's size) against where the
# render put it (meta.json's camera: centre C_mm, intrinsics K, rotation R).
# SPDX-License-Identifier: MIT
#   tools/eval_camera_pose.py NAME [--list]
# Reads the renders of tools/eval_events.sh under out/eval*/FPS/SCENARIO/ holding the analyze
# output NAME/summary.json. Prints, over the renders: how many; the nadir's distance from the
# render's (median, 95th percentile, largest, mm); the height over the render's, as it is and
# over what the focal length guess makes of it (the render's height times max(w, h) / K[0]:
# a camera looking straight down seen with a focal length too long by a share is put higher by
# that share); the tilt's difference (degrees). --list: one line per render.
import argparse
import glob
import json
import math
import os


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def main():
    ap = argparse.ArgumentParser(description="analyze's camera pose against the renders'")
    ap.add_argument("name", help="the analyze outputs' folder name")
    ap.add_argument("--list", action="store_true", help="one line per render")
    a = ap.parse_args()
    rows = []  # (render, nadir error mm, height / render's, height / guessed, tilt error deg)
    missing = 0
    for sd in sorted(glob.glob("out/eval*/*/*/")):
        summ = sd + a.name + "/summary.json"
        if not os.path.exists(summ) or not os.path.exists(sd + "meta.json"):
            continue
        cam = json.load(open(summ)).get("calibration", {}).get("camera")
        if not cam:
            missing += 1
            continue
        m = json.load(open(sd + "meta.json"))
        c, k, r = m["camera"]["C_mm"], m["camera"]["K"], m["camera"]["R"]
        tilt = math.degrees(math.acos(max(-1.0, min(1.0, -r[8]))))
        guessed = c[2] * max(m["size"]) / k[0]
        rows.append((sd, math.hypot(cam["x_mm"] - c[0], cam["y_mm"] - c[1]), cam["height_mm"] / c[2],
                     cam["height_mm"] / guessed, cam["tilt_deg"] - tilt))
    if not rows:
        raise SystemExit("no render holds %s/summary.json with a camera" % a.name)
    if a.list:
        for sd, dn, h, hg, dt in rows:
            print("  %-48s nadir off %5.1f mm, height x%.3f (x%.3f of the guess's), tilt %+5.2f deg"
                  % (sd, dn, h, hg, dt))
    n = [x[1] for x in rows]
    print("renders %d (without a camera: %d); nadir off: median %.1f mm, p95 %.1f, largest %.1f" %
          (len(rows), missing, pct(n, 0.5), pct(n, 0.95), max(n)))
    for i, what in ((2, "as it is"), (3, "over the guess's")):
        v = [x[i] for x in rows]
        print("  height %-17s median x%.3f, range x%.3f .. x%.3f" % (what, pct(v, 0.5), min(v), max(v)))
    t = [abs(x[4]) for x in rows]
    print("  tilt off: median %.2f deg, largest %.2f" % (pct(t, 0.5), max(t)))


if __name__ == "__main__":
    main()
