#!/usr/bin/env python3
"""analyzer_check.py: cmetal --analyze's throughput estimate against measured times.

  tools/analyzer_check.py [--cmetal build/cmetal] [CSV...]

For each bench case it can map, runs `cmetal --analyze-grid=THREADS,GROUP`
(the launch of each kernel) with the options the bench builds with (-O2
-fno-bounds-check -ffp-contract=fast and the variant's -D options, as
tools/sass_bench.sh), turns the per-CM-thread SM cycles of each resource
into a time for the case on an H100 SXM (132 SMs at 1.98 GHz, the analyzer's
own machine model) and compares it with the measured time of the CSV rows
(default: bench/runs/2026-11-27-h100-map6/gpu-h100-cm.csv, the H100 run of the
current kernels; later files override earlier).

The launch shape of each case (CM threads and group size per kernel, trips
of its hot loops) is taken from bench/cm/*.c and *.cm by hand: the CASES
table below.  Loops are named by their block labels in `--analyze`, which
follow the compiler's block numbering: re-read them when a pass changes the
CFG (the blocks pass of 2026-11-27 merged straight-line seams and renumbered
them).  Per CM thread, resource r costs body[r] + sum over loops of
(trips - 1) * loop[r] SM cycles (the body counts each loop once; a loop's
line leaves out the loops nested in it, whose trips are all their trips
in the kernel); the resources are issue, shuffle, shared, DRAM, L2, SFU
and latency (the cycles one CM thread takes alone over the CM threads an
SM runs at once: the analyzer divides by them for the launch given).  The
DRAM term is scaled down to the kernel's footprint where it requests more
global bytes than that (the rest come from the caches, in the L2 term).
A kernel takes max over r of threads * cycles[r] / SMs cycles, or the
chain of a spin loop (threads / lanes polls, each one trip of the loop) if
longer; a case's kernels run one after another (the bench syncs between
them), so their times add up.  Loops not named run once.  Standard
library only.
"""
import csv, re, subprocess, sys, os

SMS, CLOCK = 132, 1.98e9
OPTS = ["-O2", "-fno-bounds-check", "-ffp-contract=fast"]
RES = ["issue", "shuffle", "shared", "DRAM", "L2", "SFU", "latency", "chain"]
DRAM, BYTES = RES.index("DRAM"), len(RES) - 1   # a span's global bytes per lane: last

def k_(file, kernel, threads, group, footprint, loops=None, defs=()):
    """footprint: the bytes of the kernel's buffers it reads and writes
    (each once), from the bench's buffer sizes."""
    return dict(file=file, kernel=kernel, threads=threads, group=group, footprint=footprint,
                loops=loops or {}, defs=list(defs))

