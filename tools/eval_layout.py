#!/usr/bin/env python3
# tools/eval_layout.py - measures `karuta-ref layout` on karuta-synth footage: renders N
# memorisation-period scenes per frame size (random layouts, seeds, camera poses, the
# synth's four fonts in turn), reads each layout and compares it with the synth's truth.
# usage: tools/eval_layout.py [--build DIR] [--n N] [--sizes 1920x1080,1280x720]
#                             [--model MODEL.krm] [--keep DIR] [--enroll FONT] [--seed0 S]
# --enroll FONT: first films all 100 cards in two placed layouts (cards 1-50, 51-100)
#   printed in FONT (one "physical set"), enrolls them with `karuta-ref enroll`, then
#   reads every test scene, also printed in FONT, with that enrolled model.
import argparse, json, os, re, subprocess, sys, tempfile, time

FONTS = ["mincho", "gothic", "noto-serif", "noto-sans"]
HIGH_CONF = 0.9  # a wrong id at or above this confidence, not marked "confirm", is the bad case


def placed(ids):
    """25 + 25 cards at fixed places: rows of 9, 8, 8 per side."""
    out, k = [], 0
    for owner in "AB":
        for row, n in (("upper", 9), ("middle", 8), ("lower", 8)):
            for i in range(n):
                out.append({"card": ids[k], "owner": owner, "row": row, "x_mm": -95 * (n - 1) / 2 + 95 * i})
                k += 1
    return out


def enroll(a, synth, ref, work):
    model = os.path.join(work, "enrolled-%s.krm" % a.enroll)
    for half, ids in enumerate((list(range(1, 51)), list(range(51, 101)))):
        d = os.path.join(work, "enroll-%s-%d" % (a.enroll, half))
        os.makedirs(d, exist_ok=True)
        scen = {"name": "enroll", "seed": 900 + half, "duration_s": 1.0,
                "players": {"A": {"name": "A"}, "B": {"name": "B"}}, "look": {"font": a.enroll},
                "layout": {"per_side": 25, "place": placed(ids)}, "readings": []}
        sp = os.path.join(d, "scenario.json")
        with open(sp, "w") as f:
            json.dump(scen, f)
        if not (a.reuse and os.path.exists(os.path.join(d, "video.mp4"))):
            r = subprocess.run([synth, sp, "-o", d, "--size", a.sizes.split(",")[0], "--duration", "1.0"],
                               capture_output=True, text=True)
            if r.returncode:
                sys.exit("karuta-synth failed: " + r.stderr.strip())
        cmd = [ref, "enroll", os.path.join(d, "video.mp4"), "--at", "0.5",
               "--layout", os.path.join(d, "match.jsonl"), "-o", model]
        if half:
            cmd += ["--append", model]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            sys.exit("enroll failed: " + r.stderr.strip())
        print(r.stderr.strip(), file=sys.stderr)
    return model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--seed0", type=int, default=100)
    ap.add_argument("--sizes", default="1920x1080,1280x720")
    ap.add_argument("--model", default=None)
    ap.add_argument("--keep", default=None)
    ap.add_argument("--reuse", action="store_true", help="keep footage already rendered in --keep")
    ap.add_argument("--enroll", default=None, choices=FONTS)
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    synth = os.path.join(a.build, "tools/synth/karuta-synth")
    ref = os.path.join(a.build, "src/app/karuta-ref")
    work = a.keep or tempfile.mkdtemp(prefix="eval_layout_")
    if a.enroll:
        a.model = enroll(a, synth, ref, work)
    print("| size | scenes | cards | identified | to confirm | wrong id | wrong, confident | refused | s/layout (whole command) | ms recognition |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for size in a.sizes.split(","):
        tot = dict(cards=0, ok=0, confirm=0, wrong=0, wrong_conf=0, refused=0, t=0.0, scenes=0, rec=0.0, nrec=0)
        notes = []
        for i in range(a.n):
            seed = a.seed0 + i
            font = a.enroll or FONTS[i % len(FONTS)]
            d = os.path.join(work, "%s-%d" % (size, seed))
            os.makedirs(d, exist_ok=True)
            scen = {"name": "layout_eval", "seed": seed, "duration_s": 1.0,
                    "players": {"A": {"name": "A"}, "B": {"name": "B"}},
                    "look": {"font": font}, "layout": {"per_side": 25}, "readings": []}
            sp = os.path.join(d, "scenario.json")
            with open(sp, "w") as f:
                json.dump(scen, f)
            if not (a.reuse and os.path.exists(os.path.join(d, "video.mp4"))):
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
            mt = re.search(r"recognition (\d+) ms", r.stderr)
            if mt:
                tot["rec"] += float(mt.group(1))
                tot["nrec"] += 1
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
        print("| %s | %d | %d | %.1f %% | %.1f %% | %d | %d | %d | %.2f | %s |" % (
            size, tot["scenes"], tot["cards"], 100.0 * tot["ok"] / n, 100.0 * tot["confirm"] / n,
            tot["wrong"], tot["wrong_conf"], tot["refused"], tot["t"] / max(tot["scenes"], 1),
            "%.0f" % (tot["rec"] / tot["nrec"]) if tot["nrec"] else "-"), flush=True)
        for s in notes:
            print("  - " + s, file=sys.stderr)


if __name__ == "__main__":
    main()
