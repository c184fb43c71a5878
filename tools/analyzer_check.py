#!/usr/bin/env python3
"""analyzer_check.py: cmetal --analyze's throughput estimate against measured times.

  tools/analyzer_check.py [--cmetal build/cmetal] [CSV...]

For each bench case it can map, runs `cmetal --analyze` with the options the
bench builds with (-O2 -fno-bounds-check -ffp-contract=fast and the variant's
-D options, as tools/sass_bench.sh), turns the per-CM-thread SM cycles of each
resource into a time for the case on an H100 SXM (132 SMs at 1.755 GHz, the
analyzer's own machine model) and compares it with the measured time of the
CSV rows (default: bench/runs/gpu-h100-cm.csv, later files override earlier).

The launch shape of each case (CM threads per kernel, trips of its hot
loops) is taken from bench/cm/*.c and *.cm by hand: the CASES table below.
Loops are named by their block labels in `--analyze`, which follow the
compiler's block numbering: re-read them when a pass changes the CFG (the
blocks pass of 2026-11-27 merged straight-line seams and renumbered them).
Per CM thread, resource r costs body[r] + sum over hot loops of
(trips - 1) * loop[r] SM cycles (the body counts each loop once); the case
takes max over r of (sum over its kernels of threads * cycles[r]) / SMs
cycles.  Loops not named run once.  Standard library only.
"""
import csv, re, subprocess, sys, os

SMS, CLOCK = 132, 1.755e9
OPTS = ["-O2", "-fno-bounds-check", "-ffp-contract=fast"]
RES = ["issue", "shuffle", "shared", "DRAM", "SFU"]

def k_(file, kernel, threads, loops=None, defs=()):
    return dict(file=file, kernel=kernel, threads=threads, loops=loops or {}, defs=list(defs))

