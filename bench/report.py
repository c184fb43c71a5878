#!/usr/bin/env python3
"""report.py -- merge benchmark CSVs into bench/results.csv, bench/RESULTS.md
and bench/charts/FAMILY.png.  Python 3 standard library only (plus gnuplot
for the charts, skipped with a note when gnuplot is missing).

usage: bench/report.py [-o DIR] FILE.csv|DIR ...
  A directory argument means every *.csv in it.  Each CSV is what a harness
  prints: '# key: value' comment lines (device, driver, date, host-cpu, note)
  and rows  workload,size,device,impl,time_ms,throughput,unit,checked[,cpu_ms]
  (cpu_ms: the CPU time the process used over a run, every thread, median;
  optional: CSVs without the column, or rows without the field, have none).
  A later file's row replaces an earlier one with the same
  (workload, size, device, impl).  A file with a '# compare: LABEL' line
  (an earlier compiler, or the same one with other options) stays out of
  the tables: its rows are set beside the current rows of the same key in
  a 'Compiler A/B' section, so one compiler change is read as a ratio.

RESULTS.md has, per workload, size and device: time (and, where measured,
the CPU time of all the run's threads), throughput, the ratio
to each other implementation measured there (time(X) / time(impl): above 1
means faster than X), and the share of the device's measured copy bandwidth
(workload 'copy', the best row) for GB/s rows or of its measured FMA peak
(workload 'peak') for GEMM.  Nothing in it is written by hand.
"""
import csv
import glob
import math
import os
import re
import subprocess
import sys

FIELDS = ["workload", "size", "device", "impl", "time_ms", "throughput",
          "unit", "checked"]
ORDER = ["linear", "bitonic", "histogram", "kmeans", "spmv", "transpose",
         "sgemm", "dgemm", "scan-i32", "scan-f32"]
SIMT = ["ocl-simt", "cuda-simt"]


def read_csv(path):
    meta, rows = {}, []
    with open(path, newline="") as f:
        lines = []
        for line in f:
            if line.startswith("#"):
                key, _, val = line[1:].strip().partition(":")
                if val and key.strip() in ("device", "driver", "date",
                                           "host-cpu", "note", "compare"):
                    meta.setdefault(key.strip(), val.strip())
            elif line.strip():
                lines.append(line)
    for r in csv.DictReader(lines):
        if r.get("workload") in (None, "workload"):
            continue
        try:
            r["time_ms"] = float(r["time_ms"])
            r["throughput"] = float(r["throughput"])
        except (TypeError, ValueError):
            continue
        try:
            r["cpu_ms"] = float(r.get("cpu_ms") or "")
        except ValueError:
            r["cpu_ms"] = None
        r["driver"] = meta.get("driver", "?")
        r["date"] = meta.get("date", "?")
        r["source"] = os.path.basename(path)
        rows.append(r)
    return meta, rows


def collect(args):
    files = []
    for a in args:
        if os.path.isdir(a):
            files += sorted(glob.glob(os.path.join(a, "*.csv")))
        else:
            files.append(a)
    runs, merged = [], {}
    for path in files:
        meta, rows = read_csv(path)
        if not rows:
            continue
        runs.append((path, meta, rows))
        if "compare" in meta:
            continue
        for r in rows:
            merged[(r["workload"], r["size"], r["device"], r["impl"])] = r
    return runs, list(merged.values())


def ab_section(runs, rows):
    """Rows of the '# compare:' files beside the current rows."""
    now = {(r["workload"], r["size"], r["device"], r["impl"]): r for r in rows}
    out = []
    for path, meta, ab in runs:
        if "compare" not in meta:
            continue
        out += ["", "**%s** (%s, %s) against the current rows: speedup = its "
                "time / the current time." % (meta["compare"], os.path.basename(path),
                                              meta.get("date", "?")), "",
                "| workload | size | device | impl | current (ms) | it (ms) | speedup |",
                "|---|---|---|---|---|---|---|"]
        for r in sorted(ab, key=lambda r: (workload_key(r["workload"]), r["size"],
                                           r["impl"])):
            c = now.get((r["workload"], r["size"], r["device"], r["impl"]))
            if not c or c["time_ms"] <= 0:
                continue
            out.append("| %s | %s | %s | %s | %s | %s | %.2fx |" % (
                r["workload"], r["size"], r["device"], r["impl"], fmt(c["time_ms"]),
                fmt(r["time_ms"]), r["time_ms"] / c["time_ms"]))
    if out:
        out = ["", "## Compiler A/B"] + out
    return out