def linear(w, h):   # groups of 8 x 4; 3 bytes a pixel in, 3 out
    return [k_("linear", "linear", -(-w // 16) * -(-h // 8), 32, 6 * w * h)]

def transpose(kernel, n, group):
    return [k_("transpose", kernel, (n // 32) ** 2, group, 2 * 4 * n * n)]

def histogram(n):
    chunk = max(4096, (n // 16384 + 511) // 512 * 512)
    # b1 zeroes the 257 rows of SLM copies, 8 threads a group; b10 is the
    # 512-byte block loop; b18 the final sum over the 32 copies (once)
    return [k_("histogram", "histogram", -(-n // chunk), 8, n + 1024,
               {"b1": -(-257 // 8), "b10": chunk // 512})]

def sgemm(n):   # groups of 8 threads own 128x128 of C; k steps of 16
    # b5: the k loop (the next step's tile loads, SLM writes, barrier);
    # b12: the kk loop in it, 16 trips a step (rolled in the source:
    # gemm.cm says why)
    # A and B read, C read and written
    return [k_("gemm", "sgemm", (n // 128) ** 2 * 8, 8, 4 * 4 * n * n, {"b5": n // 16, "b12": n})]

def gemm_paper(kernel, rows, n, group=1):   # R x 128 of C per thread, k panels of 8
    # the bench leaves the grouping to the runtime, which runs one CM
    # thread a CTA on Hopper (gemm.c); the recorded H100 run of
    # 2026-11-27 (map6) had groups of 4 x 4: group=16 for it
    es = 8 if kernel == "dgemm" else 4
    return [k_("gemm", kernel, (n // rows) * (n // 128), group, 4 * es * n * n, {"b5": n // 8})]

def scan_tiles(t, n):   # one pass: groups of 4 CM threads, 4096 elements each, share a tile
    # the data read and written, 4 dwords of state a 16384-element tile
    return [k_("scan", "scan_tiles", n // 4096, 4, 8 * n + 16 * (n // 16384), {}, t)]

def scan_paper(t, n):   # reduce / carry / apply over 8192-element chunks, groups of 8
    c = n // 8192
    return [k_("scan", "scan_reduce", c, 8, 4 * n + 4 * c, {"b6": 256}, t),
            k_("scan", "scan_carry", 1, 1, 8 * c, {"b1": -(-c // 32)}, t),
            k_("scan", "scan_apply", c, 8, 8 * n + 4 * c, {"b6": 256}, t)]

CASES = [  # workload, size, impl, kernels
    ("linear", "1920x1080", "cm", linear(1920, 1080)),
    ("linear", "7680x4320", "cm", linear(7680, 4320)),
    ("histogram", "random-256MB", "cm", histogram(1 << 28)),
    ("histogram", "skewed-256MB", "cm", histogram(1 << 28)),
    ("transpose", "4096^2", "cm", transpose("transpose", 4096, 8)),
    ("transpose", "4096^2", "cm-paper", transpose("transpose_paper", 4096, 32)),
    ("transpose", "8192^2", "cm", transpose("transpose", 8192, 8)),
    ("transpose", "8192^2", "cm-paper", transpose("transpose_paper", 8192, 32)),
    ("sgemm", "4096^3", "cm", sgemm(4096)),
    ("sgemm", "4096^3", "cm-paper", gemm_paper("sgemm_paper", 16, 4096)),
    ("sgemm", "8192^3", "cm", sgemm(8192)),
    ("sgemm", "8192^3", "cm-paper", gemm_paper("sgemm_paper", 16, 8192)),
    ("dgemm", "4096^3", "cm", gemm_paper("dgemm", 8, 4096)),
    ("dgemm", "8192^3", "cm", gemm_paper("dgemm", 8, 8192)),
]
for t, w in ((["-DT=uint", "-DT_INT"], "scan-i32"), (["-DT=float"], "scan-f32")):
    for e in (24, 28):
        CASES.append((w, "2^%d" % e, "cm", scan_tiles(t, 1 << e)))
        CASES.append((w, "2^%d" % e, "cm-paper", scan_paper(t, 1 << e)))

CYC = re.compile(r"issue ([\d.]+), shuffle ([\d.]+), shared ([\d.]+), DRAM ([\d.]+), "
                 r"L2 ([\d.]+), SFU ([\d.]+), latency ([\d.]+)")
GLOBAL = re.compile(r"bytes per lane: shared \d+, global (\d+)")
CHAIN = re.compile(r"spin: .*: ([\d.]+) SM cycles for")

def analyze(cmetal, k, cache={}):
    """{kernel: {"body": cycles, loop label: cycles, "chain": cycles}} of
    one compile for k's launch."""
    key = (k["file"], tuple(k["defs"]), k["threads"], k["group"])
    if key not in cache:
        src = os.path.join(os.path.dirname(__file__), "..", "bench", "cm", k["file"] + ".cm")
        grid = "--analyze-grid=%d,%d" % (k["threads"], k["group"])
        out = subprocess.run([cmetal, grid] + OPTS + k["defs"] + [src], check=True,
                             capture_output=True, text=True).stdout
        ks, cur, what, gbytes = {}, None, None, 0.0
        for line in out.splitlines():
            m = re.match(r"kernel (\S+) ", line)
            if m:
                cur = ks.setdefault(m.group(1), {"chain": 0.0})
            elif "kernel body" in line:
                what = "body"
            elif line.startswith("  loop "):
                # named by its header; a versioned loop's copy without
                # checks ("..._bN_v") is the loop's estimate (docs/analyzer.md)
                what = re.search(r"loop \$L_(?:\w+?_)?(b\d+|t\d+)(?:_v)? ", line).group(1)
            elif CHAIN.search(line) and cur is not None:
                cur["chain"] = max(cur["chain"], float(CHAIN.search(line).group(1)))
            elif "SM cycles per CM thread" in line and cur is not None:
                cur[what] = [float(x) for x in CYC.search(line).groups()] + [gbytes]
            if GLOBAL.search(line):
                gbytes = float(GLOBAL.search(line).group(1))
        cache[key] = ks
    return cache[key][k["kernel"]]

def estimate(cmetal, kernels):
    """The case's time (ms) and the resource bounding its longest kernel."""
    total, worst = 0.0, (0.0, "")
    for k in kernels:
        an = analyze(cmetal, k)
        tot = []
        for r in range(BYTES + 1):
            c = an["body"][r] + sum((t - 1) * an[l][r] for l, t in k["loops"].items())
            tot.append(k["threads"] * c / SMS)
        # DRAM moves each byte of the footprint once at least; bytes read
        # again come from the caches (the L2 term covers them)
        requested = tot.pop() * SMS * 32
        if requested > k["footprint"]:
            tot[DRAM] *= k["footprint"] / requested
        tot.append(an["chain"])
        r = max(range(len(RES)), key=lambda i: tot[i])
        total += tot[r]
        worst = max(worst, (tot[r], RES[r]))
    return total / CLOCK * 1e3, worst[1]

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
    meas = measured(paths or ["bench/runs/2026-11-27-h100-map6/gpu-h100-cm.csv"])
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
