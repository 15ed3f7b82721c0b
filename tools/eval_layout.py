#!/usr/bin/env python3
# tools/eval_layout.py - measures `karuta-ref layout` on karuta-synth footage: renders N
# memorisation-period scenes per frame size (random layouts, seeds, camera poses, the
# synth's four fonts in turn), reads each layout and compares it with the synth's truth.
# usage: tools/eval_layout.py [--build DIR] [--n N] [--sizes 1920x1080,1280x720]
#                             [--model MODEL.krm] [--keep DIR]
import argparse, json, os, subprocess, sys, tempfile, time

FONTS = ["mincho", "gothic", "noto-serif", "noto-sans"]
HIGH_CONF = 0.9  # a wrong id at or above this confidence, not marked "confirm", is the bad case


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--sizes", default="1920x1080,1280x720")
    ap.add_argument("--model", default=None)
    ap.add_argument("--keep", default=None)
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    synth = os.path.join(a.build, "tools/synth/karuta-synth")
    ref = os.path.join(a.build, "src/app/karuta-ref")
    work = a.keep or tempfile.mkdtemp(prefix="eval_layout_")
    print("| size | scenes | cards | identified | to confirm | wrong id | wrong, confident | refused | s/layout |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for size in a.sizes.split(","):
        tot = dict(cards=0, ok=0, confirm=0, wrong=0, wrong_conf=0, refused=0, t=0.0, scenes=0)
        notes = []
        for i in range(a.n):
            seed = 100 + i
            font = FONTS[i % len(FONTS)]
            d = os.path.join(work, "%s-%d" % (size, seed))
            os.makedirs(d, exist_ok=True)
            scen = {"name": "layout_eval", "seed": seed, "duration_s": 1.0,
                    "players": {"A": {"name": "A"}, "B": {"name": "B"}},
                    "look": {"font": font}, "layout": {"per_side": 25}, "readings": []}
            sp = os.path.join(d, "scenario.json")
            with open(sp, "w") as f:
                json.dump(scen, f)
            r = subprocess.run([synth, sp, "-o", d, "--size", size, "--duration", "1.0"],
                               capture_output=True, text=True)
            if r.returncode:
                sys.exit("karuta-synth failed: " + r.stderr.strip())
            truth = [json.loads(l) for l in open(os.path.join(d, "match.jsonl"))]
            truth = [t for t in truth if t.get("type") == "layout"][0]["cards"]
            out = os.path.join(d, "layout.jsonl")
            cmd = [ref, "layout", os.path.join(d, "video.mp4"), "--at", "0.5", "--force", "-o", out]
            if a.model:
                cmd += ["--model", a.model]
            t0 = time.time()
            r = subprocess.run(cmd, capture_output=True, text=True)
            tot["t"] += time.time() - t0
            tot["scenes"] += 1
            tot["cards"] += len(truth)
            if r.returncode:
                tot["refused"] += 1
                notes.append("%s seed %d (%s): refused: %s" % (size, seed, font, r.stderr.strip()))
                continue
            got = json.loads(open(out).readline())["cards"]
            for c in got:
                b = min(truth, key=lambda t: (t["x_mm"] - c["x_mm"]) ** 2 + (t["y_mm"] - c["y_mm"]) ** 2)
                right = b["card"] == c["card"] and b["owner"] == c["owner"] and b["row"] == c["row"]
                if c.get("confirm"):
                    tot["confirm"] += 1
                elif right:
                    tot["ok"] += 1
                if not right:
                    tot["wrong"] += 1
                    if not c.get("confirm") and c["confidence"] >= HIGH_CONF:
                        tot["wrong_conf"] += 1
                    notes.append("%s seed %d (%s): read %d (conf %.2f, runner-up %d%s) where %d lies"
                                 % (size, seed, font, c["card"], c["confidence"], c["runner_up"],
                                    ", confirm" if c.get("confirm") else "", b["card"]))
        n = max(tot["cards"], 1)
        print("| %s | %d | %d | %.1f %% | %.1f %% | %d | %d | %d | %.2f |" % (
            size, tot["scenes"], tot["cards"], 100.0 * tot["ok"] / n, 100.0 * tot["confirm"] / n,
            tot["wrong"], tot["wrong_conf"], tot["refused"], tot["t"] / max(tot["scenes"], 1)))
        for s in notes:
            print("  - " + s, file=sys.stderr)


if __name__ == "__main__":
    main()
