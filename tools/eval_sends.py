#!/usr/bin/env python3
# eval_sends.py - the sends and rearrangements analyze found beside the truth's: for each
# scenario, each detected one paired with the truth's of the same card (the nearest in time),
# its kind against the truth's, its signed time error (detected - true, ms) and whether that
# lies within its t_err; those with no true one of the card, and true ones not found. Then the
# totals: found / true, kind right, within t_err, median |error|.
# SPDX-License-Identifier: MIT
#   tools/eval_sends.py OUT DIR... [--quiet]
# Each DIR is a scenario's render (truth.jsonl). OUT names the analyze output: a bare name is
# a folder inside each DIR (tools/eval_events.sh --out-name); a path with a slash is a folder
# holding one output per scenario, DIR's own name inside it (tools/eval_sealed.sh --out).
# --quiet: the totals only (what a sealed set may show).
import json
import os
import sys

KINDS = ("send", "rearrange")


def records(path, kinds):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                r = json.loads(line)
                if r.get("type") in kinds:
                    out.append(r)
    return out


def main(argv):
    quiet = "--quiet" in argv
    args = [a for a in argv if a != "--quiet"]
    if len(args) < 2:
        sys.stderr.write("usage: tools/eval_sends.py OUT DIR... [--quiet]\n")
        return 2
    out_name, dirs = args[0], args[1:]
    n_true = n_found = n_kind = n_within = n_extra = 0
    errs = []
    for d in dirs:
        d = d.rstrip("/")
        name = os.path.basename(d)
        out = os.path.join(out_name, name) if "/" in out_name else os.path.join(d, out_name)
        truth_path, ev_path = os.path.join(d, "truth.jsonl"), os.path.join(out, "events.jsonl")
        if not os.path.exists(truth_path) or not os.path.exists(ev_path):
            sys.stderr.write("%s: no truth.jsonl or %s\n" % (d, ev_path))
            continue
        truth, found = records(truth_path, KINDS), records(ev_path, KINDS)
        n_true += len(truth)
        left = list(truth)
        for e in found:
            same = [t for t in left if t.get("card") == e.get("card")]
            if not same:
                n_extra += 1
                if not quiet:
                    print("%s %s of card %s at %.3f s: no true one" % (name, e["type"], e.get("card"), e["t_us"] / 1e6))
                continue
            t = min(same, key=lambda r: abs(r["t_us"] - e["t_us"]))
            left.remove(t)
            n_found += 1
            err = (e["t_us"] - t["t_us"]) / 1000.0
            within = abs(err) * 1000 <= e.get("t_err_us", 0)
            n_kind += e["type"] == t["type"]
            n_within += within
            errs.append(abs(err))
            if not quiet:
                print("%s %s of card %s (true %s): %+.0f ms on %.0f%s" %
                      (name, e["type"], e.get("card"), t["type"], err, e.get("t_err_us", 0) / 1000.0,
                       "" if within else "  (beyond)"))
        for t in left:
            if not quiet:
                print("%s %s of card %s at %.3f s: not found" % (name, t["type"], t.get("card"), t["t_us"] / 1e6))
    errs.sort()
    med = errs[len(errs) // 2] if errs else float("nan")
    print("sends and rearrangements: found %d of %d, kind right %d, within t_err %d, median |error| %.0f ms, "
          "%d with no true one" % (n_found, n_true, n_kind, n_within, med, n_extra))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
