# Usage: label_stability.py DB T0_MS [WORKLOAD ...]
# After `pruner dataset remeasure --workload ...` passes on a copy of the
# dataset: do a workload's labels reproduce? For each workload with quiet
# records measured after T0_MS (unix ms; or the named ones), each schedule's
# quiet measurements in id order: the dataset's latest before T0_MS, then
# one per pass. Prints per workload the best schedule by each measurement,
# the rank correlation between them, and Table 11's weighted Top-1 (weights
# from job_tasks, summed over jobs) with one measurement as the labels and
# another as the model: the ceiling that measurement noise and
# code-generator drift leave to any model.
import sqlite3, sys, collections
db = sqlite3.connect(sys.argv[1]); t0 = int(sys.argv[2]); wanted = sys.argv[3:]

def spearman(a, b):
    def rk(x):
        o = sorted(range(len(x)), key=lambda i: x[i]); r = [0] * len(x)
        for k, i in enumerate(o): r[i] = k
        return r
    ra, rb = rk(a), rk(b); n = len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb)) / (n * (n * n - 1))

weight = collections.defaultdict(float); key_of = {}
for name, key, w in db.execute("select name, workload_key, weight from job_tasks"):
    weight[key] += w; key_of[name] = key
if wanted:
    keys = [key_of[n] for n in wanted]
else:
    keys = [k for (k,) in db.execute("select distinct workload_key from records where measured_at_unix_ms >= ? and error='none' and host_busy_cores <= 0.5", (t0,))]
name_of = dict((k, n) for n, k in key_of.items())

table = {}  # key -> (columns: [dataset, pass 1, ...] per schedule)
for key in sorted(keys, key=lambda k: name_of[k]):
    old = {}; new = collections.defaultdict(list)
    for steps, mean, busy, at in db.execute("select steps, mean_s, host_busy_cores, measured_at_unix_ms from records where workload_key=? and error='none' and mean_s>0 order by id", (key,)):
        if busy > 0.5: continue
        if at < t0: old[steps] = mean
        else: new[steps].append(mean)
    common = [s for s in old if new[s]]
    if not common: continue
    passes = max(len(new[s]) for s in common)
    full = [s for s in common if len(new[s]) >= passes]  # a run timeout leaves a pass out
    cols = [[old[s] for s in full]] + [[new[s][p] for s in full] for p in range(passes)]
    table[key] = cols
    labels = ['dataset'] + ['pass %d' % (p + 1) for p in range(passes)]
    best = ["%s %.2f ms (s%d)" % (lab, min(c) * 1e3, c.index(min(c))) for c, lab in zip(cols, labels)]
    rhos = ["rho(%s, %s) %.3f" % (labels[a], labels[b], spearman(cols[a], cols[b]))
            for a in range(len(cols)) for b in range(a + 1, len(cols))]
    print("%s (weight %g, %d schedules): best %s; %s" % (name_of[key], weight[key], len(full), ", ".join(best), "; ".join(rhos)))

def weighted_top1(label_col, model_col):
    # Column -1 is each workload's latest pass: the label bench_dataset_metrics reads.
    num = den = 0
    for key, cols in table.items():
        if max(label_col, model_col) >= len(cols): continue
        lab, mod = cols[label_col], cols[model_col]
        pick = min(range(len(mod)), key=lambda i: mod[i])
        num += weight[key] * min(lab); den += weight[key] * lab[pick]
    return num / den if den else float('nan')

most = max(len(c) for c in table.values()) if table else 0
print("%d workloads; weighted Top-1 with one measurement as the model of another:" % len(table))
for a in range(most):
    for b in range(most):
        if a == b: continue
        name = lambda i: 'dataset' if i == 0 else 'pass %d' % i
        print("  labels %-8s model %-8s %.3f" % (name(a), name(b), weighted_top1(a, b)))
print("  labels latest   model dataset  %.3f (the labels Table 11 reads now)" % weighted_top1(-1, 0))
