#!/usr/bin/env python3
"""sass_stats.py — static SASS counts per kernel of a cubin, no GPU needed.

    tools/sass_stats.py [--nvdisasm PATH] FILE ...            whole kernels
    tools/sass_stats.py --loops [--nvdisasm PATH] FILE ...    their loops
    tools/sass_stats.py --region SPEC [--nvdisasm PATH] FILE  one region

FILE is a cubin (disassembled with `nvdisasm -c`; the nvdisasm that
tools/get-nvdisasm.sh finds or installs) or text that nvdisasm printed
(NAME.sass).  With several files a kernel is named STEM:KERNEL after
its file; a ptxas -v log beside the file (STEM.log) adds the registers.

Whole kernels: one line per kernel with the instruction count without the
trailing padding, the count of ptxas's divergent fallback code, and the
opcodes that the PTX back end's layouts are meant to remove or widen (SHFL,
SEL, PRMT, narrow and wide global accesses, WARPSYNC, BRA.DIV).

Fallback code: when a branch before a shfl.sync is not known to be uniform,
ptxas emits a BRA.DIV to a second copy of the shuffles placed after the
kernel's last EXIT; the instructions after the last EXIT (less the final
self-branch and NOPs) are counted as fallback.

Regions (tests/sass counts SASS per unit of work in one of them):
  all        the whole kernel, less padding and fallback code;
  main       the path from the entry to an EXIT that does the most global
             stores, the shortest of those (a branch may go either way;
             a backward one leaves its loop, whose body counts once): the
             interior tile of a loop-free kernel, edge code branched over;
  loop       a loop body: from a backward branch's target to the branch,
             nested loops included once (static count);
  loop:OP    among the loops holding opcode OP, the innermost ones (those
             without such a loop inside): the one with the most OP, then
             the deepest nested, then the largest;
  loop@N     (loop:OP@N) the N-th in that order.  Plain `loop` ranks every
             innermost loop the same way.
  path:OP    the loop loop:OP picks, counted along its path from head to
             backward branch with the most OP, the shortest of those: the
             hot path, without a fast path's out-of-line alternative.
--loops lists each kernel's loops with what the ranking looks at, --region
what a region holds.
"""
import collections
import os
import re
import subprocess
import sys

INS = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
SECTION = re.compile(r"\.section\s+\.text\.([A-Za-z_][\w$]*)")
LABEL = re.compile(r"^\s*(\.L\w+):")
TARGET = re.compile(r"`\((\.L\w+)\)")

# One instruction: its predicate ("" when none), opcode and the index of
# its branch target (None when it has none).
Ins = collections.namedtuple("Ins", "pred op target")
Loop = collections.namedtuple("Loop", "head tail depth")