def device_refs(rows):
    """Per device: best copy bandwidth (GB/s) and FMA peaks (GFLOP/s)."""
    refs = {}
    for r in rows:
        d = refs.setdefault(r["device"], {})
        if r["workload"] == "copy" and r["checked"] != "FAIL":
            if r["throughput"] > d.get("copy", (0, ""))[0]:
                d["copy"] = (r["throughput"], r["impl"])
        if r["workload"] == "peak":
            d[r["size"]] = (r["throughput"], r["impl"])
    return refs


def share(r, ref):
    if r["unit"] == "GB/s" and "copy" in ref:
        return "%.0f%% of copy" % (100 * r["throughput"] / ref["copy"][0])
    key = {"sgemm": "fp32", "dgemm": "fp64"}.get(r["workload"])
    if r["unit"] == "GFLOP/s" and key in ref:
        return "%.0f%% of %s peak" % (100 * r["throughput"] / ref[key][0], key)
    return "-"


def fmt(x):
    return "%.3g" % x if x < 1000 else "%.0f" % x


def workload_key(w):
    return (ORDER.index(w) if w in ORDER else len(ORDER), w)


# The project's targets (the paper's margins over the SIMT baselines; the
# vendor library within 20%; memory-bound kernels at 70% of the measured
# copy bandwidth on the GPU; on the CPU, CM at least as fast as OpenCL).
SIMT_MARGIN = {"linear": 2.0, "bitonic": 1.6, "histogram": 1.5, "kmeans": 1.3,
               "spmv": 1.1, "transpose": 1.0, "sgemm": 1.0, "dgemm": 1.0,
               "scan-i32": 1.6, "scan-f32": 1.6}
VENDOR = {"linear": ["npp"], "bitonic": ["cub-radix", "cub-merge"],
          "histogram": ["cub"], "spmv": ["cusparse"], "sgemm": ["cublas"],
          "dgemm": ["cublas"], "scan-i32": ["cub"], "scan-f32": ["cub"]}
# CM variants with a target of their own, the least speed against the
# vendor's: the radix sort against CUB's, the fp16 GEMM on tensor cores
# (cm_wgmma) and the FP64 one (cm_dpas, DMMA) against cuBLAS (issue 12).
VARIANT_VENDOR = {("bitonic", "cm-radix"): (["cub-radix"], 0.8),
                  ("hgemm", "cm-wgs2"): (["cublas"], 0.7),
                  ("dgemm", "cm-async64"): (["cublas"], 0.8)}
MEMORY_BOUND = ("linear", "histogram", "spmv", "transpose", "scan-i32", "scan-f32")
# CPU: workloads whose CM algorithm matches the C reference's (issue 15):
# CM on the device's threads within 2x of plain C on one thread, per core:
# the CPU time CM's runs used against C's (cpu_ms, both measured), or, for
# rows without it (CSVs from before 2026-11-27), wall time x the device's
# threads against C's wall time, which charges CM for a worker the OS
# descheduled and for cores a memory-bound kernel left waiting.
PER_CORE = ("linear", "histogram", "kmeans", "spmv", "transpose", "sgemm", "dgemm",
            "scan-i32", "scan-f32")


def driver_threads(driver):
    """The OS threads a CPU row ran on, from "... (2 threads)"; 1 if unsaid."""
    m = re.search(r"\((\d+) threads?\)", driver)
    return int(m.group(1)) if m else 1


def per_core(own, c):
    """(ratio, how) of CM row own against C row c, per core."""
    if own.get("cpu_ms") is not None and own["cpu_ms"] > 0:
        cc = c["cpu_ms"] if c.get("cpu_ms") is not None and c["cpu_ms"] > 0 else c["time_ms"]
        return own["cpu_ms"] / cc, "CPU time / C's: %s / %s ms" % (fmt(own["cpu_ms"]), fmt(cc))
    t = driver_threads(own["driver"])
    return own["time_ms"] * t / c["time_ms"], "time x threads / C: %s x %d / %s ms" % (
        fmt(own["time_ms"]), t, fmt(c["time_ms"]))


