#!/usr/bin/env python3
"""sass_stats.py — static SASS counts per kernel of a cubin, no GPU needed.

    tools/sass_stats.py [--nvdisasm PATH] k.cubin ...

Prints one line per kernel: the instruction count without the trailing
padding, the count of ptxas's divergent fallback code, and the opcodes that
the PTX back end's layouts are meant to remove or widen (SHFL, SEL, PRMT,
narrow and wide global accesses, WARPSYNC, BRA.DIV).

Fallback code: when a branch before a shfl.sync is not known to be uniform,
ptxas emits a BRA.DIV to a second copy of the shuffles placed after the
kernel's last EXIT; the instructions after the last EXIT (less the final
self-branch and NOPs) are counted as fallback.
"""
import os
import re
import subprocess
import sys

INS = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")
SECTION = re.compile(r"\.section\s+\.text\.([A-Za-z_][\w$]*)")


def find_nvdisasm(argv):
    if len(argv) > 1 and argv[0] == "--nvdisasm":
        return argv[1], argv[2:]
    for d in os.environ.get("PATH", "").split(":"):
        if d and os.access(os.path.join(d, "nvdisasm"), os.X_OK):
            return os.path.join(d, "nvdisasm"), argv
    return None, argv


def kernels(text):
    """Yields (kernel, [opcode, ...]) per .text section."""
    name, ops = None, []
    for line in text.splitlines():
        m = SECTION.search(line)
        if m:
            if name:
                yield name, ops
            name, ops = m.group(1), []
            continue
        m = INS.search(line)
        if m and name:
            ops.append(m.group(2))
    if name:
        yield name, ops


def stats(ops):
    body = list(ops)
    while body and (body[-1] == "NOP" or body[-1] == "BRA"):
        body.pop()
    last_exit = max((k for k, o in enumerate(body) if o == "EXIT"), default=len(body) - 1)
    tail = body[last_exit + 1:]
    count = lambda pred: sum(1 for o in body if pred(o))
    wide = lambda o: any(w in o.split(".") for w in ("64", "128"))
    return {
        "sass": len(body),
        "fallback": len(tail) if "BRA.DIV" in body else 0,
        "shfl": count(lambda o: o.startswith("SHFL")),
        "sel": count(lambda o: o == "SEL" or o.startswith("SEL.")),
        "prmt": count(lambda o: o.startswith("PRMT")),
        "ldg": count(lambda o: o.startswith("LDG")),
        "ldg_wide": count(lambda o: o.startswith("LDG") and wide(o)),
        "stg": count(lambda o: o.startswith("STG")),
        "bra_div": count(lambda o: o == "BRA.DIV"),
        "warpsync": count(lambda o: o.startswith("WARPSYNC")),
    }


def main(argv):
    tool, files = find_nvdisasm(argv)
    if not tool or not files:
        sys.stderr.write("usage: sass_stats.py [--nvdisasm PATH] k.cubin ...\n")
        return 2
    keys = ["sass", "fallback", "shfl", "sel", "prmt", "ldg", "ldg_wide", "stg",
            "bra_div", "warpsync"]
    print("kernel " + " ".join(keys))
    for f in files:
        out = subprocess.run([tool, "-c", f], capture_output=True, text=True)
        if out.returncode:
            sys.stderr.write(out.stderr)
            return 1
        for name, ops in sorted(kernels(out.stdout)):
            s = stats(ops)
            print(name + " " + " ".join(str(s[k]) for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
