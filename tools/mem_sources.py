#!/usr/bin/env python3
"""mem_sources.py — generated CM sources for measuring the compiler's memory.

    tools/mem_sources.py KIND [BYTES] > FILE.cm
    tools/mem_sources.py --measure [--cmetal PATH] [BYTES]

KIND is one of
  many     small kernels (about 160 bytes each), as tests/rt/test_limits.c's
           limits_memory_per_byte_* cases;
  huge     one kernel of straight-line vector code (test_limits.c's _huge_);
  helpers  kernels that call helper functions, with loops and SIMD control
           flow;
  tables   constant lookup tables read by small kernels.

BYTES is the size to reach (default 1,000,000).  --measure writes each kind
to a temporary file and prints, for -fsyntax-only, -S -t c and -S -t ptx
(CMETAL_NO_PTXAS=1), the peak RSS less that of an empty kernel's compile,
per source byte, and the wall time (/usr/bin/time -v).
"""
import os
import subprocess
import sys
import tempfile

HEAD = "#include <cm/cm.h>\n"


def fill(size, head, unit, tail=""):
    """head, then unit(0), unit(1), ... until size characters, then tail."""
    out, n, i = [head], len(head), 0
    while n < size:
        s = unit(i)
        out.append(s)
        n += len(s)
        i += 1
    out.append(tail)
    return "".join(out)


def gen_many(size):
    return fill(size, HEAD, lambda i:
                "extern \"C\" _GENX_MAIN_ void k%d(SurfaceIndex b, int n)\n{\n"
                "\tvector<int, 8> v;\n\tread(b, %d, v);\n\tv = v * n + %d;\n"
                "\tif (v(0) > 3)\n\t\tv += 1;\n\twrite(b, %d, v);\n}\n"
                % (i, 32 * (i % 64), i, 32 * (i % 64)))


def gen_huge(size):
    return fill(size, HEAD + "extern \"C\" _GENX_MAIN_ void big(SurfaceIndex b, int n)\n"
                "{\n\tvector<int, 8> v;\n\tvector<float, 8> f;\n\tread(b, 0, v);\n\tf = v;\n",
                lambda i: "\tv = v * n + %d;\n\tf = f * %d.5f + v;\n"
                "\tv.select<4,2>(%d) += v.select<4,2>(%d);\n" % (i, i % 7, i % 2, 1 - i % 2),
                "\tv += f;\n\twrite(b, 0, v);\n}\n")


def gen_helpers(size):
    return fill(size, HEAD, lambda i:
                "inline vector<int, 16> h%d(vector<int, 16> x, int k)\n{\n"
                "\tvector<int, 16> r = x;\n"
                "\tfor (int j = 0; j < k; j++)\n\t\tr = r * 3 + j;\n"
                "\tSIMD_IF_BEGIN(r > %d) {\n\t\tr -= x;\n\t} SIMD_ELSE {\n"
                "\t\tr += x.select<16,1>(0) >> 1;\n\t} SIMD_IF_END;\n"
                "\treturn r;\n}\n"
                "extern \"C\" _GENX_MAIN_ void k%d(SurfaceIndex b, int n)\n{\n"
                "\tvector<int, 16> v;\n\tread(b, %d, v);\n"
                "\tvector<int, 16> w = h%d(v, n);\n"
                "\tSIMD_DO_WHILE_BEGIN {\n\t\tw >>= 1;\n\t} SIMD_DO_WHILE_END(w > 7);\n"
                "\twrite(b, %d, w + cm_sum<int>(v));\n}\n"
                % (i, i, i, 64 * (i % 32), i, 64 * (i % 32)))


def table_kernel(i):
    vals = ", ".join(str((i * 7 + j * 13) % 1000) for j in range(64))
    return ("const int t%d[64] = { %s };\n"
            "extern \"C\" _GENX_MAIN_ void k%d(SurfaceIndex b)\n{\n"
            "\tvector<int, 8> v(t%d);\n\twrite(b, %d, v);\n}\n"
            % (i, vals, i, i, 32 * (i % 64)))


def gen_tables(size):
    return fill(size, HEAD, table_kernel)


KINDS = {"many": gen_many, "huge": gen_huge, "helpers": gen_helpers, "tables": gen_tables}
MODES = [("syntax", ["-fsyntax-only"]), ("c", ["-S", "-t", "c"]), ("ptx", ["-S", "-t", "ptx"])]


def run(cmetal, args, path):
    """(peak RSS in KB, wall seconds) of one compile."""
    env = dict(os.environ, CMETAL_NO_PTXAS="1")
    r = subprocess.run(["/usr/bin/time", "-v", cmetal] + args + [path, "-o", os.devnull],
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    rss = wall = None
    for line in r.stderr.splitlines():
        line = line.strip()
        if line.startswith("Maximum resident set size"):
            rss = int(line.split(":")[-1])
        elif line.startswith("Elapsed (wall clock) time"):
            t = line.split(": ")[-1].split(":")
            wall = float(t[-1]) + 60 * float(t[-2])
        elif r.returncode and "error" in line:
            sys.exit("%s failed on %s: %s" % (cmetal, path, line))
    return rss, wall


def measure(cmetal, size):
    with tempfile.TemporaryDirectory() as d:
        empty = os.path.join(d, "empty.cm")
        with open(empty, "w") as f:
            f.write("extern \"C\" _GENX_MAIN_ void k() {}\n")
        for kind, gen in KINDS.items():
            path = os.path.join(d, kind + ".cm")
            text = gen(size)
            with open(path, "w") as f:
                f.write(text)
            cells = []
            for mode, args in MODES:
                base, _ = run(cmetal, args, empty)
                rss, wall = run(cmetal, args, path)
                per = (rss - base) * 1024.0 / len(text)
                cells.append("%s %4.0f (%4.0f MB, %.2f s)" % (mode, per, rss / 1024.0, wall))
            print("%-8s %s" % (kind, "   ".join(cells)), flush=True)


def main(argv):
    if argv and argv[0] == "--measure":
        argv = argv[1:]
        cmetal = "build/cmetal"
        if len(argv) >= 2 and argv[0] == "--cmetal":
            cmetal, argv = argv[1], argv[2:]
        measure(cmetal, int(argv[0]) if argv else 1000000)
        return
    if not argv or argv[0] not in KINDS:
        sys.exit(__doc__)
    sys.stdout.write(KINDS[argv[0]](int(argv[1]) if len(argv) > 1 else 1000000))


if __name__ == "__main__":
    main(sys.argv[1:])