def target_rows(rows, refs):
    """(workload, size, device, target, measured, met) for every CM row."""
    by = {}
    for r in rows:
        by.setdefault((r["workload"], r["size"], r["device"]), {})[r["impl"]] = r
    out = []
    for (w, size, dev), impls in sorted(by.items(), key=lambda k: (workload_key(k[0][0]), k[0][1:])):
        for (vw, vi), (vendors, least) in VARIANT_VENDOR.items():
            v = impls.get(vi)
            if vw != w or not v or v["checked"] != "yes" or v["time_ms"] <= 0:
                continue
            for x in vendors if dev.startswith("gpu:") else []:
                o = impls.get(x)
                if o and o["checked"] in ("yes", "ref"):
                    rv = o["time_ms"] / v["time_ms"]
                    what = ("within 20%% of %s (0.80x)" % x if least == 0.8 else
                            "at least %.2fx %s" % (least, x))
                    out.append((w, size, dev, "%s %s" % (vi, what), "%.2fx" % rv, rv >= least))
        cm = impls.get("cm")
        if not cm or cm["checked"] != "yes" or cm["time_ms"] <= 0:
            continue
        gpu = dev.startswith("gpu:")
        def ratio(impl):
            o = impls.get(impl)
            return o["time_ms"] / cm["time_ms"] if o and o["checked"] in ("yes", "ref") else None
        simt = ratio("cuda-simt") or ratio("ocl-simt") if gpu else ratio("ocl-simt")
        if gpu and w in SIMT_MARGIN and simt is not None:
            # the paper's histogram margin is for the one-value input
            if not (w == "histogram" and not size.startswith("skewed")):
                m = SIMT_MARGIN[w]
                out.append((w, size, dev, "%.1fx the SIMT baseline" % m, "%.2fx" % simt, simt >= m))
        if not gpu and simt is not None:
            out.append((w, size, dev, "1.0x OpenCL on PoCL", "%.2fx" % simt, simt >= 1.0))
        c = impls.get("c")
        # a CPU-shaped variant beside the kernel (cm-cpu) answers for it
        cpu = impls.get("cm-cpu")
        own = cpu if cpu and cpu["checked"] == "yes" and cpu["time_ms"] > 0 else cm
        if not gpu and w in PER_CORE and c and c["time_ms"] > 0:
            pc, how = per_core(own, c)
            out.append((w, size, dev, "%swithin 2x of plain C per core"
                        % ("cm-cpu " if own is cpu else ""), "%.2fx (%s)" % (pc, how), pc <= 2.0))
        if not gpu and own is cpu and impls.get("ocl-simt"):
            o = impls["ocl-simt"]
            if o["checked"] in ("yes", "ref"):
                rv = o["time_ms"] / cpu["time_ms"]
                out.append((w, size, dev, "cm-cpu 1.0x OpenCL on PoCL", "%.2fx" % rv, rv >= 1.0))
        for v in VENDOR.get(w, []) if gpu else []:
            rv = ratio(v)
            if rv is not None:
                out.append((w, size, dev, "within 20%% of %s (0.80x)" % v, "%.2fx" % rv, rv >= 0.8))
        copy = refs.get(dev, {}).get("copy")
        if gpu and w in MEMORY_BOUND and copy and cm["unit"] == "GB/s":
            f = cm["throughput"] / copy[0]
            out.append((w, size, dev, "70% of copy bandwidth", "%.0f%%" % (100 * f), f >= 0.7))
    return out


