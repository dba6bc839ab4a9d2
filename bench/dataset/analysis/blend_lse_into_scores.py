# Usage: blend_lse_into_scores.py SCORES.tsv LSE_DUMP.tsv [SPLIT]
# Offline: PaCM's held-out scores (--dump-scores) blended with LSE's estimate
# (--dump-lse) per workload: score = z(pacm) + a * z(-log lse_estimate).
import sys, collections, math
scores_path, lse_path = sys.argv[1], sys.argv[2]
lse = {}; names = {}
for line in open(lse_path):
    if line.startswith('#w'):
        p = line.rstrip('\n').split('\t'); names[int(p[1])] = p[2]; continue
    if line.startswith('#') or line.startswith('w\t'): continue
    p = line.split('\t', 4)
    lse[(names[int(p[0])], int(p[1]))] = float(p[3])
wl = collections.defaultdict(list); weight = {}
for line in open(scores_path):
    if line.startswith('split'): continue
    split, model, frac, w, wt, i, lat, sc = line.rstrip('\n').split('\t')
    if split != (sys.argv[3] if len(sys.argv) > 3 else 'workloads'): continue
    wl[w].append((int(i), float(lat), float(sc))); weight[w] = float(wt)
def z(xs):
    m = sum(xs) / len(xs); sd = math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs)) or 1
    return [(x - m) / sd for x in xs]
missing = 0
for a in [0, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 1000]:
    num = den = num5 = den5 = 0; per = []
    for w, items in wl.items():
        ps = z([s for _, _, s in items])
        ls = []
        for i, lat, s in items:
            e = lse.get((w, i))
            ls.append(-math.log(e) if e and e > 0 else -1e9)
        lz = z(ls)
        comb = [p + a * l for p, l in zip(ps, lz)]
        order = sorted(range(len(items)), key=lambda k: -comb[k])
        best = min(lat for _, lat, _ in items)
        pick = items[order[0]][1]; p5 = min(items[k][1] for k in order[:5])
        num += weight[w] * best; den += weight[w] * pick
        num5 += weight[w] * best; den5 += weight[w] * p5; per.append(best / pick)
    print("a=%-6g Top-1 %.4f Top-5 %.4f per-workload %.4f (%d workloads)" % (a, num / den, num5 / den5, sum(per) / len(per), len(wl)))
