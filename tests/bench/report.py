#!/usr/bin/python3
"""Turn the guest's BENCH lines into the benchmark report.

    report.py <bench-lines-file>... --out DIR [--plot] [--table]

Reads every "BENCH key=value ..." line, and writes into DIR:
  runs.csv      one row per measured run, every counter the guest recorded
  summary.json  per benchmark and configuration: mean, stdev, n of each
                metric; per comparison: the ratio and its spread
  report.md     the tables
  ratios.png    bars with error bars for the ratios (--plot, needs
                matplotlib)
--table prints the short side-by-side table of make demo on stdout.

Ratios.  For an A/B pair in one boot (luf off/on) the ratio is taken per
repeat (on_i / off_i, runs made back to back) and reported as mean and
stdev over the repeats.  For configurations in separate boots (allocbench
against vanilla) it is the ratio of the means, with the spread propagated
from both relative stdevs.  Under TCG every absolute time is emulated time:
only the ratios carry over, and even those only roughly.
"""
import argparse
import csv
import json
import math
import os
import re
import statistics
import sys

# The throughput metric of each workload, and what it counts.
THROUGHPUT = {
    "tier-file": ("reads_per_sec", "reads/s"),
    "tier-anon": ("reads_per_sec", "reads/s"),
    "tier-anon-fork": ("reads_per_sec", "reads/s"),
    # Large folios (issue 11): 64 KiB anonymous mTHP, XFS's page cache.
    "tier-anon-mthp": ("reads_per_sec", "reads/s"),
    "tier-xfs": ("reads_per_sec", "reads/s"),
    "mig-file": ("pages_per_sec", "pages migrated/s"),
    "mig-anon": ("pages_per_sec", "pages migrated/s"),
    "mig-sep": ("pages_per_sec", "pages migrated/s"),
    "alloc": ("faults_per_sec", "faults/s"),
    # Collateral cost (issue 10): unrelated writers beside tiering, and
    # what the allocator has left once luf's flushes are done.
    "tier-file+logger": ("reads_per_sec", "reads/s"),
    "write1+tier": ("w1_writes_per_sec", "writes/s"),
    "frag": ("frag_hi_blocks", "free order-9 blocks"),
    "atomic": ("atomic_us", "us per burst"),
}
# Further metrics compared on/off: the readers' side of migbench.
SECONDARY = {
    "tier-anon-mthp": ["luf_refused_large", "luf_tagged", "large_end"],
    "tier-xfs": ["luf_refused_large", "luf_tagged", "large_end"],
    "mig-file": ["reads_per_sec"],
    "mig-anon": ["reads_per_sec"],
    "mig-sep": ["reads_per_sec"],
    "tier-file+logger": ["luf_flush_file_write", "log_late"],
    "write1+tier": ["reads_per_sec", "luf_flush_file_write"],
    "frag": ["thp_pct", "thp_alloc", "compact_success", "frag_free_pages",
             "luf_tagged"],
    "atomic": ["atomic_failed", "atomic_remote", "luf_parked", "luf_reserve",
               "luf_tagged"],
}
# Where the IPI-sending flushes came from (tests/guest/t/bench), and the
# state that explains them.
ORIGINS = ["ipi_luf", "ipi_unmap", "ipi_numa", "ipi_mprotect", "ipi_zap",
           "ipi_other"]
TRACE_REASONS = ["trace_flush_on_task_switch", "trace_remote_shootdown",
                 "trace_local_shootdown", "trace_local_mm_shootdown",
                 "trace_remote_ipi_send"]
# Counters reported for every workload (deltas over the measured phase).
COUNTERS = ["tlb_ipis", "remote_flush", "luf_ipis", "luf_flushes",
            "pgdemote", "pgpromote", "pgmigrate"]


