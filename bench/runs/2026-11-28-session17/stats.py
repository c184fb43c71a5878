import sys, statistics as st
rows=[tuple(map(float,l.split())) for l in sys.stdin if l.strip()]
a=[r[0] for r in rows]; b=[r[1] for r in rows]; q=sorted(y/x for x,y in rows)
n=len(q)
print(f"A med {st.median(a):.4f} min {min(a):.4f} | B med {st.median(b):.4f} min {min(b):.4f} | B/A med {st.median(q):.3f} (q1 {q[n//4]:.3f} q3 {q[(3*n)//4]:.3f}) n={n}")
