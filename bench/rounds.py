#!/usr/bin/env python3
"""rounds.py — one CSV from several rounds of one harness's run.

    bench/rounds.py ROUND1.csv ROUND2.csv ... > OUT.csv

run.sh runs the CPU harnesses (plain C, OpenCL, CM) in turn, ROUNDS times,
so that each harness's rounds are spread over the same minutes as the
others': on a shared 2-core machine the speed changes from one minute to
the next (bench/runs/README.md has examples of 1.5-2x), and rows measured
minutes apart compared one phase with another.  Each row of the output is
the round whose time_ms is the median of that row's rounds (the lower of
the two middle ones for an even count), whole, so its throughput and
cpu_ms belong to it; a row that failed its check in any round is that
round's row instead, so a failure always shows.  Comment lines come from
the first round (and "# FAIL" lines from every round), plus a note on the
rounds.  Rows keep the first round's
order; a row missing from some rounds takes the rounds that have it.
"""
import csv
import sys

KEY = ("workload", "size", "device", "impl")


def read(path):
    """Comment lines, the header and the rows of one round's CSV."""
    comments, rows, header = [], [], None
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                comments.append(line)
            elif header is None:
                header = next(csv.reader([line]))
            else:
                rows.append(dict(zip(header, next(csv.reader([line])))))
    return comments, header, rows


def pick(rows):
    """The row that stands for one key's rounds (see the module's text)."""
    failed = [r for r in rows if r.get("checked") not in ("yes", "ref")]
    if failed:
        return failed[0]
    timed = sorted(rows, key=lambda r: float(r["time_ms"]))
    return timed[(len(timed) - 1) // 2]


def main(paths):
    if not paths:
        sys.exit("usage: rounds.py ROUND.csv...")
    rounds = [read(p) for p in paths]
    comments, header, _ = rounds[0]
    if header is None:
        sys.stdout.writelines(comments)
        return
    by_key, order = {}, []
    for _, _, rows in rounds:
        for r in rows:
            k = tuple(r.get(f, "") for f in KEY)
            if k not in by_key:
                by_key[k] = []
                order.append(k)
            by_key[k].append(r)
    # a failure reported in a later round's comments shows too
    comments = comments + [c for rd in rounds[1:] for c in rd[0] if c.startswith("# FAIL")]
    sys.stdout.writelines(comments)
    sys.stdout.write("# note: each row the median of %d rounds run in turn with the "
                     "other harnesses (bench/rounds.py)\n" % len(paths))
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(header)
    for k in order:
        r = pick(by_key[k])
        w.writerow([r.get(f, "") for f in header])


if __name__ == "__main__":
    main(sys.argv[1:])
