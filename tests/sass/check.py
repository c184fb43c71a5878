#!/usr/bin/env python3
"""check.py — SASS per unit of work of the bench kernels against table.txt.

    tests/sass/check.py DIR TABLE

DIR holds what `tools/sass_bench.sh -o DIR` left: NAME.sass (nvdisasm -c)
and NAME.log (ptxas -v) per bench kernel variant.  TABLE (its header says
what the columns and regions mean) names one region and one unit of work
per kernel.  Prints `ok sass/ROW` or `FAIL sass/ROW` and the reasons, then
the table of current figures.  A row fails when its SASS or SHFL per unit
grows by more than 5%, when the kernel's registers grow past what keeps
as many warps resident on an SM (sm_90: 64K registers, allotted 8 per
lane at a time, at most 64 warps; growth within that is reported), when
any kernel
has divergent fallback code, or when its region cannot be found.  Targets
are reported as met or missed and never fail.  With UPDATE=1 the figures
are re-recorded (a kernel new to the table gets region `all`, to be
refined by hand; rows of kernels that are gone are dropped).
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import sass_stats  # noqa: E402

SLACK = 1.05
COLUMNS = ["kernel", "region", "unit", "work", "sass/unit", "shfl/unit", "fallback", "regs", "target"]



def resident_warps(regs):
    """Warps an sm_90 SM holds at regs registers per lane, by registers
    alone (the occupancy that register growth can cost)."""
    per_lane = max(8, (regs + 7) // 8 * 8)
    return min(64, 65536 // (per_lane * 32))

def read_table(path):
    """(header comment lines, [row dict]) of the table file."""
    header, rows = [], []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                if not rows:
                    header.append(line.rstrip("\n"))
                continue
            cols = line.split()
            if len(cols) != len(COLUMNS):
                raise ValueError("%s: %d columns, not %d: %s" % (path, len(cols), len(COLUMNS), line.strip()))
            rows.append(dict(zip(COLUMNS, cols)))
    return header, rows


def write_table(path, header, rows):
    width = [max(len(c), *(len(r[c]) for r in rows)) for c in COLUMNS]
    width[0] = max(width[0], len("# " + COLUMNS[0]))
    with open(path, "w") as f:
        for line in header:
            if line.startswith("# kernel "):	# the column line, realigned
                continue
            f.write(line + "\n")
        cells = [c.ljust(w) for c, w in zip(COLUMNS, width)]
        cells[0] = ("# " + COLUMNS[0]).ljust(width[0])
        f.write(" ".join(cells).rstrip() + "\n")
        for r in rows:
            f.write(" ".join(r[c].ljust(w) for c, w in zip(COLUMNS, width)).rstrip() + "\n")


WORK = re.compile(r"^(?:(\d+(?:\.\d+)?)\*)?([A-Za-z][A-Za-z0-9_.]*)(?:/(\d+(?:\.\d+)?))?$")


def work(ins, expr):
    """Units of work in the region: N, COUNTER, N*COUNTER or COUNTER/N."""
    if re.match(r"^\d+(\.\d+)?$", expr):
        return float(expr)
    m = WORK.match(expr)
    if not m:
        raise ValueError("bad work '%s'" % expr)
    return sass_stats.counter(ins, m.group(2)) * float(m.group(1) or 1) / float(m.group(3) or 1)


def target(spec, sass, shfl):
    """'met' or 'missed' for a target such as sass<=2.5 or shfl=0 ('-' for none)."""
    if spec == "-":
        return "-"
    now = {"sass": sass, "shfl": shfl}
    for t in spec.split(","):
        m = re.match(r"^(sass|shfl)(<=|=)([\d.]+)$", t)
        if not m:
            return "bad target '%s'" % t
        if now[m.group(1)] > float(m.group(3)) + 1e-9:
            return "missed"
    return "met"


def fmt(x):
    return "%.3f" % x


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    outdir, table = argv
    update = os.environ.get("UPDATE") == "1"
    header, rows = read_table(table)
    # NAME$narrow: a kernel's entry for images of narrower pixels
    # (src/target/ptx/variant.c), launched only for those: not in the table
    kernels = {name: (ins, regs) for name, ins, regs in
               sass_stats.load(sorted(glob.glob(os.path.join(outdir, "*.sass"))), None, True)
               if not name.endswith("$narrow")}
    seen, out, report = set(), [], []
    for r in rows:
        key = r["kernel"]
        name = key.split("/")[0]	# kernel/label: several rows for one kernel
        if name not in kernels:
            if not update:
                print("FAIL sass/%s\n    no such kernel among the bench variants" % key)
            continue
        seen.add(name)
        ins, regs = kernels[name]
        why = []
        try:
            reg = sass_stats.region(ins, r["region"])
            units = work(reg, r["work"])
            if units <= 0:
                raise ValueError("no work (%s = 0) in region %s" % (r["work"], r["region"]))
        except ValueError as e:
            print("FAIL sass/%s\n    %s" % (key, e))
            out.append(r)
            continue
        sass = len(reg) / units
        shfl = sass_stats.counter(reg, "SHFL") / units
        fallback = sass_stats.stats(ins)["fallback"]
        regs = regs or 0
        for col, now in (("sass/unit", sass), ("shfl/unit", shfl)):
            old = float(r[col])
            if now > old * SLACK + 1e-9:
                why.append("%s %s, recorded %s (+%.0f%%; 5%% allowed)"
                           % (col, fmt(now), r[col], 100 * (now / old - 1) if old else float("inf")))
        if resident_warps(regs) < resident_warps(int(r["regs"])):
            why.append("registers %d, recorded %s: %d warps per SM, was %d"
                       % (regs, r["regs"], resident_warps(regs), resident_warps(int(r["regs"]))))
        if fallback:
            why.append("%d SASS of divergent fallback code (a branch before a shuffle not known "
                       "to be uniform: emit bra.uni)" % fallback)
        better = [col for col, now in (("sass/unit", sass), ("shfl/unit", shfl))
                  if now < float(r[col]) / SLACK - 1e-9]
        if update:
            r = dict(r, **{"sass/unit": fmt(sass), "shfl/unit": fmt(shfl),
                           "fallback": str(fallback), "regs": str(regs)})
        out.append(r)
        rec = {c: r[c] for c in ("sass/unit", "shfl/unit", "regs")}
        if why and not update:
            print("FAIL sass/%s" % key)
            for w in why:
                print("    " + w)
        else:
            note = " (better than recorded: %s; UPDATE=1 re-records)" % ", ".join(better) if better and not update else ""
            print("ok sass/%s%s" % (key, note))
        report.append((key, r, len(reg), units, sass, shfl, regs, fallback, rec))
    for name in sorted(set(kernels) - seen):
        if update:
            ins, regs = kernels[name]
            n = len(sass_stats.region(ins, "all"))
            out.append({"kernel": name, "region": "all", "unit": "kernel", "work": "1",
                        "sass/unit": fmt(n), "shfl/unit": fmt(sass_stats.counter(ins, "SHFL")),
                        "fallback": str(sass_stats.stats(ins)["fallback"]),
                        "regs": str(regs or 0), "target": "-"})
        else:
            print("FAIL sass/%s\n    not in %s: add its row (UPDATE=1 adds one for the whole kernel)"
                  % (name, os.path.relpath(table)))
    if update:
        write_table(table, header, out)
    print_report(report)
    return 0


def print_report(report):
    """The current figures, indented like the other suites' tables."""
    print("    SASS per unit of work (sm_90; recorded figure in parentheses when it differs):")
    lines = [("kernel", "region", "SASS", "unit", "units", "sass/unit", "shfl/unit", "regs", "fallback", "target")]
    for key, r, n, units, sass, shfl, regs, fallback, rec in report:
        was = lambda now, old: now if now == old else "%s (%s)" % (now, old)
        t = target(r["target"], sass, shfl)
        lines.append((key, r["region"], str(n), r["unit"], "%g" % units,
                      was(fmt(sass), rec["sass/unit"]), was(fmt(shfl), rec["shfl/unit"]),
                      was(str(regs), rec["regs"]), str(fallback),
                      "-" if t == "-" else "%s %s" % (r["target"], t)))
    width = [max(len(l[i]) for l in lines) for i in range(len(lines[0]))]
    for l in lines:
        print("    " + "  ".join(c.ljust(w) for c, w in zip(l, width)).rstrip())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