def parse(paths):
    runs = []
    for path in paths:
        with open(path, errors="replace") as f:
            for line in f:
                line = line.strip().replace("\r", "")
                i = line.find("BENCH ")
                if i < 0:
                    continue
                rec = {}
                for tok in line[i + 6:].split():
                    if "=" not in tok:
                        continue
                    k, v = tok.split("=", 1)
                    try:
                        rec[k] = float(v) if "." in v else int(v)
                    except ValueError:
                        rec[k] = v
                if "bench" in rec and "config" in rec:
                    runs.append(rec)
    return runs


def stats(values):
    vals = [v for v in values if isinstance(v, (int, float))]
    if not vals:
        return None
    return {"mean": statistics.fmean(vals),
            "stdev": statistics.stdev(vals) if len(vals) > 1 else 0.0,
            "n": len(vals)}


def derived(rec):
    """Per-run metrics computed from the raw counters."""
    # tierbench's large_* are -1 where /proc/kpageflags could not be read:
    # no value, not a percentage to average.
    for k in ("large_start", "large_end"):
        if isinstance(rec.get(k), (int, float)) and rec[k] < 0:
            del rec[k]
    # The guest prints the trace counts that are not zero: where it traced
    # (trace_overrun is always there), a missing one is a zero.
    if "trace_overrun" in rec:
        for k in TRACE_REASONS:
            rec.setdefault(k, 0)
    # stacks=1: the guest also took a stack with each IPI-sending flush.
    if rec.get("stacks") == 1:
        for k in ORIGINS:
            rec.setdefault(k, 0)
    # Flushes that sent IPIs for unmapped pages: done at once, or luf's
    # (deferred, by age, on reuse).  What luf is about, apart from the
    # protection changes (NUMA hinting) that also send IPIs.
    if rec.get("stacks") == 1:
        rec["unmap_flush_ipis"] = rec["ipi_unmap"] + rec["ipi_luf"]
    # Tiering's own progress, per second of the run: the hints NUMA
    # balancing gets and the promotions they lead to, and the PTEs its
    # scanner armed (how much it scanned).
    secs = rec.get("secs", rec.get("wall"))
    if isinstance(secs, (int, float)) and secs > 0:
        for k in ("numa_hint_faults", "pgpromote", "numa_pte_updates",
                  "numa_scans"):
            if isinstance(rec.get(k), (int, float)):
                rec[k + "_per_sec"] = rec[k] / secs
    # Per completed scan pass over the benchmark's own process
    # (numa_scans, its mm->numa_scan_seq): a run of a few seconds holds
    # one pass or none, and its hints per second follow that count; per
    # pass they do not.  The process's system time per pass is what NUMA
    # balancing's brake sees (task_numa_work() waits 32 times a pass's
    # run time, its shootdowns included, before the next), the likely
    # reason why lazy hinting completed more passes at a short period.
    scans = rec.get("numa_scans")
    if isinstance(scans, (int, float)) and scans > 0:
        for k in ("numa_hint_faults", "pgpromote", "numa_pte_updates",
                  "stime"):
            if isinstance(rec.get(k), (int, float)):
                rec[k + "_per_scan"] = rec[k] / scans
    # Per PTE the scanner armed: a hint fault is what an armed PTE gives
    # back when a CPU touches the page through it.  A CPU that keeps a
    # stale entry after a lazy hinting pass reads without faulting, so
    # hints lost to lazy hinting show here first, whatever the number of
    # passes completed.  And promotions per hint fault: how many hints
    # found room on the top tier.
    for num, den, key in (("numa_hint_faults", "numa_pte_updates",
                           "numa_hint_faults_per_pte"),
                          ("pgpromote", "numa_hint_faults",
                           "pgpromote_per_hint_fault")):
        n, d = rec.get(num), rec.get(den)
        if isinstance(n, (int, float)) and isinstance(d, (int, float)) \
                and d > 0:
            rec[key] = n / d
    # Per migrated page: migbench's own count, else pgmigrate (demotions
    # and promotions; with luf on, tiering may migrate more pages).
    mig = rec.get("migrated", rec.get("pgmigrate"))
    if isinstance(mig, (int, float)) and mig > 0:
        for k in ("tlb_ipis", "remote_flush", "unmap_flush_ipis"):
            if isinstance(rec.get(k), (int, float)):
                rec[k + "_per_page"] = rec[k] / mig
    return rec