def write_md(path, runs, rows, charts, chart_note):
    refs = device_refs(rows)
    out = ["# Benchmark results", "",
           "Generated by `bench/report.py` from the CSV files below; do not "
           "edit by hand.  Ratios are time(X) / time(impl): above 1 means the "
           "row is faster than X.  Percentages relate GB/s rows to the "
           "device's best measured copy bandwidth and GEMM rows to its "
           "measured FMA peak.  `checked`: yes = checked against the C "
           "reference before timing; ref = the reference itself; FAIL = wrong "
           "result (the time is not meaningful).", "",
           "## Runs", "",
           "| source | device | driver / platform | date | host CPU |",
           "|---|---|---|---|---|"]
    for p, meta, _ in runs:
        out.append("| %s | %s | %s | %s | %s |" % (
            os.path.basename(p) + (" (A/B: %s)" % meta["compare"]
                                   if "compare" in meta else ""),
            meta.get("device", "?"), meta.get("driver", "?"), meta.get("date", "?"),
            meta.get("host-cpu", "?")))
    out += ["", "## Device reference rates", "",
            "| device | copy bandwidth | FP32 FMA peak | FP64 FMA peak |",
            "|---|---|---|---|"]
    for dev in sorted(refs):
        ref = refs[dev]
        cell = lambda k, u: ("%s %s (%s)" % (fmt(ref[k][0]), u, ref[k][1])
                             if k in ref else "not measured")
        out.append("| %s | %s | %s | %s |" % (dev, cell("copy", "GB/s"),
                                             cell("fp32", "GFLOP/s"),
                                             cell("fp64", "GFLOP/s")))
    targets = target_rows(rows, refs)
    missed = sum(1 for t in targets if not t[5])
    out += ["", "## Targets", "",
            "CM against the project's targets, per checked CM row: %d of %d met, "
            "%d missed.  Per core (CPU): the CPU time the CM row's runs used, "
            "every thread of the process (median of its runs), against the C "
            "row's; rows recorded without CPU time fall back to wall time x the "
            "device's threads against C's wall time." % (
                len(targets) - missed, len(targets), missed), "",
            "| workload | size | device | target | measured | |",
            "|---|---|---|---|---|---|"]
    for w, size, dev, what, got, met in targets:
        out.append("| %s | %s | %s | %s | %s | %s |" % (
            w, size, dev, what, got, "met" if met else "**missed**"))
    out += ab_section(runs, rows)
    groups = {}
    for r in rows:
        if r["workload"] in ("copy", "peak"):
            continue
        groups.setdefault(r["workload"], {}).setdefault(
            (r["size"], r["device"]), []).append(r)
    first = {ws[0]: name for name, ws in FAMILIES if name in charts}
    for w in sorted(groups, key=workload_key):
        out += ["", "## %s" % w]
        if w in first:
            out += ["", "![%s: each implementation against the SIMT port]"
                    "(charts/%s.png)" % (first[w], first[w])]
        for (size, dev), rs in sorted(groups[w].items()):
            rs.sort(key=lambda r: r["time_ms"])
            names = [r["impl"] for r in rs]
            # CPU rows measured with cpu_ms: the CPU time every thread used
            cpu = int(any(r.get("cpu_ms") is not None for r in rs))
            out += ["", "**%s** on %s" % (size, dev), "",
                    "| impl | time (ms) | %sthroughput | checked | " % (
                        "CPU time (ms) | " if cpu else "") +
                    " | ".join("vs %s" % n for n in names) + " | share |",
                    "|---|---|---|---|" + "---|" * (len(names) + cpu) + "---|"]
            for r in rs:
                ratios = ["-" if o is r else "%.2fx" % (o["time_ms"] / r["time_ms"])
                          if r["time_ms"] > 0 else "-" for o in rs]
                c = r.get("cpu_ms")
                out.append("| %s | %s | %s%s %s | %s | %s | %s |" % (
                    r["impl"], fmt(r["time_ms"]),
                    ("%s | " % ("-" if c is None else fmt(c))) if cpu else "",
                    fmt(r["throughput"]), r["unit"], r["checked"], " | ".join(ratios),
                    share(r, refs.get(dev, {}))))
    if not charts:
        out += ["", "No charts: %s" % chart_note]
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(FIELDS + ["driver", "date", "cpu_ms"])
        for r in sorted(rows, key=lambda r: (workload_key(r["workload"]),
                                             r["size"], r["device"], r["impl"])):
            cpu = r.get("cpu_ms")
            w.writerow([r[k] for k in FIELDS] + [r["driver"], r["date"],
                                                 "" if cpu is None else "%.4f" % cpu])


# Chart families: the workloads one panel shows together.
FAMILIES = [("linear", ["linear"]), ("bitonic", ["bitonic"]),
            ("histogram", ["histogram"]), ("kmeans", ["kmeans"]),
            ("spmv", ["spmv"]), ("transpose", ["transpose"]),
            ("gemm", ["sgemm", "dgemm"]), ("scan", ["scan-i32", "scan-f32"])]
# One colour per implementation, the same in every panel: CM in blues, the
# SIMT ports in oranges, plain C in grey, each vendor library its own hue.
COLOURS = {"cm": "#1f5fbf", "cm-paper": "#7fb0f0", "cm-canonical": "#a9c8ee",
           "cm-radix": "#0b3a7e", "cm-dpas": "#4a8fd0",
           "cuda-simt": "#f07f0e", "ocl-simt": "#f5b46a", "c": "#8c8c8c",
           "npp": "#2ca02c", "cub": "#d62728", "cub-radix": "#c51b7d",
           "cub-merge": "#9467bd", "cusparse": "#8c564b", "cublas": "#17a2b8",
           "cublas-geam": "#b5b520"}
