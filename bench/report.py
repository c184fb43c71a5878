#!/usr/bin/env python3
"""report.py -- merge benchmark CSVs into bench/results.csv, bench/RESULTS.md
and bench/chart.png.  Python 3 standard library only (plus gnuplot for the
chart, skipped with a note when gnuplot is missing).

usage: bench/report.py [-o DIR] FILE.csv|DIR ...
  A directory argument means every *.csv in it.  Each CSV is what a harness
  prints: '# key: value' comment lines (device, driver, date, host-cpu, note)
  and rows  workload,size,device,impl,time_ms,throughput,unit,checked.
  A later file's row replaces an earlier one with the same
  (workload, size, device, impl).

RESULTS.md has, per workload, size and device: time, throughput, the ratio
to each other implementation measured there (time(X) / time(impl): above 1
means faster than X), and the share of the device's measured copy bandwidth
(workload 'copy', the best row) for GB/s rows or of its measured FMA peak
(workload 'peak') for GEMM.  Nothing in it is written by hand.
"""
import csv
import glob
import math
import os
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
                                           "host-cpu", "note"):
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
        for r in rows:
            merged[(r["workload"], r["size"], r["device"], r["impl"])] = r
    return runs, list(merged.values())


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
MEMORY_BOUND = ("linear", "histogram", "spmv", "transpose", "scan-i32", "scan-f32")


def target_rows(rows, refs):
    """(workload, size, device, target, measured, met) for every CM row."""
    by = {}
    for r in rows:
        by.setdefault((r["workload"], r["size"], r["device"]), {})[r["impl"]] = r
    out = []
    for (w, size, dev), impls in sorted(by.items(), key=lambda k: (workload_key(k[0][0]), k[0][1:])):
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
        for v in VENDOR.get(w, []) if gpu else []:
            rv = ratio(v)
            if rv is not None:
                out.append((w, size, dev, "within 20%% of %s (0.80x)" % v, "%.2fx" % rv, rv >= 0.8))
        copy = refs.get(dev, {}).get("copy")
        if gpu and w in MEMORY_BOUND and copy and cm["unit"] == "GB/s":
            f = cm["throughput"] / copy[0]
            out.append((w, size, dev, "70% of copy bandwidth", "%.0f%%" % (100 * f), f >= 0.7))
    return out


def write_md(path, runs, rows, chart_ok, chart_note):
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
            os.path.basename(p), meta.get("device", "?"),
            meta.get("driver", "?"), meta.get("date", "?"),
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
            "%d missed." % (len(targets) - missed, len(targets), missed), "",
            "| workload | size | device | target | measured | |",
            "|---|---|---|---|---|---|"]
    for w, size, dev, what, got, met in targets:
        out.append("| %s | %s | %s | %s | %s | %s |" % (
            w, size, dev, what, got, "met" if met else "**missed**"))
    groups = {}
    for r in rows:
        if r["workload"] in ("copy", "peak"):
            continue
        groups.setdefault(r["workload"], {}).setdefault(
            (r["size"], r["device"]), []).append(r)
    for w in sorted(groups, key=workload_key):
        out += ["", "## %s" % w]
        for (size, dev), rs in sorted(groups[w].items()):
            rs.sort(key=lambda r: r["time_ms"])
            names = [r["impl"] for r in rs]
            out += ["", "**%s** on %s" % (size, dev), "",
                    "| impl | time (ms) | throughput | checked | " +
                    " | ".join("vs %s" % n for n in names) + " | share |",
                    "|---|---|---|---|" + "---|" * len(names) + "---|"]
            for r in rs:
                ratios = ["-" if o is r else "%.2fx" % (o["time_ms"] / r["time_ms"])
                          if r["time_ms"] > 0 else "-" for o in rs]
                out.append("| %s | %s | %s %s | %s | %s | %s |" % (
                    r["impl"], fmt(r["time_ms"]), fmt(r["throughput"]),
                    r["unit"], r["checked"], " | ".join(ratios),
                    share(r, refs.get(dev, {}))))
    out += ["", "## Chart", ""]
    out.append("![throughput relative to the SIMT baseline](chart.png)"
               if chart_ok else "No chart: %s" % chart_note)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(FIELDS + ["driver", "date"])
        for r in sorted(rows, key=lambda r: (workload_key(r["workload"]),
                                             r["size"], r["device"], r["impl"])):
            w.writerow([r[k] for k in FIELDS] + [r["driver"], r["date"]])