def linear(w, h):
    return [k_("linear", "linear", -(-w // 16) * -(-h // 8))]

def transpose(kernel, n):
    return [k_("transpose", kernel, (n // 32) ** 2)]

def histogram(n):
    chunk = max(4096, (n // 16384 + 511) // 512 * 512)
    # the 512-byte block loop: its read and its 32-wide SLM increments
    return [k_("histogram", "histogram", -(-n // chunk),
               {"b10": chunk // 512, "b12": chunk // 512, "b16": chunk // 512})]

def sgemm(n):   # groups of 8 threads own 128x128 of C; k steps of 16
    return [k_("gemm", "sgemm", (n // 128) ** 2 * 8, {"b10": n // 16, "b12": n // 16})]

def gemm_paper(kernel, rows, n):   # R x 128 of C per thread, k panels of 8
    return [k_("gemm", kernel, (n // rows) * (n // 128), {"b8": n // 8})]

def scan_tiles(t, n):   # one pass, one CM thread per 4096-element slice
    d = ["-DT=" + t] + (["-DT_INT"] if t == "uint" else [])
    return [k_("scan", "scan_tiles", n // 4096, {}, d)]

def scan_paper(t, n):   # reduce / carry / apply over 8192-element chunks
    c = n // 8192
    d = ["-DT=" + t]
    return [k_("scan", "scan_reduce", c, {"b6": 256}, d),
            k_("scan", "scan_carry", 1, {"b1": -(-c // 32)}, d),
            k_("scan", "scan_apply", c, {"b6": 256}, d)]

CASES = [  # workload, size, impl, kernels
    ("linear", "1920x1080", "cm", linear(1920, 1080)),
    ("linear", "7680x4320", "cm", linear(7680, 4320)),
    ("histogram", "random-256MB", "cm", histogram(1 << 28)),
    ("histogram", "skewed-256MB", "cm", histogram(1 << 28)),
    ("transpose", "4096^2", "cm", transpose("transpose", 4096)),
    ("transpose", "4096^2", "cm-paper", transpose("transpose_paper", 4096)),
    ("transpose", "8192^2", "cm", transpose("transpose", 8192)),
    ("transpose", "8192^2", "cm-paper", transpose("transpose_paper", 8192)),
    ("sgemm", "4096^3", "cm", sgemm(4096)),
    ("sgemm", "4096^3", "cm-paper", gemm_paper("sgemm_paper", 16, 4096)),
    ("sgemm", "8192^3", "cm", sgemm(8192)),
    ("sgemm", "8192^3", "cm-paper", gemm_paper("sgemm_paper", 16, 8192)),
    ("dgemm", "4096^3", "cm", gemm_paper("dgemm", 8, 4096)),
    ("dgemm", "8192^3", "cm", gemm_paper("dgemm", 8, 8192)),
]
for t, w in (("uint", "scan-i32"), ("float", "scan-f32")):
    for e in (24, 28):
        CASES.append((w, "2^%d" % e, "cm", scan_tiles(t, 1 << e)))
        CASES.append((w, "2^%d" % e, "cm-paper", scan_paper(t, 1 << e)))

CYC = re.compile(r"issue ([\d.]+), shuffle ([\d.]+), shared ([\d.]+), DRAM ([\d.]+), SFU ([\d.]+)")

def analyze(cmetal, file, defs, cache={}):
    """{kernel: {"body": cycles, loop label: cycles}} of one compile."""
    key = (file, tuple(defs))
    if key not in cache:
        src = os.path.join(os.path.dirname(__file__), "..", "bench", "cm", file + ".cm")
        out = subprocess.run([cmetal, "--analyze"] + OPTS + defs + [src], check=True,
                             capture_output=True, text=True).stdout
        ks, cur, what = {}, None, None
        for line in out.splitlines():
            m = re.match(r"kernel (\S+) ", line)
            if m:
                cur = ks.setdefault(m.group(1), {})
            elif "kernel body" in line:
                what = "body"
            elif "innermost loop" in line:
                # a versioned loop's copy without checks ("..._bN_v") is
                # the loop's estimate (docs/analyzer.md)
                what = re.search(r"loop \$L_(?:\w+?_)?(b\d+|t\d+)(?:_v)?,", line).group(1)
            elif "SM cycles" in line and cur is not None:
                cur[what] = [float(x) for x in CYC.search(line).groups()]
        cache[key] = ks
    return cache[key]

def estimate(cmetal, kernels):
    tot = [0.0] * len(RES)
    for k in kernels:
        an = analyze(cmetal, k["file"], k["defs"])[k["kernel"]]
        for r in range(len(RES)):
            c = an["body"][r] + sum((t - 1) * an[l][r] for l, t in k["loops"].items())
            tot[r] += k["threads"] * c
    r = max(range(len(RES)), key=lambda i: tot[i])
    return tot[r] / SMS / CLOCK * 1e3, RES[r]

def measured(paths):
    m = {}
    for p in paths:
        with open(p) as f:
            for row in csv.reader(l for l in f if not l.startswith("#")):
                if len(row) > 4 and row[3].startswith("cm") and row[0] != "workload":
                    m[(row[0], row[1], row[3])] = float(row[4])
    return m

def main(argv):
    cmetal, paths = "build/cmetal", []
    while argv:
        a = argv.pop(0)
        if a == "--cmetal":
            cmetal = argv.pop(0)
        else:
            paths.append(a)
    meas = measured(paths or ["bench/runs/gpu-h100-cm.csv"])
    print("%-10s %-13s %-9s %10s %10s %7s %-5s %s" % ("workload", "size", "variant",
          "est ms", "meas ms", "ratio", "2x?", "bound"))
    rows, inside = {}, 0
    for w, size, impl, ks in CASES:
        t = meas.get((w, size, impl))
        est, lim = estimate(cmetal, ks)
        if t is None:
            print("%-10s %-13s %-9s %10.4f %10s" % (w, size, impl, est, "-"))
            continue
        ok = 0.5 <= est / t <= 2
        inside += ok
        rows.setdefault((w, size), []).append((impl, est, t))
        print("%-10s %-13s %-9s %10.4f %10.4f %7.2f %-5s %s" % (w, size, impl, est, t,
              est / t, "yes" if ok else "NO", lim))
    print("\n%d of %d cases within 2x" % (inside, sum(len(v) for v in rows.values())))
    print("\nranking of variants (fastest first):")
    for (w, size), v in rows.items():
        if len(v) < 2:
            continue
        by_est = [i for i, _, _ in sorted(v, key=lambda x: x[1])]
        by_meas = [i for i, _, _ in sorted(v, key=lambda x: x[2])]
        print("  %-10s %-10s estimate %-20s measured %-20s %s" % (w, size, " < ".join(by_est),
              " < ".join(by_meas), "same" if by_est == by_meas else "DIFFERENT"))

if __name__ == "__main__":
    main(sys.argv[1:])
