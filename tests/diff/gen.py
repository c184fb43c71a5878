#!/usr/bin/env python3
"""gen.py — random, well-defined CM kernels for the differential tester.

Usage: gen.py SEED [-o FILE]

Prints one CM program with one kernel `k`, headed by a line
    // DIFF: seed=S groups=G threads=T in=B out=B svmin=B svmout=B img=WxH oimg=WxH
that tells tests/diff/difftest.c how to launch it and how big its buffers are.

Well-definedness is by construction, with flow-insensitive invariants: every
vector or matrix variable gets, when declared, an invariant on its values
(the whole type range; [0, 2^k-1]; [-2^k, 2^k-1]; for floats [-L, L], no
negative zero, or "raw" bits that only move); every assignment to it is
fitted into the invariant (a mask, or a clamp with cm_min/cm_max) unless the
interval arithmetic of this file proves it fits already.  So each statement
is well defined whatever other statements ran before it, and the reducer
(reduce.py) can delete any line that is not marked `// keep`.

Interval arithmetic checks every operation in its computation type (C's
promotions, CM's rules of cm-language.md §4): no signed overflow (CM's
operators follow C), shift counts below the width and left shifts of
non-negative values, divisors that exclude 0, float results that are
integers of magnitude at most 2^24 (float), 2^11 (half), 2^53 (double), so
every float operation is exact and FMA contraction or evaluation order
(cm_sum) cannot change a bit.  cm_min/cm_max and reduced min/max never see
a possible negative zero (min(-0, +0) may give either).  Memory accesses are
in bounds by construction (2D media reads may go past the edges: they clamp,
which CM defines); each thread writes only its own slice of each output;
atomics that return old values use distinct addresses; barriers are only at
the top level, where every thread of the group reaches them.

Not covered (see docs/testing.md): division and math functions on floats
(not exact), typed and 4-channel SVM accesses, printf, user functions
(all calls are inlined anyway), half mixed with other types in one operation.
"""
import math
import random
import sys


class Ty:
    def __init__(self, name, size, signed, flt):
        self.name, self.size, self.signed, self.flt = name, size, signed, flt
        bits = size * 8
        if flt:
            self.exact = {2: 1 << 11, 4: 1 << 24, 8: 1 << 53}[size]
            self.lo, self.hi = -self.exact, self.exact
        elif signed:
            self.lo, self.hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        else:
            self.lo, self.hi = 0, (1 << bits) - 1
        self.bits = bits

    def __repr__(self):
        return self.name


CHAR, UCHAR = Ty('char', 1, True, False), Ty('uchar', 1, False, False)
SHORT, USHORT = Ty('short', 2, True, False), Ty('ushort', 2, False, False)
INT, UINT = Ty('int', 4, True, False), Ty('uint', 4, False, False)
LL, ULL = Ty('long long', 8, True, False), Ty('unsigned long long', 8, False, False)
HALF, FLOAT, DOUBLE = Ty('half', 2, True, True), Ty('float', 4, True, True), Ty('double', 8, True, True)
INTS = [CHAR, UCHAR, SHORT, USHORT, INT, UINT, LL, ULL]
ALL = INTS + [HALF, FLOAT, DOUBLE]
FRANK = {2: 0, 4: 1, 8: 2}


def promote(t):
    return INT if (not t.flt and t.size < 4) else t


def common(a, b):
    """The element type of a op b (C's usual arithmetic conversions)."""
    if a.flt or b.flt:
        if a.flt and b.flt:
            return a if FRANK[a.size] >= FRANK[b.size] else b
        return a if a.flt else b
    a, b = promote(a), promote(b)
    if a is b:
        return a
    if a.signed == b.signed:
        return a if a.size >= b.size else b
    u, s = (a, b) if not a.signed else (b, a)
    return u if u.size >= s.size else s


def lit(v, t):
    """A literal of value v: of type t (ints: of t's computation type) when
    v fits it, else of the first of int, long long, unsigned long long that
    holds it.  lit_type gives its type."""
    if t.flt:
        return {2: '(half)%d', 4: '%d.0f', 8: '%d.0'}[t.size] % v
    u = lit_type(v, t)
    if v < 0:
        if v == u.lo:
            return '(%d%s - 1)' % (v + 1, '' if u is INT else 'LL')
        return '(%d%s)' % (v, '' if u is INT else 'LL')
    return '%d%s' % (v, {INT: '', UINT: 'u', LL: 'LL', ULL: 'ULL'}[u])


def lit_type(v, t):
    if t.flt:
        return t
    for u in [promote(t), INT, LL, ULL]:
        if u.lo <= v <= u.hi:
            return u
    raise ValueError(v)


def fits(r, t):
    return r is not None and t.lo <= r[0] and r[1] <= t.hi


def conv_range(r, frm, to):
    """The range of values of type frm in range r converted to type to, or
    None when the conversion is not exact and defined (float targets) or
    not defined (float to int out of range)."""
    if r is None:
        return None
    if to.flt:
        return r if max(-r[0], r[1]) <= to.exact else None
    if frm.flt:
        return r if fits(r, to) else None
    return r if fits(r, to) else (to.lo, to.hi)


class E:
    """An expression: text, element type, count n (0: scalar), value range
    (None: raw float bits), may be negative zero."""
    def __init__(self, text, ty, n, rng, negz=False):
        self.text, self.ty, self.n, self.rng, self.negz = text, ty, n, rng, negz


class Var:
    def __init__(self, name, ty, shape, inv):
        self.name, self.ty, self.shape, self.inv = name, ty, shape, inv

    @property
    def count(self):
        return self.shape[1] if self.shape[0] == 'v' else self.shape[1] * self.shape[2]

    @property
    def full(self):
        """Any bits are valid: writes through format<> are allowed."""
        return (self.inv is None) if self.ty.flt else self.inv == (self.ty.lo, self.ty.hi)

    def decl(self):
        if self.shape[0] == 'v':
            return 'vector<%s, %d> %s' % (self.ty.name, self.shape[1], self.name)
        return 'matrix<%s, %d, %d> %s' % (self.ty.name, self.shape[1], self.shape[2], self.name)


