# Usage: label_stability.py DB T0_MS
# The workloads: the five the script names (the heaviest PaCM losses of session 41).
# After `pruner dataset remeasure --workload ...` passes on a copy of the
# dataset: each schedule's quiet measurements in id order (the dataset's
# latest before T0_MS, then one per pass), the five fastest by each, and
# the rank correlation between passes.
# Label stability of the heaviest lost workloads: each schedule's quiet
# measurements in id order (the dataset's, then each remeasure pass).
import sqlite3, sys, collections, math
db = sqlite3.connect(sys.argv[1]); t0 = int(sys.argv[2])  # unix ms: records after this are new passes
names = dict(db.execute("select distinct workload_key, name from job_tasks where name in ('dense_bias_gelu_M256_K1024_N4096','dense_bias_add_M128_K4096_N1024','dense_bias_gelu_M256_K768_N3072','dense_bias_add_M256_K1024_N1024','dense_bias_gelu_M128_K768_N3072')").fetchall())
def spearman(a, b):
    def rk(x):
        o = sorted(range(len(x)), key=lambda i: x[i]); r = [0]*len(x)
        for k, i in enumerate(o): r[i] = k
        return r
    ra, rb = rk(a), rk(b); n = len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb)) / (n * (n * n - 1))
for key, name in names.items():
    old = {}; new = collections.defaultdict(list)
    for steps, mean, busy, at in db.execute("select steps, mean_s, host_busy_cores, measured_at_unix_ms from records where workload_key=? and error='none' and mean_s>0 order by id", (key,)):
        if at < t0:
            if busy <= 0.5: old[steps] = mean
        elif busy <= 0.5:
            new[steps].append(mean)
    common = [s for s in old if len(new[s]) >= 1]
    passes = max(len(new[s]) for s in common) if common else 0
    # Schedules with every measurement ok (a run timeout leaves a pass out).
    full = [s for s in common if len(new[s]) >= passes]
    print("%s: %d schedules measured in the dataset and in all %d pass(es)" % (name, len(full), passes))
    if not full: continue
    cols = [[old[s] for s in full]] + [[new[s][p] for s in full] for p in range(passes)]
    labels = ['dataset'] + ['pass %d' % (p + 1) for p in range(passes)]
    for c, lab in zip(cols, labels):
        order = sorted(range(len(full)), key=lambda i: c[i])
        print("  %-8s best %.2f ms; top-5 by it: %s" % (lab, c[order[0]] * 1e3, ", ".join("s%d %.1f/%s" % (i, c[i] * 1e3, "/".join("%.1f" % (cc[i] * 1e3) for cc in cols if cc is not c)) for i in order[:5])))
    for a in range(len(cols)):
        for b in range(a + 1, len(cols)):
            print("  rho(%s, %s) = %.3f" % (labels[a], labels[b], spearman(cols[a], cols[b])))