SPARE = ["#e377c2", "#393b79", "#637939", "#843c39", "#7b4173", "#3182bd"]
# CM variants first (a CM label compares it with every implementation not
# listed here: the vendor libraries), then the SIMT ports and plain C.
IMPL_ORDER = ["cm", "cm-paper", "cm-canonical", "cm-radix", "cm-dpas", "cuda-simt", "ocl-simt",
              "c"]
BAR_PX, GAP_PX = 19, 12       # one bar's height, the space between cases
CHAR_PX = 7.4                 # a bar label's character (sans 10), with room to spare
TIC_CHAR_PX = 7.2             # a case label's character (sans 11)


def colour(impl):
    if impl in COLOURS:
        return COLOURS[impl]
    return SPARE[sum(map(ord, impl)) % len(SPARE)]


def short_device(dev):
    """'gpu:NVIDIA H100 80GB HBM3' -> 'H100', 'cpu:AMD EPYC' -> 'CPU (AMD EPYC)'."""
    kind, _, name = dev.partition(":")
    if kind == "gpu":
        words = name.replace("NVIDIA", "").split()
        return words[0] if words else dev
    return "CPU (%s)" % name if name else dev


def family_bars(rows, workloads):
    """[(case label, [(impl, speed relative to the case's SIMT port, text)])];
    the SIMT port itself is the line at 1, not a bar."""
    by = {}
    for r in rows:
        if r["workload"] in workloads and r["checked"] != "FAIL" and r["time_ms"] > 0:
            by.setdefault((r["device"], r["workload"], r["size"]), {})[r["impl"]] = r
    cases = []
    for (dev, w, size) in sorted(by, key=lambda k: (k[0].startswith("cpu"), k[0],
                                                    workloads.index(k[1]), k[2])):
        impls = by[(dev, w, size)]
        base = next((impls[b] for b in SIMT if b in impls), None)
        if base is None:
            continue
        order = sorted((i for i in impls if i != base["impl"]),
                       key=lambda i: (IMPL_ORDER.index(i) if i in IMPL_ORDER
                                      else len(IMPL_ORDER), i))
        vendors = [i for i in order if i not in IMPL_ORDER]
        vals = []
        for i in order:
            v = base["time_ms"] / impls[i]["time_ms"]
            text = "%s %.2fx" % (i, v)
            if i.startswith("cm"):   # CM against each vendor library, spelled out
                text += "".join(", %.2fx %s" % (impls[x]["time_ms"] / impls[i]["time_ms"], x)
                                for x in vendors)
            vals.append((i, v, text))
        label = "%s  %s%s" % (short_device(dev), w + " " if len(workloads) > 1 else "", size)
        cases.append((label, vals))
    return cases


def label_room(bars, plot_px):
    """The x range (half decades) that holds every bar and the label at its
    end: labels of bars right of 1 grow right, the others left."""
    lo, hi = 0.1, 10.0
    for _ in range(6):      # the scale depends on the range: settle it
        ppd = plot_px / (math.log10(hi) - math.log10(lo))
        need_lo = min([0.0] + [math.log10(v) - (n * CHAR_PX + 12) / ppd
                               for v, n in bars if v < 1.0])
        need_hi = max([0.0] + [math.log10(v) + (n * CHAR_PX + 12) / ppd
                               for v, n in bars if v >= 1.0])
        lo = 10 ** (math.floor(min(need_lo, -0.5) * 2) / 2)
        hi = 10 ** (math.ceil(max(need_hi, 0.5) * 2) / 2)
    return lo, hi