def vec_t(t, n):
    return 'vector<%s, %d>' % (t.name, n)


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.seed = seed
        self.lines = []
        self.ind = 1
        self.vars = []
        self.nv = 0
        self.nk = 0
        self.scalars = [('r0', 3), ('r1', 7)]     # uniform runtime values, [0, max]
        self.groups = self.r.choice([1, 1, 2, 3])
        self.threads = self.r.choice([1, 2, 2, 3, 4])
        self.inslice = 1024
        self.outpos = 0          # bump allocator in the thread's out slice
        self.svmpos = 0
        self.imgrows = 0         # rows of the thread's band of oimg
        self.slm_slot = 512      # bytes of SLM per thread
        self.uses_slm = False
        self.atomic_base = None

    # ---- helpers -------------------------------------------------------
    def chance(self, p):
        return self.r.random() < p

    def emit(self, s, keep=False):
        self.lines.append('\t' * self.ind + s + (' // keep' if keep else ''))

    def fresh(self, p):
        self.nk += 1
        return '%s%d' % (p, self.nk)

    def out_alloc(self, nbytes, align=16):
        self.outpos = (self.outpos + align - 1) // align * align
        p = self.outpos
        self.outpos += nbytes
        return p

    def svm_alloc(self, nbytes):
        self.svmpos = (self.svmpos + 15) // 16 * 16
        p = self.svmpos
        self.svmpos += nbytes
        return p

    def offset(self, mx, rt=True):
        """Text of an offset in [0, mx]: a constant, or a uniform runtime
        scalar plus a constant."""
        if mx < 0:
            raise ValueError
        if rt and self.chance(0.3):
            cands = [(s, m) for s, m in self.scalars if m <= mx]
            if cands:
                s, m = self.r.choice(cands)
                c = self.r.randint(0, mx - m)
                return '%s + %d' % (s, c) if c else s
        return str(self.r.randint(0, mx))

    # ---- regions -------------------------------------------------------
    def region(self, var, n, lval):
        """A chain of region operations on var giving exactly n elements
        (n >= 1): (text, type, formatted) or None.  Lvalue chains use
        select, row, column and format only."""
        t, ty, shp, contig, fmt = var.name, var.ty, var.shape, True, False
        # the byte offset of the region in var is a multiple of align: a
        # format<U> needs it aligned to U (cmetal rejects "format<U> of a
        # region that is not aligned to it")
        align = 64

        def al(a, off, unit):
            return math.gcd(a, unit) if not off.isdigit() else math.gcd(a, int(off) * unit)
        for _ in range(self.r.choice([0, 0, 1, 1, 2, 3])):
            cnt = shp[1] if shp[0] == 'v' else shp[1] * shp[2]
            opts = []
            if shp[0] == 'v' and shp[1] >= max(n, 2):
                opts.append('sel')
            if shp[0] == 'm':
                opts += ['msel', 'row', 'col']
            if contig and (not lval or var.full) and (shp[0] == 'v' or shp[1] * shp[2] > 0):
                opts.append('fmt')
            if not opts:
                break
            op = self.r.choice(opts)
            if op == 'sel':
                N = shp[1]
                S = self.r.randint(max(n, 1), N)
                ST = 1 if S == 1 else self.r.randint(1, max(1, (N - 1) // (S - 1)))
                if (S - 1) * ST > N - 1:
                    ST = 1
                o = self.offset(N - 1 - (S - 1) * ST)
                align = al(align, o, ty.size)
                t += '.select<%d, %d>(%s)' % (S, ST, o)
                contig = contig and (ST == 1 or S == 1)
                shp = ('v', S)
            elif op == 'msel':
                R, C = shp[1], shp[2]
                VS = self.r.randint(1, R)
                HS = self.r.randint(1, C)
                VST = 1 if VS == 1 else self.r.randint(1, max(1, (R - 1) // (VS - 1)))
                HST = 1 if HS == 1 else self.r.randint(1, max(1, (C - 1) // (HS - 1)))
                oi, oj = self.offset(R - 1 - (VS - 1) * VST), self.offset(C - 1 - (HS - 1) * HST)
                align = al(al(align, oi, C * ty.size), oj, ty.size)
                t += '.select<%d, %d, %d, %d>(%s, %s)' % (VS, VST, HS, HST, oi, oj)
                contig = contig and HS == C and (VS == 1 or VST == 1)
                shp = ('m', VS, HS)
            elif op == 'row':
                o = self.offset(shp[1] - 1)
                align = al(align, o, shp[2] * ty.size)
                t += '.row(%s)' % o
                shp = ('v', shp[2])
            elif op == 'col':
                o = self.offset(shp[2] - 1)
                align = al(align, o, ty.size)
                t += '.column(%s)' % o
                contig = contig and shp[2] == 1
                shp = ('m', shp[1], 1)
            else:
                nbytes = cnt * ty.size
                vbytes = var.count * var.ty.size   # cmetal also needs the variable's size
                cands = [u for u in ALL if nbytes % u.size == 0 and align % u.size == 0
                         and vbytes % u.size == 0]
                u = self.r.choice(cands)
                k = nbytes // u.size
                if self.chance(0.5) and k > 1:
                    R = self.r.choice(divisors(k))
                    t += '.format<%s, %d, %d>()' % (u.name, R, k // R)
                    shp = ('m', R, k // R)
                else:
                    t += '.format<%s>()' % u.name
                    shp = ('v', k)
                if u is not ty:
                    fmt = True
                ty = u
        # the last step: exactly n elements
        cnt = shp[1] if shp[0] == 'v' else shp[1] * shp[2]
        if cnt == n and self.chance(0.5):
            return t, ty, fmt
        opts = []
        if shp[0] == 'v' and shp[1] >= n:
            opts.append('sel')
        if shp[0] == 'm':
            pairs = [(vs, n // vs) for vs in divisors(n) if vs <= shp[1] and n // vs <= shp[2]]
            if pairs:
                opts.append('msel')
            if shp[2] == n:
                opts.append('row')
            if shp[1] == n:
                opts.append('col')
        if cnt == n:
            opts.append('id')
        if not lval:
            opts += ['rep', 'rep', 'isel']
        if not opts:
            return None
        op = self.r.choice(opts)
        if op == 'id':
            return t, ty, fmt
        if op == 'sel':
            N = shp[1]
            ST = 1 if n == 1 else self.r.randint(1, max(1, (N - 1) // (n - 1)))
            if (n - 1) * ST > N - 1:
                ST = 1
            return t + '.select<%d, %d>(%s)' % (n, ST, self.offset(N - 1 - (n - 1) * ST)), ty, fmt
        if op == 'msel':
            R, C = shp[1], shp[2]
            VS, HS = self.r.choice(pairs)
            VST = 1 if VS == 1 else self.r.randint(1, max(1, (R - 1) // (VS - 1)))
            HST = 1 if HS == 1 else self.r.randint(1, max(1, (C - 1) // (HS - 1)))
            return t + '.select<%d, %d, %d, %d>(%s, %s)' % (
                VS, VST, HS, HST, self.offset(R - 1 - (VS - 1) * VST),
                self.offset(C - 1 - (HS - 1) * HST)), ty, fmt
        if op == 'row':
            return t + '.row(%s)' % self.offset(shp[1] - 1), ty, fmt
        if op == 'col':
            return t + '.column(%s)' % self.offset(shp[2] - 1), ty, fmt
        if op == 'rep':
            if cnt * (n // cnt) == n and self.chance(0.25):
                return t + '.replicate<%d>()' % (n // cnt), ty, fmt
            W = self.r.choice([d for d in divisors(n) if d <= cnt] or [1])
            REP = n // W
            form = self.r.choice([2, 3, 4])
            VS = 0 if form == 2 else self.r.randint(0, 3)
            HS = 1 if form < 4 else self.r.randint(0, 2)
            span = (REP - 1) * VS + (W - 1) * HS
            if span > cnt - 1:
                VS, HS, form = 0, 1, 2
                span = W - 1
            off = self.r.randint(0, cnt - 1 - span)
            targs = {2: (REP, W), 3: (REP, VS, W), 4: (REP, VS, W, HS)}[form]
            if shp[0] == 'm':
                offs = '%d, %d' % (off // shp[2], off % shp[2])
            else:
                offs = str(off)
            return t + '.replicate<%s>(%s)' % (', '.join(map(str, targs)), offs), ty, fmt
        # iselect with in-range indices
        if shp[0] == 'v':
            return t + '.iselect(%s)' % self.index(n, cnt), ty, fmt
        return t + '.iselect(%s, %s)' % (self.index(n, shp[1]), self.index(n, shp[2])), ty, fmt

    def index(self, n, bound):
        """A vector<ushort, n> of indices in [0, bound)."""
        ivars = [v for v in self.vars if not v.ty.flt]
        if ivars and self.chance(0.7):
            v = self.r.choice(ivars)
            reg = self.region(v, n, False)
            if reg and not reg[1].flt:
                return 'vector<ushort, %d>((%s & 0x7fff) %% %d)' % (n, reg[0], bound)
        return 'vector<ushort, %d>((lin.select<%d, 1>(%d) * %d) %% %d)' % (
            n, n, self.r.randint(0, 32 - n), self.r.choice([1, 3, 5, 7]), bound)

    def leaf(self, n, ctx):
        for _ in range(20):
            v = self.r.choice(self.vars)
            reg = self.region(v, n, False)
            if reg:
                t, ty, fmt = reg
                if fmt:
                    rng = None if ty.flt else (ty.lo, ty.hi)
                else:
                    rng = v.inv
                return E(t, ty, n, rng)
        raise RuntimeError('no leaf')

    # ---- scalar expressions ---------------------------------------------
    def scalar(self, ctx):
        k = self.r.random()
        if k < 0.3:
            ty = self.r.choice([INT, INT, UINT, FLOAT, LL, DOUBLE])
            v = self.r.randint(-20, 40) if ty.signed else self.r.randint(0, 60)
            return E(lit(v, ty), lit_type(v, ty), 0, (v, v))
        if k < 0.45:
            s, m = self.r.choice(self.scalars)
            return E(s, UINT, 0, (0, m))
        if k < 0.7:
            v = self.r.choice(self.vars)
            if v.shape[0] == 'v':
                t = '%s(%s)' % (v.name, self.offset(v.count - 1))
            else:
                t = '%s(%s, %s)' % (v.name, self.offset(v.shape[1] - 1), self.offset(v.shape[2] - 1))
            return E(t, v.ty, 0, v.inv)
        # a reduction (inside SIMD control flow: of the SIMD width)
        n = ctx['simd'] or self.r.choice([2, 3, 4, 8, 16])
        a = self.expr(n, ctx, 1)
        if a is None or a.rng is None:
            return None
        red = self.r.choice(['sum', 'min', 'max', 'any', 'all', 'prod'])
        if red in ('any', 'all'):
            return E('(%s).%s()' % (a.text, red), USHORT, 0, (0, 1))
        T = promote(a.ty)
        lo, hi = conv_range(a.rng, a.ty, T) or (None, None)
        if lo is None:
            return None
        inside = ctx['simd'] is not None
        if red == 'sum':
            r = (n * min(lo, 0), n * max(hi, 0)) if inside else (n * lo, n * hi)
            if T.flt and max(-r[0], r[1]) > T.exact:
                return None
            if not T.flt and not fits(r, T):
                if T.signed:
                    return None
                r = (T.lo, T.hi)
            return E('cm_sum<%s>(%s)' % (T.name, a.text), T, 0, r)
        if red == 'prod':
            if inside or T.flt:
                return None
            m = max(-lo, hi, 1)
            if m ** n > T.hi:
                if T.signed:
                    return None
                r = (T.lo, T.hi)
            else:
                r = (-(m ** n), m ** n) if lo < 0 else (lo ** n, hi ** n)
            return E('cm_prod<%s>(%s)' % (T.name, a.text), T, 0, r)
        if a.negz:
            return None
        r = (lo, hi)
        if inside:  # no lane active: the identity
            r = (lo, T.hi) if red == 'min' else (T.lo, hi)
            if T.flt:
                return None
        return E('cm_reduced_%s<%s>(%s)' % (red, T.name, a.text), T, 0, r)

    # ---- expressions -----------------------------------------------------
    def expr(self, n, ctx, depth):
        for _ in range(12):
            k = self.r.random()
            if depth <= 0 or k < 0.25:
                return self.leaf(n, ctx)
            e = None
            if k < 0.55:
                e = self.binop(n, ctx, depth)
            elif k < 0.63:
                e = self.unop(n, ctx, depth)
            elif k < 0.7:
                e = self.compare(n, ctx, depth)
            elif k < 0.8:
                e = self.convert(n, ctx, depth)
            elif k < 0.95:
                e = self.builtin(n, ctx, depth)
            else:
                e = self.leaf(n, ctx)
            if e is not None:
                return e
        return self.leaf(n, ctx)

    def operand(self, n, ctx, depth):
        if n and self.chance(0.2):
            return self.scalar(ctx)
        return self.expr(n, ctx, depth)

    def binop(self, n, ctx, depth, op=None, a=None, b=None):
        op = op or self.r.choice(['+', '-', '*', '+', '-', '*', '&', '|', '^',
                                  '<<', '>>', '/', '%'])
        a = a or self.expr(n, ctx, depth - 1)
        if b is None:
            if op in ('<<', '>>', '/', '%') and self.chance(0.5):
                b = self.small_int(n, ctx, depth, op)
            else:
                b = self.operand(n, ctx, depth - 1)
        if a is None or b is None or a.rng is None or b.rng is None:
            return None
        if (a.ty is HALF) != (b.ty is HALF) and (a.ty.flt or b.ty.flt):
            return None
        if op in ('<<', '>>'):
            if a.ty.flt or b.ty.flt:
                return None
            C = promote(a.ty)
            ra = conv_range(a.rng, a.ty, C)
            cb = b.rng
            if cb[0] < 0 or cb[1] >= C.bits:
                return None
            if op == '<<':
                if C.signed:
                    if ra[0] < 0 or ra[1] << cb[1] > C.hi:
                        return None
                    r = (ra[0] << cb[0], ra[1] << cb[1])
                else:
                    r = (ra[0] << cb[0], ra[1] << cb[1])
                    if r[1] > C.hi:
                        r = (C.lo, C.hi)
            else:
                cs = [x >> y for x in ra for y in cb]
                r = (min(cs), max(cs))
            return E('(%s %s %s)' % (a.text, op, b.text), C, n, r)
        C = common(a.ty, b.ty)
        ra, rb = conv_range(a.rng, a.ty, C), conv_range(b.rng, b.ty, C)
        if ra is None or rb is None:
            return None
        if C.flt and op not in ('+', '-', '*'):
            return None
        if op in ('/', '%'):
            if rb[0] <= 0:
                return None
            if op == '/':
                cs = [int(x / y) for x in ra for y in rb] + ([0] if ra[0] <= 0 <= ra[1] else [])
                r = (min(cs), max(cs))
            else:
                m = rb[1] - 1
                r = (max(ra[0], -m) if ra[0] < 0 else 0, min(ra[1], m) if ra[1] > 0 else 0)
        elif op == '+':
            r = (ra[0] + rb[0], ra[1] + rb[1])
        elif op == '-':
            r = (ra[0] - rb[1], ra[1] - rb[0])
        elif op == '*':
            cs = [x * y for x in ra for y in rb]
            r = (min(cs), max(cs))
        else:
            if ra[0] >= 0 and rb[0] >= 0:
                top = (1 << max(ra[1], rb[1]).bit_length()) - 1
                r = (0, min(ra[1], rb[1]) if op == '&' else top)
            else:
                k = max(abs(x) for x in ra + rb).bit_length()
                r = (-(1 << k), (1 << k) - 1)
        negz = False
        if C.flt:
            if max(-r[0], r[1]) > C.exact:
                return None
            za = a.negz or ra[0] <= 0 <= ra[1]
            zb = b.negz or rb[0] <= 0 <= rb[1]
            if op == '+':
                negz = a.negz and b.negz
            elif op == '-':
                negz = a.negz and zb
            else:
                negz = (za or zb) and (ra[0] < 0 or rb[0] < 0 or a.negz or b.negz)
        elif not fits(r, C):
            if C.signed:
                return None
            r = (C.lo, C.hi)
        return E('(%s %s %s)' % (a.text, op, b.text), C, n, r, negz)

    def small_int(self, n, ctx, depth, op):
        """A shift count or a divisor: (x & m) + c."""
        if op in ('<<', '>>'):
            if self.chance(0.5):
                c = self.r.randint(0, 7)
                return E(str(c), INT, 0, (c, c))
            m, c = self.r.choice([(3, 0), (7, 0), (15, 0), (7, 1)])
        else:
            if self.chance(0.5):
                c = self.r.randint(1, 9)
                return E(str(c), INT, 0, (c, c))
            m, c = self.r.choice([(3, 1), (7, 1), (15, 1), (255, 1)])
        a = self.expr(n, ctx, depth - 1)
        if a is None or a.rng is None or a.ty.flt:
            return None
        return E('((%s & %d) + %d)' % (a.text, m, c), promote(a.ty), n, (c, m + c))

    def unop(self, n, ctx, depth):
        a = self.expr(n, ctx, depth - 1)
        if a is None or a.rng is None:
            return None
        if a.ty.flt:
            return E('(-%s)' % a.text, a.ty, n, (-a.rng[1], -a.rng[0]),
                     a.rng[0] <= 0 <= a.rng[1])
        C = promote(a.ty)
        ra = conv_range(a.rng, a.ty, C)
        if self.chance(0.5):
            r = (-ra[1], -ra[0])
            t = '(-%s)' % a.text
        else:
            r = (-ra[1] - 1, -ra[0] - 1) if C.signed else (C.hi - ra[1], C.hi - ra[0])
            t = '(~%s)' % a.text
        if not fits(r, C):
            if C.signed:
                return None
            r = (C.lo, C.hi)
        return E(t, C, n, r)

    def compare(self, n, ctx, depth):
        a = self.expr(n, ctx, depth - 1)
        b = self.operand(n, ctx, depth - 1)
        if a is None or b is None or a.rng is None or b.rng is None:
            return None
        if (a.ty is HALF) != (b.ty is HALF) and (a.ty.flt or b.ty.flt):
            return None
        if n == 0:
            return None
        op = self.r.choice(['<', '<=', '>', '>=', '==', '!='])
        return E('(%s %s %s)' % (a.text, op, b.text), USHORT, n, (0, 1))

    def convert(self, n, ctx, depth):
        a = self.expr(n, ctx, depth - 1)
        if a is None or a.rng is None or n == 0:
            return None
        T = self.r.choice(ALL)
        sat = self.chance(0.3)
        if T.flt:
            if sat:
                if a.negz:
                    return None
                r = (min(max(a.rng[0], 0), 1), min(max(a.rng[1], 0), 1))
            else:
                r = conv_range(a.rng, a.ty, T)
                if r is None:
                    return None
            negz = a.negz and not sat
        else:
            if sat:
                r = (min(max(a.rng[0], T.lo), T.hi), min(max(a.rng[1], T.lo), T.hi))
            else:
                r = conv_range(a.rng, a.ty, T)
                if r is None:
                    return None
            negz = False
        return E('%s(%s%s)' % (vec_t(T, n), a.text, ', SAT' if sat else ''), T, n, r, negz)

    def builtin(self, n, ctx, depth):
        f = self.r.choice(['min', 'max', 'add', 'mul', 'abs', 'avg', 'shl', 'shr',
                           'asr', 'lsr', 'cbit', 'fbl', 'fbh', 'lzd', 'rev', 'bfe',
                           'bfi', 'min', 'max', 'add'])
        a = self.expr(n, ctx, depth - 1)
        if a is None or a.rng is None:
            return None
        if f in ('min', 'max', 'add', 'mul', 'avg'):
            b = self.operand(n, ctx, depth - 1)
            if b is None or b.rng is None:
                return None
            if (a.ty is HALF) != (b.ty is HALF) and (a.ty.flt or b.ty.flt):
                return None
            C = common(a.ty, b.ty)
            ra, rb = conv_range(a.rng, a.ty, C), conv_range(b.rng, b.ty, C)
            if ra is None or rb is None:
                return None
            sat = ''
            if f in ('min', 'max'):
                if C.flt and (a.negz or b.negz):
                    return None
                r = (min(ra[0], rb[0]), min(ra[1], rb[1])) if f == 'min' else \
                    (max(ra[0], rb[0]), max(ra[1], rb[1]))
                negz = False
            elif f == 'avg':
                if C.flt:
                    return None
                r = ((ra[0] + rb[0] + 1) >> 1, (ra[1] + rb[1] + 1) >> 1)
                negz = False
            else:
                if f == 'add':
                    r = (ra[0] + rb[0], ra[1] + rb[1])
                else:
                    cs = [x * y for x in ra for y in rb]
                    r = (min(cs), max(cs))
                if C.flt:
                    if max(-r[0], r[1]) > C.exact:
                        return None
                    negz = True
                else:
                    negz = False
                    if not fits(r, C):
                        if f == 'add' and self.chance(0.5):
                            sat = ', SAT'
                            r = (max(r[0], C.lo), min(r[1], C.hi))
                        else:
                            r = (C.lo, C.hi)   # the intrinsic wraps: defined
            return E('cm_%s<%s>(%s, %s%s)' % (f, C.name, a.text, b.text, sat), C, n, r, negz)
        if f == 'abs':
            T = promote(a.ty)
            ra = conv_range(a.rng, a.ty, T)
            m = max(abs(ra[0]), abs(ra[1]))
            lo = 0 if ra[0] <= 0 <= ra[1] else min(abs(ra[0]), abs(ra[1]))
            r = (lo, m)
            if not fits(r, T):
                r = (T.lo, T.hi)
            return E('cm_abs<%s>(%s)' % (T.name, a.text), T, n, r)
        if a.ty.flt:
            return None
        # 32-bit bit operations on int/uint operands
        T = self.r.choice([INT, UINT])
        src = '%s(%s)' % (vec_t(T, n), a.text) if n else '(%s)(%s)' % (T.name, a.text)
        if f in ('shl', 'shr', 'asr', 'lsr'):
            c = self.r.randint(0, 31)
            return E('cm_%s<%s>(%s, %d)' % (f, T.name, src, c), T, n, (T.lo, T.hi))
        if f == 'cbit':
            return E('cm_cbit<%s>(%s)' % (T.name, src), UINT, n, (0, 32))
        if f in ('fbl', 'lzd'):
            return E('cm_%s<%s>(%s)' % (f, T.name, src), UINT, n, (0, UINT.hi))
        if f == 'fbh':
            return E('cm_fbh<%s>(%s)' % (T.name, src), T, n, (T.lo, T.hi))
        if f == 'rev':
            return E('cm_bf_reverse<%s>(%s)' % (T.name, src), T, n, (T.lo, T.hi))
        w = self.r.randint(1, 16)
        o = self.r.randint(0, 32 - w)
        if f == 'bfe':
            r = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if T.signed else (0, (1 << w) - 1)
            return E('cm_bf_extract<%s>(%d, %d, %s)' % (T.name, w, o, src), T, n, r)
        b = self.expr(n, ctx, depth - 1)
        if b is None or b.rng is None or b.ty.flt:
            return None
        src2 = '%s(%s)' % (vec_t(T, n), b.text) if n else '(%s)(%s)' % (T.name, b.text)
        return E('cm_bf_insert<%s>(%d, %d, %s, %s)' % (T.name, w, o, src2, src), T, n,
                 (T.lo, T.hi))

    # ---- fitting a value into a destination's invariant ---------------------
    def fit(self, e, ty, inv, n):
        """Text of e converted to ty with values in inv (None: any bits of
        the float type ty), or None when it cannot be made to fit."""
        cast = (lambda t, x: '%s(%s)' % (vec_t(t, n), x)) if n else \
               (lambda t, x: '(%s)(%s)' % (t.name, x))
        if ty.flt and inv is None:
            if e.ty is ty:
                return e.text
            if e.rng is not None and conv_range(e.rng, e.ty, ty) is not None:
                return e.text
            return None
        if e.rng is None:
            return None          # raw float bits only move into raw floats
        if not ty.flt:
            if e.ty.flt:
                if conv_range(e.rng, e.ty, ty) and e.rng[0] >= inv[0] and e.rng[1] <= inv[1]:
                    return e.text
                lo, hi = max(inv[0], -e.ty.exact), min(inv[1], e.ty.exact)
                return 'cm_min<%s>(cm_max<%s>(%s, %s), %s)' % (
                    e.ty.name, e.ty.name, e.text, lit(lo, e.ty), lit(hi, e.ty))
            r = conv_range(e.rng, e.ty, ty)
            if r[0] >= inv[0] and r[1] <= inv[1]:
                return e.text
            if inv == (ty.lo, ty.hi):
                return e.text
            if inv[0] == 0:
                return '(%s & %s)' % (e.text, lit(inv[1], promote(e.ty)))
            k = inv[1].bit_length()
            return '(%s(%s & %s) - %s)' % ((vec_t(ty, n) if n else '(%s)' % ty.name), e.text,
                                           lit((1 << (k + 1)) - 1, promote(e.ty)),
                                           lit(1 << k, promote(ty)))
        # a float destination with values in [-L, L], no negative zero
        L = inv[1]
        if e.ty.flt:
            t = e.text
            if max(-e.rng[0], e.rng[1]) > L:
                t = 'cm_min<%s>(cm_max<%s>(%s, %s), %s)' % (e.ty.name, e.ty.name, t,
                                                           lit(-L, e.ty), lit(L, e.ty))
            if e.negz:
                t = '(%s + %s)' % (t, lit(0, e.ty))
            return t
        if max(-e.rng[0], e.rng[1]) <= L:
            return e.text
        k = L.bit_length() - 1       # L = 2^k
        if self.chance(0.5):
            return '(%s & %s)' % (e.text, lit(L - 1, promote(e.ty)))
        return '(%s(%s & %s) - %d)' % ((vec_t(INT, n) if n else '(int)'), e.text,
                                       lit(L - 1, promote(e.ty)), L // 2)

    # ---- statements ----------------------------------------------------
    def target(self, n, ctx):
        """An lvalue region of n elements: (text, type, invariant, var)."""
        for _ in range(20):
            v = self.r.choice(self.vars)
            if ctx.get('nowrite') and v.name in ctx['nowrite']:
                continue
            reg = self.region(v, n, True)
            if reg:
                t, ty, fmt = reg
                inv = (None if ty.flt else (ty.lo, ty.hi)) if fmt else v.inv
                return t, ty, inv, v
        return None

    def width(self, ctx):
        if ctx['simd']:
            return ctx['simd']
        return self.r.choice([1, 2, 3, 4, 4, 5, 6, 8, 8, 8, 12, 16, 16, 16, 24, 32])

    def s_assign(self, ctx):
        n = self.width(ctx)
        tg = self.target(n, ctx)
        if not tg:
            return False
        t, ty, inv, v = tg
        e = self.expr(n, ctx, self.r.randint(1, 4))
        # compound assignment when the operation keeps the invariant
        if self.chance(0.25) and e.rng is not None and not ty.flt:
            op = self.r.choice(['+', '-', '*', '&', '|', '^'])
            cur = E(t, ty, n, inv)
            b = self.binop(n, ctx, 1, op, cur, e)
            if b is not None:
                r = conv_range(b.rng, b.ty, ty)
                if r and r[0] >= inv[0] and r[1] <= inv[1]:
                    self.emit('%s %s= %s;' % (t, op, e.text))
                    return True
        f = self.fit(e, ty, inv, n)
        if f is None:
            return False
        self.emit('%s = %s;' % (t, f))
        return True

    def mask(self, n, ctx):
        k = self.r.random()
        if k < 0.2 and not ctx['simd']:
            return '0x%x' % self.r.randint(0, (1 << n) - 1)
        if k < 0.4:
            e = self.leaf(n, ctx)
            if not e.ty.flt:
                return e.text
        for _ in range(5):
            e = self.compare(n, ctx, 2)
            if e:
                return e.text
        return '(lin.select<%d, 1>(0) > %d)' % (n, self.r.randint(0, n))

    def s_merge(self, ctx):
        n = self.width(ctx)
        tg = self.target(n, ctx)
        if not tg:
            return False
        t, ty, inv, v = tg
        srcs = []
        for _ in range(self.r.choice([1, 2])):
            e = self.scalar(ctx) if self.chance(0.2) else self.expr(n, ctx, self.r.randint(0, 3))
            if e is None:
                return False
            f = self.fit(e, ty, inv, e.n)
            if f is None:
                return False
            srcs.append(f)
        self.emit('%s.merge(%s, %s);' % (t, ', '.join(srcs), self.mask(n, ctx)))
        return True

    def s_elem(self, ctx):
        tg = self.target(1, ctx)
        if not tg or ctx['simd']:
            return False
        t, ty, inv, v = tg
        e = self.scalar(ctx)
        if e is None:
            return False
        if self.chance(0.5):
            b = self.scalar(ctx)
            if b is not None:
                e = self.binop(0, ctx, 1, self.r.choice(['+', '-', '*', '^']), e, b) or e
        f = self.fit(e, ty, inv, 0)
        if f is None:
            return False
        f2 = self.fit(e, v.ty, v.inv, 0)
        if v.shape[0] == 'v' and f2 is not None and self.chance(0.5):
            self.emit('%s(%s) = %s;' % (v.name, self.offset(v.count - 1), f2))
        else:
            self.emit('%s = %s;' % (t, f))
        return True

    def block(self, ctx, nstmts):
        self.ind += 1
        for _ in range(nstmts):
            self.stmt(ctx)
        self.ind -= 1

    def s_simd_if(self, ctx):
        W = ctx['simd'] or self.r.choice([2, 4, 8, 8, 16, 16, 32])
        if ctx['depth'] > 2:
            return False
        c = dict(ctx, simd=W, depth=ctx['depth'] + 1)
        self.emit('SIMD_IF_BEGIN((%s)) {' % self.mask(W, c))
        self.block(c, self.r.randint(1, 3))
        if self.chance(0.3):
            self.emit('} SIMD_ELSEIF((%s)) {' % self.mask(W, c))
            self.block(c, self.r.randint(1, 2))
        if self.chance(0.4):
            self.emit('} SIMD_ELSE {')
            self.block(c, self.r.randint(1, 2))
        self.emit('} SIMD_IF_END;')
        return True

    def s_simd_do(self, ctx):
        W = ctx['simd'] or self.r.choice([2, 4, 8, 16, 32])
        if ctx['depth'] > 2:
            return False
        c = dict(ctx, simd=W, depth=ctx['depth'] + 1)
        cnt = self.fresh('cnt')
        self.emit('vector<ushort, %d> %s = 0;' % (W, cnt), keep=True)
        self.emit('SIMD_DO_WHILE_BEGIN {')
        self.ind += 1
        self.emit('%s += 1;' % cnt, keep=True)
        self.ind -= 1
        self.block(c, self.r.randint(1, 3))
        self.ind += 1
        if self.chance(0.4):
            self.emit('SIMD_IF_BEGIN((%s)) { SIMD_%s; } SIMD_IF_END;' % (
                self.mask(W, c), self.r.choice(['BREAK', 'CONTINUE'])))
            self.ind -= 1
            self.block(c, self.r.randint(0, 2))
            self.ind += 1
        self.ind -= 1
        le = str(self.r.randint(1, 5))
        ivars = [v for v in self.vars if not v.ty.flt]
        if ivars and self.chance(0.6):
            reg = self.region(self.r.choice(ivars), W, False)
            if reg and not reg[1].flt:
                le = '((%s & 3) + 1)' % reg[0]
        self.emit('} SIMD_DO_WHILE_END((%s < %s));' % (cnt, le))
        return True

    def s_if(self, ctx):
        if ctx['simd'] or ctx['depth'] > 2:
            return False
        k = self.r.random()
        if k < 0.4:
            n = self.r.choice([2, 4, 8, 16])
            e = self.compare(n, ctx, 2)
            if e is None:
                return False
            cond = '%s.%s()' % (e.text, self.r.choice(['any', 'all']))
        elif k < 0.6:
            s, m = self.r.choice(self.scalars)
            cond = '%s > %d' % (s, self.r.randint(0, m))
        else:
            e = self.scalar(ctx)
            if e is None or e.rng is None:
                return False
            cond = '%s %s %s' % (e.text, self.r.choice(['<', '>', '==', '!=']),
                                 lit(self.r.randint(-5, 20), e.ty if e.ty.flt else INT))
        c = dict(ctx, depth=ctx['depth'] + 1)
        self.emit('if (%s) {' % cond)
        self.block(c, self.r.randint(1, 3))
        if self.chance(0.4):
            self.emit('} else {')
            self.block(c, self.r.randint(1, 2))
        self.emit('}')
        return True

    def s_for(self, ctx):
        if ctx['simd'] or ctx['depth'] > 2:
            return False
        i = self.fresh('i')
        if self.chance(0.5):
            s, m = self.r.choice(self.scalars)
            bound, mx = s, m
        else:
            mx = self.r.randint(1, 4)
            bound = str(mx)
        self.emit('for (uint %s = 0; %s < %s; %s++) {' % (i, i, bound, i))
        self.scalars.append((i, max(mx - 1, 0)))
        self.block(dict(ctx, depth=ctx['depth'] + 1), self.r.randint(1, 3))
        self.scalars.pop()
        self.emit('}')
        return True

    def s_atomic(self, ctx):
        """A surface atomic on the thread's own atomic area of out."""
        N = ctx['simd'] or self.r.choice([1, 2, 4, 8, 16, 32])
        if self.atomic_base is None:
            return False
        ops0 = ['ATOMIC_INC', 'ATOMIC_DEC']
        ops1 = ['ATOMIC_ADD', 'ATOMIC_SUB', 'ATOMIC_MIN', 'ATOMIC_MAX', 'ATOMIC_AND',
                'ATOMIC_OR', 'ATOMIC_XOR']
        ops1d = ['ATOMIC_XCHG']        # distinct addresses only
        ops2d = ['ATOMIC_CMPXCHG']
        ret = self.chance(0.4)
        distinct = ret or self.chance(0.5)
        ops = ops0 + ops1 + (ops1d + ops2d if distinct else [])
        op = self.r.choice(ops)
        if distinct:
            off = '((lin.select<%d, 1>(0) * %d) %% 32) + ab' % (N, self.r.choice([1, 3, 5, 7]))
        else:
            off = '(lin.select<%d, 1>(%d) & %d) + ab' % (N, self.r.randint(0, 32 - N),
                                                         self.r.choice([0, 1, 3, 7, 15]))
        args = ['out', 'vector<uint, %d>(%s)' % (N, off)]
        nsrc = 0 if op in ops0 else 2 if op in ops2d else 1
        for _ in range(nsrc):
            e = self.expr(N, ctx, 2)
            if e.rng is None:
                return False
            f = self.fit(e, UINT, (0, UINT.hi), N)
            if f is None:
                return False
            args.append('%s(%s)' % (vec_t(UINT, N), f))
        if ret:
            cands = [v for v in self.vars if v.ty is UINT and v.full]
            tg = None
            for v in cands:
                reg = self.region(v, N, True)
                if reg and reg[1] is UINT:
                    tg = reg[0]
                    break
            if tg is None:
                return False
            args.append(tg)
        self.emit('write_atomic<%s, uint>(%s);' % (op, ', '.join(args)))
        return True

    def s_scatter_out(self, ctx):
        """A scattered write (predicated inside SIMD control flow) of a
        variable region to a fresh part of the thread's out slice."""
        N = ctx['simd'] or self.r.choice([1, 2, 4, 8, 16, 32])
        cands = [v for v in self.vars if v.ty.size in (1, 2, 4)]
        if not cands:
            return False
        v = self.r.choice(cands)
        reg = self.region(v, N, False)
        if not reg or reg[1].size not in (1, 2, 4):
            return False
        t, ty, _ = reg
        sz = ty.size
        pos = self.out_alloc(N * sz)
        perm = self.r.choice([1, 3, 5, 7]) if N > 1 else 1
        self.emit('write(out, (ob + %d) / %d, (lin.select<%d, 1>(0) * %d) %% %d, %s);' % (
            pos, sz, N, perm, N, t))
        return True

    def s_slm(self, ctx):
        """Each thread writes a region to its SLM slot; barrier; reads its
        neighbour's slot into the same region; barrier.  One line."""
        if ctx['depth'] or ctx['simd']:
            return False
        cands = [v for v in self.vars if v.ty.size in (1, 2, 4)]
        if not cands:
            return False
        v = self.r.choice(cands)
        if self.chance(0.5):
            N = self.r.choice([8, 16, 32])
            reg = self.region(v, N, True)
            if not reg or reg[1].size not in (1, 2, 4) or reg[2]:
                return False
            t, ty = reg[0], reg[1]
            sz = ty.size
            perm = self.r.choice([1, 3, 5])
            base = self.r.randint(0, self.slm_slot // sz - N)
            offs = '(lin.select<%d, 1>(0) * %d) %% %d + %d' % (N, perm, N, base)
            self.emit('cm_slm_write(slm, %s + lid * %d, %s); cm_barrier(); '
                      'cm_slm_read(slm, %s + nb * %d, %s); cm_barrier();' % (
                          offs, self.slm_slot // sz, t, offs, self.slm_slot // sz, t))
        else:
            if v.count * v.ty.size not in (16, 32, 64, 128):
                return False
            nbytes = v.count * v.ty.size
            off = self.r.randint(0, (self.slm_slot - nbytes) // 16) * 16
            self.emit('cm_slm_block_write(slm, lid * %d + %d, %s); cm_barrier(); '
                      'cm_slm_block_read(slm, nb * %d + %d, %s); cm_barrier();' % (
                          self.slm_slot, off, v.name, self.slm_slot, off, v.name))
        self.uses_slm = True
        return True

    def s_reload(self, ctx):
        """Reads input memory into a temporary and fits it into a variable."""
        if ctx['simd']:
            return False
        v = self.r.choice(self.vars)
        self.emit(self.load(v, v.name, '', None))
        return True

    def stmt(self, ctx):
        kinds = [(self.s_assign, 10), (self.s_merge, 3), (self.s_elem, 2),
                 (self.s_simd_if, 2), (self.s_simd_do, 1), (self.s_if, 1.5),
                 (self.s_for, 1.5), (self.s_atomic, 1), (self.s_scatter_out, 1),
                 (self.s_slm, 1), (self.s_reload, 1)]
        for _ in range(20):
            f = self.r.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
            if f(ctx):
                return
        self.s_assign(ctx)

    # ---- declarations, loads and stores -----------------------------------
    def new_var(self):
        ty = self.r.choice(ALL + [INT, UINT, FLOAT, SHORT, UCHAR])
        if self.chance(0.3):
            R = self.r.randint(1, 8)
            C = self.r.choice([1, 2, 3, 4, 4, 8, 8, 16])
            shape = ('m', R, C)
        else:
            shape = ('v', self.r.choice([1, 2, 3, 4, 5, 6, 8, 8, 12, 16, 16, 16, 24, 32, 32, 48, 64]))
        cnt = shape[1] if shape[0] == 'v' else shape[1] * shape[2]
        while cnt * ty.size > 512:
            shape = ('v', cnt // 2)
            cnt //= 2
        if ty.flt:
            if self.chance(0.25):
                inv = None
            else:
                k = self.r.randint(*{2: (1, 5), 4: (2, 11), 8: (2, 20)}[ty.size])
                inv = (-(1 << k), 1 << k)
        else:
            k = self.r.random()
            if k < 0.4:
                inv = (ty.lo, ty.hi)
            elif k < 0.7 or not ty.signed:
                b = self.r.randint(1, ty.bits - (1 if ty.signed else 0))
                inv = (0, (1 << b) - 1)
            else:
                b = self.r.randint(1, ty.bits - 2)
                inv = (-(1 << b), (1 << b) - 1)
        self.nv += 1
        return Var('v%d' % self.nv, ty, shape, inv)

    def load(self, v, dest, decl, _):
        """One line: a memory read of v.count elements into a temporary and
        its assignment, fitted, to dest."""
        n = v.count
        raw = v.ty.flt and v.inv is None
        tty = v.ty if raw else (v.ty if not v.ty.flt else self.r.choice([INT, UINT, SHORT, CHAR]))
        nbytes = n * tty.size
        fams = ['scaled']
        if nbytes <= 128:
            fams += ['oword', 'oword', 'dwaligned']
        if nbytes in (16, 32, 64, 128):
            fams += ['svmblock', 'svmblock']
        if n in (1, 2, 4, 8, 16, 32):
            fams += ['svmscatter']
            if tty.size <= 4:
                fams += ['scattered', 'scattered']
        if tty.size <= 4:
            fams += ['media']
        if tty.size == 8:
            fams = [f for f in fams if f not in ('scaled', 'media')] or ['chunks']
        fam = self.r.choice(fams)
        tmp = 't'
        tdecl = '%s %s' % (vec_t(tty, n), tmp)
        maxoff = self.inslice - nbytes
        if fam == 'oword':
            rd = 'read(in, ib + %d, %s);' % (self.r.randint(0, maxoff // 16) * 16, tmp)
        elif fam == 'dwaligned':
            rd = 'read(DWALIGNED(in), ib + %d, %s);' % (self.r.randint(0, maxoff // 4) * 4, tmp)
        elif fam == 'svmblock':
            rd = 'cm_svm_block_read(sin + ib + %d, %s);' % (self.r.randint(0, maxoff // 16) * 16, tmp)
        elif fam == 'svmscatter':
            perm = self.r.choice([1, 3, 5, 7]) if n > 1 else 1
            off = self.r.randint(0, (maxoff // tty.size)) * tty.size
            rd = ('cm_svm_scatter_read(sin + ib + %d + ((lin.select<%d, 1>(0) * %d) %% %d) * %d, %s);'
                  % (off, n, perm, n, tty.size, tmp))
        elif fam == 'scattered':
            perm = self.r.choice([1, 3, 5, 7]) if n > 1 else 1
            off = self.r.randint(0, maxoff // tty.size)
            rd = 'read(in, ib / %d + %d, (lin.select<%d, 1>(0) * %d) %% %d, %s);' % (
                tty.size, off, n, perm, n, tmp)
        elif fam == 'scaled':
            # in chunks of 32 or fewer elements, byte offsets
            parts = []
            k = 0
            while k < n:
                c = max(d for d in (1, 2, 4, 8, 16, 32) if d <= n - k)
                perm = self.r.choice([1, 3]) if c > 1 else 1
                off = self.r.randint(0, maxoff)
                off -= off % tty.size
                parts.append('read_scaled(in, ib + %d, ((lin.select<%d, 1>(0) * %d) %% %d) * %d, '
                             '%s.select<%d, 1>(%d));' % (off, c, perm, c, tty.size, tmp, c, k))
                k += c
            rd = ' '.join(parts)
        elif fam == 'media':
            # a matrix read from the 2D input image (R32_UINT, IMGW x IMGH),
            # maybe past its edges (clamped)
            w = n * tty.size
            cands = []
            for R in divisors(n):
                C = n // R
                wb = C * tty.size
                rw = max(4, 1 << (wb - 1).bit_length())
                maxh = 64 if rw <= 4 else 32 if rw <= 8 else 16 if rw <= 16 else 8 if rw <= 32 else 4
                if wb <= 64 and R <= maxh and rw * R <= 256 and (wb % 4 == 0 or tty.size < 4):
                    cands.append((R, C))
            if not cands:
                rd = 'read(in, ib + %d, %s);' % (self.r.randint(0, maxoff // 16) * 16, tmp) \
                    if nbytes <= 128 else None
                if rd is None:
                    return self.load_chunks(v, dest, decl, tty)
            else:
                R, C = self.r.choice(cands)
                tdecl = 'matrix<%s, %d, %d> %s' % (tty.name, R, C, tmp)
                x = self.r.randint(-2, IMGW + 1) * 4
                y = self.r.randint(-2, IMGH + 1)
                rd = 'read(img, %d + (int)tid * 4, %d, %s);' % (x, y, tmp)
        else:
            return self.load_chunks(v, dest, decl, tty)
        if (fam in ('oword', 'dwaligned') and nbytes > 128):
            return self.load_chunks(v, dest, decl, tty)
        e = E(tmp, tty, n, None if (tty.flt) else (tty.lo, tty.hi))
        f = self.fit(e, v.ty, v.inv, n)
        return '%s{ %s; %s %s = %s; }' % (decl, tdecl, rd, dest, f)

    def load_chunks(self, v, dest, decl, tty):
        n = v.count
        parts, k = [], 0
        while k < n:
            c = min(n - k, 128 // tty.size)
            off = self.r.randint(0, (self.inslice - c * tty.size) // 16) * 16
            parts.append('read(in, ib + %d, t.select<%d, 1>(%d));' % (off, c, k))
            k += c
        e = E('t', tty, n, None if tty.flt else (tty.lo, tty.hi))
        return '%s{ %s t; %s %s = %s; }' % (decl, vec_t(tty, n), ' '.join(parts), dest,
                                           self.fit(e, v.ty, v.inv, n))

    def store(self, v):
        """Writes all of v to the thread's output slices (one line per piece)."""
        nbytes = v.count * v.ty.size
        k = self.r.random()
        if k < 0.15 and nbytes % 16 == 0 and v.ty.size == 4:
            # media write into the thread's band of the 2D output image
            n = v.count
            for R in sorted(divisors(n)):
                C = n // R
                if C * 4 <= 64 and R <= {4: 64, 8: 32, 16: 16, 32: 8, 64: 4}.get(
                        max(4, 1 << (C * 4 - 1).bit_length()), 0) and \
                        max(4, 1 << (C * 4 - 1).bit_length()) * R <= 256:
                    y = self.imgrows
                    self.imgrows += R
                    x = self.r.randint(0, OIMGW - C) * 4
                    self.emit('write(oimg, %d, tid * ROWS + %d, %s.format<%s, %d, %d>());' % (
                        x, y, v.name, v.ty.name, R, C))
                    return
        if k < 0.35 and nbytes in (16, 32, 64, 128):
            p = self.svm_alloc(nbytes)
            self.emit('cm_svm_block_write(sout + so + %d, %s);' % (p, v.name))
            return
        if k < 0.5 and v.ty.size in (1, 2, 4, 8) and v.count in (1, 2, 4, 8, 16, 32):
            p = self.svm_alloc(nbytes)
            n = v.count
            perm = self.r.choice([1, 3, 5, 7]) if n > 1 else 1
            self.emit('cm_svm_scatter_write(sout + so + %d + ((lin.select<%d, 1>(0) * %d) %% %d) * %d, %s.format<%s>());'
                      % (p, n, perm, n, v.ty.size, v.name, v.ty.name))
            return
        # OWord block writes of the bytes, then the rest scattered
        pos = self.out_alloc(nbytes)
        o = 0
        while nbytes - o >= 16:
            c = max(d for d in (16, 32, 64, 128) if d <= nbytes - o)
            self.emit('write(out, ob + %d, %s.format<uchar>().select<%d, 1>(%d));' % (
                pos + o, v.name, c, o))
            o += c
        while o < nbytes:
            c = max(d for d in (1, 2, 4, 8) if d <= nbytes - o)
            if self.chance(0.5):
                self.emit('write_scaled(out, ob + %d, lin.select<%d, 1>(0), %s.format<uchar>().select<%d, 1>(%d));'
                          % (pos + o, c, v.name, c, o))
            else:
                self.emit('write(out, ob + %d, lin.select<%d, 1>(0), %s.format<uchar>().select<%d, 1>(%d));'
                          % (pos + o, c, v.name, c, o))
            o += c

    def program(self):
        nvars = self.r.randint(4, 8)
        self.vars = [self.new_var() for _ in range(nvars)]
        if not any(v.ty is UINT and v.full for v in self.vars):
            v = Var('v%d' % (self.nv + 1), UINT, ('v', 32), (0, UINT.hi))
            self.nv += 1
            self.vars.append(v)
        if not any(not v.ty.flt for v in self.vars):
            self.nv += 1
            self.vars.append(Var('v%d' % self.nv, INT, ('v', 16), (-1000, 999)))
        for v in self.vars:
            self.emit(self.load(v, v.name, v.decl() + '; ', None), keep=True)
        self.atomic_base = self.out_alloc(32 * 4)
        ctx = {'simd': None, 'depth': 0}
        for _ in range(self.r.randint(6, 22)):
            self.stmt(ctx)
        for v in self.vars:
            self.store(v)
        body = self.lines
        self.outpos = (self.outpos + 15) // 16 * 16 or 16
        self.svmpos = (self.svmpos + 15) // 16 * 16 or 16
        rows = max(self.imgrows, 1)
        nthreads = self.groups * self.threads
        head = [
            '// DIFF: seed=%d groups=%d threads=%d in=%d out=%d svmin=%d svmout=%d img=%dx%d oimg=%dx%d'
            % (self.seed, self.groups, self.threads, self.inslice * nthreads,
               self.outpos * nthreads, self.inslice * nthreads, self.svmpos * nthreads,
               IMGW, IMGH, OIMGW, rows * nthreads),
            '// generated by tests/diff/gen.py %d' % self.seed,
            '#define ROWS %d' % rows,
            'static const uint LIN[32] = {%s};' % ', '.join(map(str, range(32))),
            'extern "C" _GENX_MAIN_ void k(SurfaceIndex in [[type("buffer_t")]], '
            'SurfaceIndex out [[type("buffer_t")]], SurfaceIndex img [[type("image2d_t uint")]], '
            'SurfaceIndex oimg [[type("image2d_t uint")]], svmptr_t sin [[type("svmptr_t")]], '
            'svmptr_t sout [[type("svmptr_t")]], uint s0, uint s1)',
            '{',
        ]
        pro = [
            '\tvector<uint, 32> lin(LIN); // keep',
            '\tuint lid = cm_local_id(0); // keep',
            '\tuint tid = cm_group_id(0) * cm_local_size(0) + lid; // keep',
            '\tuint nb = (lid + 1) %% %d; // keep' % self.threads,
            '\tuint ib = tid * %d, ob = tid * %d, so = tid * %d; // keep' % (
                self.inslice, self.outpos, self.svmpos),
            '\tuint ab = ob / 4 + %d; // keep' % (self.atomic_base // 4),
            '\tuint r0 = s0 % 4, r1 = s1 % 8; // keep',
        ]
        if self.uses_slm:
            pro += ['\tcm_slm_init(%d); // keep' % (self.slm_slot * self.threads),
                    '\tuint slm = cm_slm_alloc(%d); // keep' % (self.slm_slot * self.threads)]
        return '\n'.join(head + pro + body + ['}', ''])


IMGW, IMGH, OIMGW = 64, 16, 64


def main():
    args = sys.argv[1:]
    out = None
    if '-o' in args:
        i = args.index('-o')
        out = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit('usage: gen.py SEED [-o FILE]')
    text = Gen(int(args[0])).program()
    if out:
        with open(out, 'w') as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == '__main__':
    main()