def chart(path, rows, tmpdir):
    """One panel per device: each case's throughput relative to that
    device's SIMT baseline (CM rows, impl 'cm', appear as their own bars)."""
    devs = sorted({r["device"] for r in rows
                   if r["workload"] not in ("copy", "peak")})
    panels = []
    for dev in devs:
        rs = [r for r in rows if r["device"] == dev and
              r["workload"] not in ("copy", "peak") and r["checked"] != "FAIL"]
        cases = sorted({(r["workload"], r["size"]) for r in rs},
                       key=lambda c: (workload_key(c[0]), c[1]))
        impls = sorted({r["impl"] for r in rs},
                       key=lambda i: (i != "cm", i not in SIMT, i))
        by = {(r["workload"], r["size"], r["impl"]): r for r in rs}
        lines = []
        for w, s in cases:
            base = next((by[(w, s, b)] for b in SIMT if (w, s, b) in by), None)
            base = base or next(by[(w, s, i)] for i in impls if (w, s, i) in by)
            vals = ["%.4g" % (base["time_ms"] / by[(w, s, i)]["time_ms"])
                    if (w, s, i) in by and by[(w, s, i)]["time_ms"] > 0 else "?"
                    for i in impls]
            lines.append('"%s %s" %s' % (w, s, " ".join(vals)))
        nums = [float(v) for line in lines for v in line.rsplit('"', 1)[1].split()
                if v != "?"] or [1.0]
        lo = 10 ** math.floor(math.log10(min(nums + [1.0])) - 0.3)
        hi = 10 ** math.ceil(math.log10(max(nums + [1.0])) + 0.01)
        dat = os.path.join(tmpdir, "chart-%d.dat" % len(panels))
        with open(dat, "w") as f:
            f.write("case " + " ".join(impls) + "\n" + "\n".join(lines) + "\n")
        panels.append((dev, dat, impls, len(cases), lo, hi))
    if not panels:
        return False, "no rows"
    width = max(900, 28 * max(p[3] for p in panels) * max(2, len(max(
        (p[2] for p in panels), key=len))))
    script = ['set terminal pngcairo noenhanced size %d,%d font ",9"' % (
                  min(width, 4000), 420 * len(panels)),
              'set output "%s"' % path,
              "set datafile missing '?'",
              "set style data histogram", "set style histogram cluster gap 1",
              "set style fill solid 0.8 border -1", "set logscale y",
              "set xtics rotate by -40 scale 0", "set grid ytics",
              "set key outside right top",
              "set ylabel 'speed relative to SIMT baseline (log)'",
              "set multiplot layout %d,1" % len(panels)]
    for dev, dat, impls, _, lo, hi in panels:
        script.append('set title "%s"' % dev.replace('"', "'"))
        script.append("set yrange [%g:%g]" % (lo, hi))
        script.append("plot " + ", ".join(
            "'%s' using %d:xtic(1) title columnheader(%d)" % (dat, i + 2, i + 2)
            for i in range(len(impls))))
    script.append("unset multiplot")
    gp = os.path.join(tmpdir, "chart.gp")
    with open(gp, "w") as f:
        f.write("\n".join(script) + "\n")
    try:
        res = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
    except FileNotFoundError:
        return False, "gnuplot not installed (apt-get install -y gnuplot-nox)"
    if res.returncode:
        return False, "gnuplot failed: " + res.stderr.strip()[:300]
    return True, ""


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
    ok, note = chart(os.path.join(outdir, "chart.png"), rows, tmpdir)
    write_csv(os.path.join(outdir, "results.csv"), rows)
    write_md(os.path.join(outdir, "RESULTS.md"), runs, rows, ok, note)
    for f in glob.glob(os.path.join(tmpdir, "*")):
        os.remove(f)
    os.rmdir(tmpdir)
    bad = [r for r in rows if r["checked"] == "FAIL"]
    print("report.py: %d rows from %d files -> %s/RESULTS.md%s%s" % (
        len(rows), len(runs), outdir, "" if ok else " (no chart: %s)" % note,
        "; %d FAILED checks" % len(bad) if bad else ""))


if __name__ == "__main__":
    main(sys.argv)