def summarize(runs):
    groups = {}
    for r in runs:
        groups.setdefault((r["bench"], r["kernel"], r["config"]), []).append(r)
    summary = {}
    for (bench, kernel, config), rs in sorted(groups.items()):
        metrics = {}
        keys = set()
        for r in rs:
            keys.update(k for k, v in r.items() if isinstance(v, (int, float)))
        for k in sorted(keys - {"rep"}):
            s = stats([r.get(k) for r in rs])
            if s:
                metrics[k] = s
        summary.setdefault(bench, {})[f"{kernel}/{config}"] = metrics
    return groups, summary


def stalled(r):
    """kswapd gave up on node 0 during the run (tests/guest/t/bench): the
    run measured a node that no longer tiers, not luf."""
    return r.get("n0_unreclaimable") == 1


def paired_ratio(groups, bench, kernel, a, b, metric):
    """Mean and stdev over repeats of b_i / a_i (same boot, same rep).
    A pair with a stalled run is left out."""
    ga = groups.get((bench, kernel, a), [])
    gb = groups.get((bench, kernel, b), [])
    bad = {r["rep"] for r in ga + gb if stalled(r)}
    ra = {r["rep"]: r.get(metric) for r in ga if r["rep"] not in bad}
    rb = {r["rep"]: r.get(metric) for r in gb if r["rep"] not in bad}
    ratios = [rb[k] / ra[k] for k in ra
              if k in rb and isinstance(ra[k], (int, float)) and
              isinstance(rb[k], (int, float)) and ra[k] > 0]
    return stats(ratios)


def mean_ratio(sa, sb):
    """Ratio of means b/a with the spread propagated from both."""
    if not sa or not sb or sa["mean"] <= 0:
        return None
    r = sb["mean"] / sa["mean"]
    rel = math.hypot(sa["stdev"] / sa["mean"],
                     sb["stdev"] / sb["mean"] if sb["mean"] else 0.0)
    return {"mean": r, "stdev": r * rel, "n": min(sa["n"], sb["n"])}


def comparisons(groups, summary):
    comps = []
    for bench in summary:
        tp = THROUGHPUT.get(bench, (None, None))[0]
        # Every luf-on configuration of an A/B boot against luf off.
        others = [c.split("/", 1)[1] for c in summary[bench]
                  if c.startswith("patched/") and
                  c not in ("patched/off", "patched/nomod", "patched/disabled")]
        others.sort(key=lambda c: (c != "on", c))
        if "patched/off" not in summary[bench]:
            others = []
        for other in others:
            for metric in [tp, "tlb_ipis", "remote_flush",
                           "unmap_flush_ipis", "tlb_ipis_per_page",
                           "unmap_flush_ipis_per_page"] + \
                    SECONDARY.get(bench, []):
                s = paired_ratio(groups, bench, "patched", "off", other,
                                 metric)
                if s:
                    comps.append({"bench": bench, "metric": metric,
                                  "base": "patched/off",
                                  "other": "patched/" + other,
                                  "kind": "paired", **s})
        # Lazy NUMA-hinting flushes against luf on without them: does
        # tiering still see its hints and promote (issue 25's goals)?
        if "patched/numa" in summary[bench] and "patched/on" in summary[bench]:
            for metric in [tp, "tlb_ipis", "numa_hint_faults_per_sec",
                           "pgpromote_per_sec", "numa_pte_updates_per_sec",
                           "numa_scans_per_sec", "numa_hint_faults_per_scan",
                           "pgpromote_per_scan", "numa_pte_updates_per_scan",
                           "stime_per_scan", "numa_hint_faults_per_pte",
                           "pgpromote_per_hint_fault"]:
                s = paired_ratio(groups, bench, "patched", "on", "numa",
                                 metric)
                if s:
                    comps.append({"bench": bench, "metric": metric,
                                  "base": "patched/on",
                                  "other": "patched/numa",
                                  "kind": "paired", **s})
        # Loaded-but-disabled and enabled against not loaded, in one boot.
        if "patched/nomod" in summary[bench] and tp:
            for cfg in ("disabled", "on"):
                s = paired_ratio(groups, bench, "patched", "nomod", cfg, tp)
                if s:
                    comps.append({"bench": bench, "metric": tp,
                                  "base": "patched/nomod",
                                  "other": "patched/" + cfg,
                                  "kind": "paired", **s})
        base = summary[bench].get("vanilla/vanilla")
        if base and tp:
            for cfg in ("patched/nomod", "patched/disabled", "patched/on"):
                if cfg in summary[bench]:
                    s = mean_ratio(base.get(tp), summary[bench][cfg].get(tp))
                    if s:
                        comps.append({"bench": bench, "metric": tp,
                                      "base": "vanilla/vanilla", "other": cfg,
                                      "kind": "means", **s})
    return comps


