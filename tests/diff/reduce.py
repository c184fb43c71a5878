#!/usr/bin/env python3
"""reduce.py — delta debugging over the lines of a generated kernel.

Usage: reduce.py FILE.cm OUT.cm -- COMMAND...

COMMAND is run with the candidate's path appended and must exit 0 while the
candidate is still interesting (the same mismatch, the same crash).  Lines
marked `// keep` (declarations with their sanitizing loads, loop counters,
the prologue) are never deleted, so every candidate keeps the generator's
invariants and stays well defined (see gen.py); a candidate that no longer
compiles is simply not interesting.  Then declarations of variables no
longer used are dropped.  Writes the smallest interesting version to OUT.cm.
"""
import os
import subprocess
import sys
import tempfile


def interesting(cmd, lines, tmp):
    with open(tmp, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    try:
        return subprocess.run(cmd + [tmp], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=120).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def ddmin(cmd, lines, tmp):
    """Deletes chunks of deletable lines, halving the chunk size."""
    body = [i for i, l in enumerate(lines) if '// keep' not in l and l.startswith('\t')]
    n = 2
    while body:
        chunk = max(1, len(body) // n)
        progress = False
        i = 0
        while i < len(body):
            drop = set(body[i:i + chunk])
            cand = [l for k, l in enumerate(lines) if k not in drop]
            if interesting(cmd, cand, tmp):
                keep_idx = [k for k in range(len(lines)) if k not in drop]
                remap = {old: new for new, old in enumerate(keep_idx)}
                lines = cand
                body = [remap[k] for k in body if k not in drop]
                progress = True
            else:
                i += chunk
        if not progress:
            if chunk == 1:
                break
            n *= 2
    return lines


def main():
    a = sys.argv[1:]
    if len(a) < 4 or a[2] != '--':
        sys.exit('usage: reduce.py FILE.cm OUT.cm -- COMMAND...')
    src, out, cmd = a[0], a[1], a[3:]
    lines = open(src).read().rstrip('\n').split('\n')
    fd, tmp = tempfile.mkstemp(suffix='.cm')
    os.close(fd)
    try:
        if not interesting(cmd, lines, tmp):
            sys.exit('reduce.py: the input is not interesting')
        before = len(lines)
        lines = ddmin(cmd, lines, tmp)
        # drop the now unused declarations' loads? they are `keep`: try
        # deleting whole declarations whose variable is no longer used
        changed = True
        while changed:
            changed = False
            for k, l in enumerate(lines):
                if '// keep' not in l or '{ ' not in l:
                    continue
                name = l.split('{')[0].split()[-1].rstrip(';')
                rest = lines[:k] + lines[k + 1:]
                if not any(name + '.' in x or name + '(' in x or name + ',' in x or
                           name + ')' in x or name + ' ' in x or name + ';' in x
                           for x in rest):
                    if interesting(cmd, rest, tmp):
                        lines = rest
                        changed = True
                        break
        with open(out, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        print('reduced %d -> %d lines: %s' % (before, len(lines), out))
    finally:
        os.unlink(tmp)


if __name__ == '__main__':
    main()
