import sys, statistics as st, collections
d=collections.defaultdict(list)
for l in sys.stdin:
    f=l.strip().split(',')
    if len(f)<7: continue
    d[(f[2],f[0])].append(float(f[5]))
for k in sorted(d): v=d[k]; print(k[0], k[1], "med %.4f q1 %.4f q3 %.4f min %.4f n=%d"%(st.median(v), sorted(v)[len(v)//4], sorted(v)[(3*len(v))//4], min(v), len(v)))