def fmt(s, digits=1):
    if not s:
        return "-"
    return f"{s['mean']:.{digits}f} ± {s['stdev']:.{digits}f}"


def runs_with(s, _digits=0):
    if not s:
        return "-"
    return f"{round(s['mean'] * s['n'])} of {s['n']} runs"


def pct(c):
    return f"{(c['mean'] - 1) * 100:+.1f}% ± {c['stdev'] * 100:.1f}"


def by_source(summary):
    """The IPI-sending flushes by where they came from, luf off and on: what
    luf leaves, and what each source is of what it leaves."""
    out = []
    rows = []
    for bench, cfgs in summary.items():
        off, on = cfgs.get("patched/off"), cfgs.get("patched/on")
        if not off or not on or "ipi_other" not in on:
            continue
        tot_off = sum(off.get(o, {"mean": 0})["mean"] for o in ORIGINS)
        tot_on = sum(on.get(o, {"mean": 0})["mean"] for o in ORIGINS)
        for o in ORIGINS:
            a = off.get(o, {"mean": 0})["mean"]
            b = on.get(o, {"mean": 0})["mean"]
            chg = f"{(b - a) / a * 100:+.0f}%" if a else "-"
            share = f"{b / tot_on * 100:.0f}%" if tot_on else "-"
            rows.append(f"| {bench} | {o[4:]} | {a:.1f} | {b:.1f} | {chg} | {share} |")
        chg = f"{(tot_on - tot_off) / tot_off * 100:+.0f}%" if tot_off else "-"
        rows.append(f"| {bench} | all | {tot_off:.1f} | {tot_on:.1f} | {chg} | 100% |")
    if rows:
        out.append("")
        out.append("IPI-sending flushes by source (means per run; share: of what "
                   "is left with luf on):")
        out.append("")
        out.append("| benchmark | source | luf off | luf on | change | share with luf on |")
        out.append("|---|---|---|---|---|---|")
        out.extend(rows)
    return out