def disassemble(path, tool):
    """The nvdisasm text of a cubin, or the file itself if it is text; tool
    is nvdisasm's path (None: tools/get-nvdisasm.sh's)."""
    if not path.endswith(".cubin"):
        with open(path) as f:
            return f.read()
    tool = tool or find_nvdisasm()
    out = subprocess.run([tool, "-c", path], capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError("%s -c %s: %s" % (tool, path, out.stderr.strip()))
    return out.stdout


def parse(text):
    """{kernel: [Ins]} per .text section, branch targets resolved."""
    found, name = {}, None
    for line in text.splitlines():
        m = SECTION.search(line)
        if m:
            name = m.group(1)
            found[name] = ([], {}, [])
            pending = []
            continue
        if name is None:
            continue
        ins, labels, targets = found[name]
        m = LABEL.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = INS.search(line)
        if m:
            for label in pending:
                labels[label] = len(ins)
            pending = []
            t = TARGET.search(m.group(4))
            targets.append(t.group(1) if t else None)
            ins.append(Ins((m.group(2) or "").strip(), m.group(3), None))
    return {k: [i._replace(target=labels.get(t)) for i, t in zip(ins, targets)]
            for k, (ins, labels, targets) in found.items()}


def body_len(ins):
    """Instructions before the trailing self-branch and NOP padding."""
    n = len(ins)
    while n and (ins[n - 1].op == "NOP" or (ins[n - 1].op == "BRA" and ins[n - 1].target == n - 1)):
        n -= 1
    return n


def main_end(ins):
    """End of the main code: after the last EXIT when BRA.DIV sends
    divergent warps to fallback copies placed after it."""
    n = body_len(ins)
    if not any(i.op == "BRA.DIV" for i in ins[:n]):
        return n
    return max((k + 1 for k in range(n) if ins[k].op == "EXIT"), default=n)


def count(ins, pred):
    return sum(1 for i in ins if pred(i.op))


def counter(ins, name):
    """Value of a work counter over ins: an opcode prefix (FFMA counts
    FFMA, FFMA.FTZ ...) or ldg_bytes / stg_bytes, the bytes a warp loads /
    stores with LDG / STG (32 lanes x the access width)."""
    if name in ("ldg_bytes", "stg_bytes"):
        op = name[:3].upper()
        return sum(32 * width(i.op) for i in ins if i.op.startswith(op))
    return count(ins, lambda o: o.startswith(name))


def width(op):
    """Bytes per lane of a load or store opcode (LDG.E.U8 1, LDG.E.64 8)."""
    parts = op.split(".")
    for w, names in ((1, ("U8", "S8")), (2, ("U16", "S16")), (8, ("64",)), (16, ("128",))):
        if any(p in names for p in parts):
            return w
    return 4


def stats(ins):
    body = ins[:body_len(ins)]
    end = main_end(ins)
    wide = lambda o: any(w in o.split(".") for w in ("64", "128"))
    c = lambda pred: count(body, pred)
    return {
        "sass": len(body),
        "fallback": len(body) - end,
        "shfl": c(lambda o: o.startswith("SHFL")),
        "sel": c(lambda o: o == "SEL" or o.startswith("SEL.")),
        "prmt": c(lambda o: o.startswith("PRMT")),
        "ldg": c(lambda o: o.startswith("LDG")),
        "ldg_wide": c(lambda o: o.startswith("LDG") and wide(o)),
        "stg": c(lambda o: o.startswith("STG")),
        "bra_div": c(lambda o: o == "BRA.DIV"),
        "warpsync": c(lambda o: o.startswith("WARPSYNC")),
    }


def loops(ins):
    """Every loop of the main code: a backward branch and its target, with
    its nesting depth (1 outermost)."""
    n = main_end(ins)
    spans = [(i.target, k) for k, i in enumerate(ins[:n])
             if i.op.startswith("BRA") and i.target is not None and i.target <= k]
    return [Loop(h, t, sum(1 for a, b in spans if a <= h and t <= b))
            for h, t in sorted(spans)]


def loop_ranking(ins, op=None):
    """Innermost loops holding op (every innermost loop when op is None),
    best first: most op, deepest, largest."""
    has = lambda l: op is None or counter(ins[l.head:l.tail + 1], op) > 0
    cands = [l for l in loops(ins) if has(l)]
    inner = [l for l in cands
             if not any(m != l and l.head <= m.head and m.tail <= l.tail for m in cands)]
    key = lambda l: (-(counter(ins[l.head:l.tail + 1], op) if op else 0),
                     -l.depth, -(l.tail - l.head), l.head)
    ranked = sorted(inner, key=key)
    # a versioned loop (the PTX back end's vloop.c; Code.versioned) is
    # there twice, with and without its bounds checks: the same op and
    # memory instructions at the same depth.  When the loop stays inside
    # its buffers the copy without checks runs: of such twins the shorter
    # one stands for them.
    twin = lambda l: (key(l)[:2], sum(counter(ins[l.head:l.tail + 1], m)
                                      for m in ("LDG", "STG", "ATOMG", "RED")))
    if ranked and getattr(ins, "versioned", False):
        best = ranked[0]
        twins = [l for l in ranked[1:] if twin(l) == twin(best)]
        if twins:
            short = min(twins, key=lambda l: l.tail - l.head)
            if short.tail - short.head < best.tail - best.head:
                ranked.remove(short)
                ranked.insert(0, short)
    return ranked


def is_store(op):
    return op.startswith(("STG", "ST.", "RED", "ATOMG", "ATOM."))


def main_path(ins):
    """Indices of the path from the entry to an EXIT with the most global
    stores, the shortest of those; a backward branch is taken as leaving
    its loop (a loop body counts once)."""
    n = main_end(ins)
    best = [None] * (n + 1)	# (stores, -length, next index) from k on
    best[n] = (0, 0, None)		# falling off the main code
    for k in range(n - 1, -1, -1):
        i = ins[k]
        succ = []
        if i.op.startswith("EXIT") or i.op.startswith("RET"):
            succ.append(None)
            if i.pred:
                succ.append(k + 1)
        elif i.op.startswith(("BRA", "BRX", "JMP", "JMX")):
            forward = i.target is not None and k < i.target <= n
            if forward:
                succ.append(i.target)
            if i.pred or i.op == "BRA.DIV" or not forward:
                succ.append(k + 1)	# a backward one: the loop is left
        else:
            succ.append(k + 1)
        here = 1 if is_store(i.op) else 0
        options = [(here, -1, None) if s is None else
                   (here + best[s][0], best[s][1] - 1, s) for s in succ if s is None or best[s]]
        best[k] = max(options, key=lambda o: (o[0], o[1])) if options else None
    path, k = [], 0
    while k is not None and k < n and best[k]:
        path.append(k)
        k = best[k][2]
    return path


def loop_path(ins, l, op):
    """Indices of the path through loop l from its head to its backward
    branch with the most op instructions, the shortest of those: a fast
    path's out-of-line alternative inside the loop counts only when it is
    the path taken."""
    best = {}	# k -> (op count, -length, next index) from k to the tail
    for k in range(l.tail, l.head - 1, -1):
        i = ins[k]
        here = 1 if i.op.split(".")[0] == op or i.op.startswith(op + ".") else 0
        if k == l.tail:
            best[k] = (here, -1, None)
            continue
        succ = []
        if i.op.startswith(("BRA", "BRX", "JMP", "JMX")):
            if i.target is not None and k < i.target <= l.tail:
                succ.append(i.target)
            if i.pred or i.op == "BRA.DIV" or i.target is None or i.target <= k:
                succ.append(k + 1)
        elif i.op.startswith(("EXIT", "RET")):
            if i.pred:
                succ.append(k + 1)
        else:
            succ.append(k + 1)
        options = [(here + best[t][0], best[t][1] - 1, t) for t in succ if t in best]
        if options:
            best[k] = max(options, key=lambda o: (o[0], o[1]))
    path, k = [], l.head
    while k is not None and k in best:
        path.append(k)
        k = best[k][2]
    return path


REGION = re.compile(r"^(all|main|loop|path)(?::([A-Za-z0-9_.]+))?(?:@(\d+))?$")


def region(ins, spec):
    """The instructions of a region (see the module comment), or raises
    ValueError saying why it is not there."""
    m = REGION.match(spec)
    if not m:
        raise ValueError("bad region '%s'" % spec)
    kind, op, nth = m.group(1), m.group(2), int(m.group(3) or 1)
    if kind == "all":
        return ins[:main_end(ins)]
    if kind == "main":
        return [ins[k] for k in main_path(ins)]
    ranked = loop_ranking(ins, op)
    if len(ranked) < nth:
        raise ValueError("%s: %d such loops (%s)" % (spec, len(ranked), describe_loops(ins)))
    l = ranked[nth - 1]
    if kind == "path":
        return [ins[k] for k in loop_path(ins, l, op)]
    return ins[l.head:l.tail + 1]


def describe_loops(ins):
    return "; ".join("%d-%d depth %d: %d SASS" % (l.head, l.tail, l.depth, l.tail - l.head + 1)
                     for l in loops(ins)) or "none"


def registers(log):
    """{kernel: registers} from a ptxas -v log."""
    regs, cur = {}, None
    with open(log) as f:
        for line in f:
            m = re.search(r"Compiling entry function '([^']+)'", line)
            if m:
                cur = m.group(1)
            m = re.search(r"Used (\d+) registers", line)
            if m and cur:
                regs[cur] = int(m.group(1))
                cur = None
    return regs


class Code(list):
    """A kernel's instructions; versioned: its PTX has a loop emitted twice
    (a "$L_KERNEL_bN_v:" label, the PTX back end's vloop.c)."""
    versioned = False


def versioned_kernels(ptx):
    """Kernels of a PTX file (its text) with a versioned loop."""
    return set(re.findall(r"^\$L_(\w+?)_b\d+_v:", ptx, re.M))


def load(files, tool, named=None):
    """[(name, ins, regs)] for every kernel of the files, sorted; a name
    is STEM:KERNEL when named (default: when there are several files).
    A STEM.ptx beside a file says which kernels have versioned loops."""
    out = []
    named = len(files) > 1 if named is None else named
    for f in files:
        stem = os.path.splitext(f)[0]
        log = stem + ".log"
        regs = registers(log) if os.path.exists(log) else {}
        vers = set()
        if os.path.exists(stem + ".ptx"):
            with open(stem + ".ptx") as t:
                vers = versioned_kernels(t.read())
        prefix = os.path.basename(stem) + ":" if named else ""
        for k, ins in sorted(parse(disassemble(f, tool)).items()):
            code = Code(ins)
            code.versioned = k in vers
            out.append((prefix + k, code, regs.get(k)))
    return out


def find_nvdisasm():
    """tools/get-nvdisasm.sh's answer: $NVDISASM, PATH, or its cache."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "get-nvdisasm.sh")
    out = subprocess.run([script], capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr.strip())
    return out.stdout.strip()


def summary(ins):
    """SHFL, FFMA ... counts of a region, for the listings."""
    return ", ".join("%d %s" % (counter(ins, op), op) for op in
                     ("SHFL", "SEL", "FFMA", "DFMA", "LDG", "STG", "ATOMS", "ldg_bytes"))


def main(argv):
    tool, mode, spec = None, "stats", None
    while argv and argv[0].startswith("--"):
        if argv[0] == "--loops":
            mode, argv = "loops", argv[1:]
        elif argv[0] == "--region" and len(argv) > 1:
            mode, spec, argv = "region", argv[1], argv[2:]
        elif argv[0] == "--nvdisasm" and len(argv) > 1:
            tool, argv = argv[1], argv[2:]
        else:
            break
    if not argv or argv[0].startswith("-"):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    try:
        kernels = load(argv, tool)
    except (OSError, RuntimeError) as e:
        sys.stderr.write("sass_stats.py: %s\n" % e)
        return 1
    keys = ["sass", "fallback", "shfl", "sel", "prmt", "ldg", "ldg_wide", "stg",
            "bra_div", "warpsync"]
    if mode == "stats":
        print("kernel " + " ".join(keys) + " regs")
    for name, ins, regs in kernels:
        if mode == "stats":
            s = stats(ins)
            print(name + " " + " ".join(str(s[k]) for k in keys) + " " + str(regs or "?"))
        elif mode == "region":
            try:
                r = region(ins, spec)
                print("%s: %s: %d SASS, %s" % (name, spec, len(r), summary(r)))
            except ValueError as e:
                print("%s: %s" % (name, e))
        else:
            print("%s: %d SASS, main path %d" % (name, stats(ins)["sass"], len(main_path(ins))))
            for l in loops(ins):
                print("  loop %d-%d depth %d: %d SASS, %s" % (l.head, l.tail, l.depth,
                      l.tail - l.head + 1, summary(ins[l.head:l.tail + 1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
