#!/usr/bin/env python3
# eval_events_table.py RESULTS.jsonl [--title T] - markdown tables (scenarios, then
# held-out scenarios) from tools/eval_events.py lines, with totals.
# eval_events_table.py --lag LAG.jsonl [--title T] - release lag pooled over the scenarios
# (held-out apart) from tools/event_lag lines.
# SPDX-License-Identifier: MIT
import argparse
import json
import os


def f(x, fmt="%.2f"):
    return "-" if x is None else fmt % x


def wrong(n, carried):
    """Wrong rulings not flagged; of them, those whose counts only carry an earlier flagged error."""
    return "%d (%d carried)" % (n, carried) if carried else "%d" % n


def table(rows, title):
    out = ["", "### " + title, "",
           "| scenario | touches true/det/matched | precision | recall sweep | recall press | push-out | "
           "timing median / p95 / worst ms | (frames) | readings same as truth | wrong, not flagged | flagged without need | "
           "flagged | settle detected - true ms |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    tot = {"t": 0, "d": 0, "m": 0, "ns": 0, "hs": 0, "np": 0, "hp": 0, "pt": 0, "pm": 0, "r": 0, "s": 0,
           "w": 0, "wc": 0, "fl": 0, "errs": [], "flagged": 0, "settle": [], "smiss": 0}
    frame_ms = None
    for r in rows:
        if "failed" in r:
            out.append("| %s | analyze failed: %s |||||||||| " % (r["scenario"], r["failed"]))
            continue
        frame_ms = r["frame_ms"]
        fr = lambda v: "-" if v is None else "%.2f" % (v / r["frame_ms"])
        st = ", ".join("%+.0f" % v for v in r.get("settle_ms", [])) + " missing" * r.get("settle_missing", 0)
        out.append("| %s | %d/%d/%d | %s | %s | %s | %d/%d | %s / %s / %s | %s / %s / %s | %d/%d | %s | %d | %d | %s |" % (
            r["scenario"], r["touch_true"], r["touch_detected"], r["touch_matched"], f(r["precision"]),
            f(r["recall_sweep"]), f(r["recall_press"]), r["push_matched"], r["push_true"],
            f(r["median_ms"], "%.1f"), f(r["p95_ms"], "%.1f"), f(r["worst_ms"], "%.1f"),
            fr(r["median_ms"]), fr(r["p95_ms"]), fr(r["worst_ms"]),
            r["same"], r["readings"], wrong(r["wrong_unflagged"], r.get("wrong_carried", 0)), r["flag_no_need"],
            r.get("flagged", 0), st or "-"))
        tot["flagged"] += r.get("flagged", 0); tot["settle"] += r.get("settle_ms", [])
        tot["smiss"] += r.get("settle_missing", 0)
        tot["t"] += r["touch_true"]; tot["d"] += r["touch_detected"]; tot["m"] += r["touch_matched"]
        tot["ns"] += r["n_sweep"]; tot["np"] += r["n_press"]
        tot["hs"] += round((r["recall_sweep"] or 0) * r["n_sweep"])
        tot["hp"] += round((r["recall_press"] or 0) * r["n_press"])
        tot["pt"] += r["push_true"]; tot["pm"] += r["push_matched"]
        tot["r"] += r["readings"]; tot["s"] += r["same"]; tot["w"] += r["wrong_unflagged"]
        tot["wc"] += r.get("wrong_carried", 0)
        tot["fl"] += r["flag_no_need"]; tot["errs"] += r["err_ms"]
    e = sorted(tot["errs"])
    q = lambda p: e[min(len(e) - 1, int(round(p * (len(e) - 1))))] if e else None
    fm = frame_ms or 1
    ss = sorted(tot["settle"])
    sst = ("median %+.0f, %+.0f ... %+.0f" % (ss[len(ss) // 2], ss[0], ss[-1]) if ss else "-") + \
        (", %d missing" % tot["smiss"] if tot["smiss"] else "")
    out.append("| **all** | %d/%d/%d | %s | %s | %s | %d/%d | %s / %s / %s | %s / %s / %s | %d/%d | %s | %d | %d | %s |" % (
        tot["t"], tot["d"], tot["m"], f(tot["m"] / tot["d"] if tot["d"] else None),
        f(tot["hs"] / tot["ns"] if tot["ns"] else None), f(tot["hp"] / tot["np"] if tot["np"] else None),
        tot["pm"], tot["pt"], f(q(0.5), "%.1f"), f(q(0.95), "%.1f"), f(e[-1] if e else None, "%.1f"),
        f(q(0.5) / fm if e else None), f(q(0.95) / fm if e else None), f(e[-1] / fm if e else None),
        tot["s"], tot["r"], wrong(tot["w"], tot["wc"]), tot["fl"], tot["flagged"], sst))
    # timing of the matched touches by kind (a sweep: its card starts moving within 100 ms)
    for kind, plural in (("sweep", "sweeps"), ("press", "presses")):
        v = sorted(x for r in rows for x in r.get("err_%s_ms" % kind, []))
        if v:
            qv = lambda p: v[min(len(v) - 1, int(round(p * (len(v) - 1))))]
            out.append("")
            out.append("Timing of the %d matched %s: median / p95 / worst %.1f / %.1f / %.1f ms (%.2f / %.2f / %.2f frames)." % (
                len(v), plural, qv(0.5), qv(0.95), v[-1], qv(0.5) / fm, qv(0.95) / fm, v[-1] / fm))
    w = [r["within_terr"] for r in rows if "within_terr" in r]
    if w:
        out.append("")
        out.append("Matched touches within their own t_err: %d of %d; within 2 t_err: %d of %d." % (
            sum(x[0] for x in w), tot["m"], sum(x[1] for x in w), tot["m"]))
    pe = sorted(x for r in rows for x in r.get("push_err_ms", []))
    if pe:
        pw = [r["push_within_terr"] for r in rows if "push_within_terr" in r]
        qa = sorted(abs(x) for x in pe)
        out.append("")
        out.append("Timing of the %d matched push-outs (signed, detected - true): median %+.1f ms, %+.1f ... %+.1f; "
                   "|error| p95 %.1f ms; within their own t_err: %d, within 2 t_err: %d." % (
                       len(pe), pe[len(pe) // 2], pe[0], pe[-1], qa[min(len(qa) - 1, int(round(0.95 * (len(qa) - 1))))],
                       sum(x[0] for x in pw), sum(x[1] for x in pw)))
    h = [r["hand_same"] for r in rows if "hand_same" in r]
    if h:
        out.append("")
        out.append("Matched touches naming the truth's hand: %d of %d." % (sum(x[0] for x in h), sum(x[1] for x in h)))
    return out


def lag_table(rows, title):
    """Per kind (observations but early entries, touches, settles): count, median, p95, worst."""
    out = ["", "### " + title, "",
           "| observations | n | median ms | p95 ms | worst ms |", "| --- | --- | --- | --- | --- |"]
    for kind, name in (("obs", "all (but early entries)"), ("touch", "touch"), ("settle", "settle")):
        v = sorted(x for r in rows for x in r[kind]["ms"])
        q = lambda p: v[min(len(v) - 1, int(round(p * (len(v) - 1))))]
        if v:
            out.append("| %s | %d | %.1f | %.1f | %.1f |" % (name, len(v), q(0.5), q(0.95), v[-1]))
        else:
            out.append("| %s | 0 | - | - | - |" % name)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--title", default="")
    ap.add_argument("--lag", action="store_true", help="RESULTS is tools/event_lag output")
    a = ap.parse_args()
    rows = [json.loads(l) for l in open(a.results) if l.strip()]
    if a.lag:
        hold = lambda r: os.path.basename(os.path.dirname(r["video"])).startswith("h_")
        lines = lag_table([r for r in rows if not hold(r)], a.title + " - release lag, scenarios")
        if any(hold(r) for r in rows):
            lines += lag_table([r for r in rows if hold(r)], a.title + " - release lag, held-out scenarios")
        print("\n".join(lines))
        return
    main_rows = [r for r in rows if not r.get("holdout")]
    hold = [r for r in rows if r.get("holdout")]
    lines = table(main_rows, a.title + " - scenarios")
    if hold:
        lines += table(hold, a.title + " - held-out scenarios")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