def tables(summary, comps):
    out = []
    out.append("| benchmark | config | n | throughput | TLB shootdown IPIs | "
               "remote flushes | luf IPIs | pgdemote | pgpromote | IPIs per migrated page |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for bench, cfgs in summary.items():
        tp, unit = THROUGHPUT.get(bench, ("?", "?"))
        for cfg, m in cfgs.items():
            n = m.get(tp, {}).get("n", 0)
            out.append(f"| {bench} | {cfg} | {n} | {fmt(m.get(tp))} {unit} | "
                       f"{fmt(m.get('tlb_ipis'))} | {fmt(m.get('remote_flush'))} | "
                       f"{fmt(m.get('luf_ipis'))} | {fmt(m.get('pgdemote'))} | "
                       f"{fmt(m.get('pgpromote'))} | "
                       f"{fmt(m.get('tlb_ipis_per_page'), 3)} |")
    out.append("")
    out.append("Where the IPI-sending TLB flushes came from (tlb_flush trace, one "
               "stack per flush that sent IPIs), luf's flushes by reason, and "
               "how idle the vCPUs were:")
    out.append("")
    out.append("| benchmark | config | " + " | ".join(o[4:] for o in ORIGINS) +
               " | luf flushes | by age | at tick | on reuse | reserve | "
               "luf IPIs | CPUs spared | idle % |")
    out.append("|---|---|" + "---|" * (len(ORIGINS) + 8))
    for bench, cfgs in summary.items():
        for cfg, m in cfgs.items():
            if cfg.startswith("vanilla") or bench == "alloc":
                continue
            out.append(f"| {bench} | {cfg} | " +
                       " | ".join(fmt(m.get(o, {"mean": 0, "stdev": 0}))
                                  for o in ORIGINS) +
                       f" | {fmt(m.get('luf_flushes'))} | "
                       f"{fmt(m.get('luf_flush_age'))} | "
                       f"{fmt(m.get('luf_flush_tick'))} | "
                       f"{fmt(m.get('luf_flush_alloc'))} | "
                       f"{fmt(m.get('luf_flush_reserve'))} | "
                       f"{fmt(m.get('luf_ipis'))} | "
                       f"{fmt(m.get('luf_ipis_avoided'))} | "
                       f"{fmt(m.get('idle_pct'))} |")
    out.extend(by_source(summary))
    out.append("")
    out.append("Further metrics of each workload (mean ± stdev):")
    out.append("")
    out.append("| benchmark | config | metrics |")
    out.append("|---|---|---|")
    for bench, cfgs in summary.items():
        for cfg, m in cfgs.items():
            if bench not in SECONDARY:
                continue
            out.append(f"| {bench} | {cfg} | " +
                       ", ".join(f"{k} {fmt(m.get(k))}"
                                 for k in SECONDARY[bench]) + " |")
    out.append("")
    out.append("| benchmark | metric | other / base | ratio (mean ± stdev) | change |")
    out.append("|---|---|---|---|---|")
    for c in comps:
        out.append(f"| {c['bench']} | {c['metric']} | {c['other']} / {c['base']} | "
                   f"{c['mean']:.4f} ± {c['stdev']:.4f} (n={c['n']}) | {pct(c)} |")
    rows = goals(summary, comps)
    if rows:
        out.append("")
        out.append("Goals (tests/bench/report.py, GOALS):")
        out.append("")
        out.append("| benchmark | goal | measured | verdict |")
        out.append("|---|---|---|---|")
        for r in rows:
            out.append("| " + " | ".join(r) + " |")
    return "\n".join(out) + "\n"


# The goals of the collateral-cost workloads (issue 10), checked on each
# report: (benchmark, what is promised, check).  A check gets the summary
# and the comparisons, and returns (measured, met), or None without data.
# tier-*, mig-* and alloc keep theirs by comparison with the last report.
def _ratio(comps, bench, metric, other="patched/on"):
    for c in comps:
        if (c["bench"] == bench and c["metric"] == metric and
                c["other"] == other and c["base"] == "patched/off"):
            return c
    return None


def _mean(summary, bench, cfg, metric):
    return summary.get(bench, {}).get(cfg, {}).get(metric, {}).get("mean")


def _goal_logger_ipis(summary, comps):
    a = _ratio(comps, "tier-file+logger", "tlb_ipis")
    b = _ratio(comps, "tier-file", "tlb_ipis")
    if not a or not b:
        return None
    d = (a["mean"] - b["mean"]) * 100
    return (f"on/off {a['mean']:.3f} with the logger, {b['mean']:.3f} "
            f"quiet: {d:+.1f} points", abs(d) <= 3.0)


def _goal_logger_writes(summary, comps):
    m = _mean(summary, "tier-file+logger", "patched/on",
              "luf_flush_file_write")
    if m is None:
        return None
    return f"{m:.1f} per run", m <= 1.0


def _goal_ratio(bench, metric, least):
    def check(summary, comps):
        c = _ratio(comps, bench, metric)
        if c:
            return (f"on/off {c['mean']:.3f} ± {c['stdev']:.3f}",
                    c["mean"] >= least)
        off = _mean(summary, bench, "patched/off", metric)
        on = _mean(summary, bench, "patched/on", metric)
        if off is None or on is None:
            return None
        # No ratio when luf off measured 0 throughout.
        return f"off {off:.1f}, on {on:.1f}", on >= off * least
    return check


def _goal_refused_large(bench, share):
    def check(summary, comps):
        ref = _mean(summary, bench, "patched/on", "luf_refused_large")
        tag = _mean(summary, bench, "patched/on", "luf_tagged")
        if ref is None or tag is None:
            return None
        if not ref + tag:
            return "luf saw no folio", False
        got = ref / (ref + tag)
        return (f"{ref:.0f} refused for size of {ref + tag:.0f} per run "
                f"({got * 100:.1f}%)", got <= share)
    return check


def _goal_ratio_at_most(bench, metric, most):
    def check(summary, comps):
        c = _ratio(comps, bench, metric)
        if not c:
            return None
        return (f"on/off {c['mean']:.3f} ± {c['stdev']:.3f}",
                c["mean"] <= most)
    return check


def _goal_no_worse(bench, metric):
    def check(summary, comps):
        off = _mean(summary, bench, "patched/off", metric)
        on = _mean(summary, bench, "patched/on", metric)
        if off is None or on is None:
            return None
        return f"off {off:.2f}, on {on:.2f} per run", on <= off
    return check


GOALS = [
    ("tier-file+logger", "TLB-IPI ratio within 3 points of quiet tier-file's",
     _goal_logger_ipis),
    ("tier-file+logger", "flush_file_write near zero (at most 1 per run)",
     _goal_logger_writes),
    ("write1+tier", "writes/s with luf on at least 98% of off",
     _goal_ratio("write1+tier", "w1_writes_per_sec", 0.98)),
    ("frag", "free order-9 blocks: on within 5% of off",
     _goal_ratio("frag", "frag_hi_blocks", 0.95)),
    ("frag", "THP allocations: on within 5% of off",
     _goal_ratio("frag", "thp_pct", 0.95)),
    ("frag", "compaction successes: on within 5% of off",
     _goal_ratio("frag", "compact_success", 0.95)),
    ("atomic", "no allocation failure that luf off does not have",
     _goal_no_worse("atomic", "atomic_failed")),
    ("atomic", "no flush_parked that luf off does not have",
     _goal_no_worse("atomic", "luf_parked")),
    # Large folios are deferred like small ones.
    ("tier-anon-mthp",
     "refused_large at most 1% of what luf saw (tagged + refused)",
     _goal_refused_large("tier-anon-mthp", 0.01)),
    ("tier-anon-mthp", "unmap-flush IPIs -95% or better",
     _goal_ratio_at_most("tier-anon-mthp", "unmap_flush_ipis", 0.05)),
    ("tier-xfs",
     "refused_large at most 1% of what luf saw (tagged + refused)",
     _goal_refused_large("tier-xfs", 0.01)),
    ("tier-xfs", "unmap-flush IPIs -95% or better",
     _goal_ratio_at_most("tier-xfs", "unmap_flush_ipis", 0.05)),
]


def goals(summary, comps):
    """The goals whose benchmark ran: (bench, goal, measured, verdict)."""
    rows = []
    for bench, text, check in GOALS:
        if bench not in summary:
            continue
        r = check(summary, comps)
        if r is None:
            rows.append((bench, text, "no data", "no data"))
        else:
            rows.append((bench, text, r[0], "met" if r[1] else "MISSED"))
    return rows


def demo_table(summary, comps, groups=None):
    lines = []
    for bench, cfgs in summary.items():
        tp, unit = THROUGHPUT.get(bench, ("?", "?"))
        off, on = cfgs.get("patched/off"), cfgs.get("patched/on")
        if not off or not on:
            continue
        lines.append(f"{bench}: {off.get(tp, {}).get('n', 0)} runs each, luf off and on alternating in one boot")
        lines.append(f"  {'':26} {'luf off':>22} {'luf on':>22}")
        for label, key, d in ((f"throughput ({unit})", tp, 0),
                              ("TLB shootdown IPIs", "tlb_ipis", 0),
                              ("remote TLB flushes", "remote_flush", 0),
                              ("pages demoted", "pgdemote", 0),
                              ("pages promoted", "pgpromote", 0),
                              ("IPIs sent by luf", "luf_ipis", 0),
                              ("CPUs luf spared an IPI", "luf_ipis_avoided", 0),
                              ("unmap flushes with IPIs", "unmap_flush_ipis", 0),
                              ("luf flushes by age", "luf_flush_age", 0),
                              ("... of which at the tick", "luf_flush_tick", 0),
                              ("pages tagged by luf", "luf_tagged", 0),
                              ("refused: large folio", "luf_refused_large", 0),
                              ("% in large folios, start", "large_start", 1),
                              ("% in large folios, end", "large_end", 1),
                              ("node 0 revived before", "revived", -1),
                              ("kswapd gave up on node 0", "n0_unreclaimable", -1)):
            if off.get(key) is None and on.get(key) is None:
                continue
            # d -1: a 0/1 flag per run, shown as how many runs had it.
            f = runs_with if d < 0 else fmt
            lines.append(f"  {label:26} {f(off.get(key), d):>22} {f(on.get(key), d):>22}")
        left = {r["rep"] for cfg in ("off", "on")
                for r in (groups or {}).get((bench, "patched", cfg), [])
                if stalled(r)}
        if left:
            lines.append(f"  ratios leave out {len(left)} pair(s) in which kswapd gave up on node 0")
        for c in comps:
            if c["bench"] == bench and c["kind"] == "paired":
                what = (c["other"].split("/")[-1] + "/" +
                        c["base"].split("/")[-1])
                lines.append(f"  {what} {c['metric']:26} {c['mean']:.3f} ± {c['stdev']:.3f}  ({pct(c)})")
    rows = goals(summary, comps)
    if rows:
        lines.append("goals:")
        for bench, text, measured, verdict in rows:
            lines.append(f"  {verdict:8} {bench}: {text} ({measured})")
    lines.append("(TCG: emulated time; compare the ratios, not the absolute rates)")
    return "\n".join(lines)


def plot(comps, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report.py: matplotlib missing, no plot", file=sys.stderr)
        return False
    if not comps:
        return False
    labels = [f"{c['bench']}\n{c['metric']}\n{c['other'].split('/')[-1]}/{c['base'].split('/')[-1]}"
              for c in comps]
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(comps)), 4.5))
    colors = ["tab:green" if "ipis" in c["metric"] or "flush" in c["metric"]
              else "tab:blue" for c in comps]
    ax.bar(range(len(comps)), [c["mean"] for c in comps],
           yerr=[c["stdev"] for c in comps], capsize=4, color=colors)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(comps)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("ratio (other / base), mean ± stdev")
    ax.set_title("luf: ratios (green: TLB IPIs/flushes, lower is better; "
                 "blue: throughput, higher is better)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


SCALE = re.compile(r"^(.*)@(\d+)cpu$")


def scaling_rows(summary):
    """The scaling boots (bench.sh scale): per vCPU count, luf off and on."""
    rows = []
    for bench, cfgs in summary.items():
        m = SCALE.match(bench)
        off, on = cfgs.get("patched/off"), cfgs.get("patched/on")
        if not m or not off or not on:
            continue
        rows.append((m.group(1), int(m.group(2)), off, on))
    return sorted(rows, key=lambda r: (r[0], r[1]))


def _m(s, key):
    v = s.get(key)
    return v["mean"] if v else None


def scaling_table(summary):
    rows = scaling_rows(summary)
    if not rows:
        return ""
    out = ["", "Scaling (the same workload at each vCPU count, luf off and on "
           "alternating in each boot; TCG runs the vCPUs in turn on one host "
           "thread, so only the counts mean anything):", "",
           "| benchmark | vCPUs | n | IPIs/page off | IPIs/page on | "
           "avoided/page | luf IPIs/run | luf IPIs/page | CPUs spared/run |",
           "|---|---|---|---|---|---|---|---|---|"]
    for bench, n, off, on in rows:
        a, b = _m(off, "tlb_ipis_per_page"), _m(on, "tlb_ipis_per_page")
        mig = _m(on, "pgmigrate")
        lufi = _m(on, "luf_ipis")
        per = f"{lufi / mig:.4f}" if lufi is not None and mig else "-"
        avoided = f"{a - b:.3f}" if a is not None and b is not None else "-"
        out.append(f"| {bench} | {n} | {off.get('tlb_ipis', {}).get('n', 0)} | "
                   f"{fmt(off.get('tlb_ipis_per_page'), 3)} | "
                   f"{fmt(on.get('tlb_ipis_per_page'), 3)} | {avoided} | "
                   f"{fmt(on.get('luf_ipis'))} | {per} | "
                   f"{fmt(on.get('luf_ipis_avoided'))} |")
    return "\n".join(out) + "\n"


def plot_scaling(summary, path):
    rows = scaling_rows(summary)
    if not rows:
        return False
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for bench in sorted({r[0] for r in rows}):
        pts = [r for r in rows if r[0] == bench]
        xs = [r[1] for r in pts]
        for cfg, idx, style in (("luf off", 2, "o-"), ("luf on", 3, "s-")):
            ys = [_m(r[idx], "tlb_ipis_per_page") or 0 for r in pts]
            es = [(r[idx].get("tlb_ipis_per_page") or {}).get("stdev", 0)
                  for r in pts]
            ax.errorbar(xs, ys, yerr=es, fmt=style, capsize=3,
                        label=f"{bench}, {cfg}")
        ys = [(_m(r[2], "tlb_ipis_per_page") or 0) -
              (_m(r[3], "tlb_ipis_per_page") or 0) for r in pts]
        ax.plot(xs, ys, "^--", label=f"{bench}, avoided by luf")
    ax.set_xlabel("vCPUs")
    ax.set_ylabel("TLB-shootdown IPIs per migrated page (mean ± stdev)")
    ax.set_title("luf: IPIs per migrated page against vCPUs (TCG: counts only)",
                 fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out")
    ap.add_argument("--plot", action="store_true")
    ap.add_argument("--table", action="store_true")
    args = ap.parse_args()
    runs = [derived(r) for r in parse(args.files)]
    if not runs:
        print("report.py: no BENCH lines in " + " ".join(args.files), file=sys.stderr)
        return 1
    groups, summary = summarize(runs)
    comps = comparisons(groups, summary)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        keys = sorted({k for r in runs for k in r})
        first = ["bench", "kernel", "config", "rep"]
        keys = first + [k for k in keys if k not in first]
        with open(os.path.join(args.out, "runs.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            for r in runs:
                w.writerow(r)
        with open(os.path.join(args.out, "summary.json"), "w") as f:
            json.dump({"summary": summary, "comparisons": comps}, f, indent=1)
        with open(os.path.join(args.out, "report.md"), "w") as f:
            f.write("# luf benchmark report\n\n")
            f.write("TCG guest: absolute rates are emulated; lean on the ratios.\n\n"
                    "tlb_ipis: TLB-shootdown interrupts received (/proc/interrupts), "
                    "from every source.  unmap_flush_ipis: flushes that sent IPIs "
                    "for unmapped pages (tlb_flush trace with a stack: "
                    "try_to_unmap_flush() and friends, plus luf's own flushes); "
                    "the rest of tlb_ipis is mostly NUMA balancing arming its "
                    "hinting faults (change_prot_numa()), which luf does not "
                    "touch.\n\n")
            f.write(tables(summary, comps))
            f.write(scaling_table(summary))
        if args.plot:
            plot(comps, os.path.join(args.out, "ratios.png"))
            plot_scaling(summary, os.path.join(args.out, "scaling.png"))
    if args.table:
        print(demo_table(summary, comps, groups))
    return 0


if __name__ == "__main__":
    sys.exit(main())