def family_chart(path, name, cases, tmpdir):
    """Horizontal bars on a log scale, growing from 1 (the SIMT port) to each
    implementation's speed relative to it; the implementation and its ratio
    are written at the end of its bar, the case beside its group."""
    bars, labels_r, labels_l, tics, y = [], [], [], [], 0.0
    for label, vals in cases:
        top = y
        for impl, v, text in vals:
            bars.append("%g %g %g %s" % (min(v, 1.0), max(v, 1.0), y,
                                         colour(impl)[1:]))
            text = '"%s"' % text
            (labels_r if v >= 1.0 else labels_l).append(
                "%g %g %s" % (v, y, text))
            y += 1
        tics.append('"%s" %g' % (label.replace('"', "'"), (top + y - 1) / 2))
        y += GAP_PX / BAR_PX
    lmargin = max(len(label) for label, _ in cases) + 3    # characters
    lo, hi = label_room([(v, len(t)) for _, vals in cases for _, v, t in vals],
                        1000 - lmargin * TIC_CHAR_PX - 40)
    decades = math.log10(hi / lo)     # tick labels ~45 px apart at least
    steps = (1,) if decades > 4.5 else (1, 3) if decades > 2.5 else (1, 2, 5)
    xtics = [m * 10 ** e for e in range(-3, 4) for m in steps
             if lo <= m * 10 ** e <= hi]
    files = {}
    for key, lines in (("bars", bars), ("right", labels_r), ("left", labels_l)):
        files[key] = os.path.join(tmpdir, "%s-%s.dat" % (name, key))
        with open(files[key], "w") as f:
            f.write("\n".join(lines or ["NaN NaN \"\""]) + "\n")
    height = int(y * BAR_PX) + 110
    # a labels plot of no points at all crashes gnuplot 5.4 (a histogram
    # chart with no label left of its bars): such a plot is left out
    plots = ["'%s' using (sqrt($1*$2)):3:1:2:($3-0.42):($3+0.42):(int('0x'.strcol(4))) "
             "with boxxyerror fs solid 0.9 noborder lc rgb variable" % files["bars"]]
    if labels_r:
        plots.append("'%s' using 1:2:3 with labels left offset 0.6,0 font 'sans,10'"
                     % files["right"])
    if labels_l:
        plots.append("'%s' using 1:2:3 with labels right offset -0.6,0 font 'sans,10'"
                     % files["left"])
    return [
        'set terminal pngcairo noenhanced size 1000,%d font "sans,11"' % height,
        'set output "%s"' % path, "reset",
        'set title "%s against the SIMT port (1 = cuda-simt on a GPU, '
        'ocl-simt on the CPU)" font "sans,13"' % name,
        'set xlabel "log scale, right of 1 = faster; '
        'a CM label adds CM against each vendor library"',
        "set logscale x", "set xrange [%g:%g]" % (lo, hi),
        "set yrange [%g:-0.7]" % (y - GAP_PX / BAR_PX + 0.3),
        "set ytics (%s) scale 0 font \"sans,11\"" % ", ".join(tics),
        "set xtics (%s)" % ", ".join('"%gx" %g' % (t, t) for t in xtics),
        "set grid xtics lc rgb '#dddddd'", "unset key", "set lmargin %d" % lmargin,
        "set arrow from 1, graph 0 to 1, graph 1 nohead lw 1.5 lc rgb '#333333' front",
        "plot " + ", ".join(plots)]


def chart(outdir, rows, tmpdir):
    """One PNG per workload family in outdir/charts, 1000 px wide; returns
    (family names drawn, note when none)."""
    chart_dir = os.path.join(outdir, "charts")
    script, drawn = [], []
    for name, workloads in FAMILIES:
        cases = family_bars(rows, workloads)
        if cases:
            script += family_chart(os.path.join(chart_dir, name + ".png"),
                                   name, cases, tmpdir)
            drawn.append(name)
    if not drawn:
        return [], "no rows with a SIMT baseline"
    os.makedirs(chart_dir, exist_ok=True)
    gp = os.path.join(tmpdir, "chart.gp")
    with open(gp, "w") as f:
        f.write("\n".join(script) + "\n")
    try:
        res = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
    except FileNotFoundError:
        return [], "gnuplot not installed (apt-get install -y gnuplot-nox)"
    if res.returncode:
        return [], "gnuplot failed: " + res.stderr.strip()[:300]
    return drawn, ""


def main(argv):
    outdir = os.path.dirname(os.path.abspath(__file__))
    args = argv[1:]
    if len(args) >= 2 and args[0] == "-o":
        outdir, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    runs, rows = collect(args)
    if not rows:
        sys.exit("report.py: no rows in " + " ".join(args))
    tmpdir = os.path.join(outdir, ".report-tmp")
    os.makedirs(tmpdir, exist_ok=True)
    charts, note = chart(outdir, rows, tmpdir)
    write_csv(os.path.join(outdir, "results.csv"), rows)
    write_md(os.path.join(outdir, "RESULTS.md"), runs, rows, charts, note)
    for f in glob.glob(os.path.join(tmpdir, "*")):
        os.remove(f)
    os.rmdir(tmpdir)
    bad = [r for r in rows if r["checked"] == "FAIL"]
    print("report.py: %d rows from %d files -> %s/RESULTS.md%s%s" % (
        len(rows), len(runs), outdir, "" if charts else " (no charts: %s)" % note,
        "; %d FAILED checks" % len(bad) if bad else ""))


if __name__ == "__main__":
    main(sys.argv)
