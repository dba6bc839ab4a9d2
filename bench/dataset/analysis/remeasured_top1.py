# Usage: remeasured_top1.py DB T0_MS SCORES.tsv LSE_DUMP.tsv [MEASUREMENTS]
# The workloads: the five the script names (the heaviest PaCM losses of session 41).
# Table 11's weighted Top-1 of PaCM's held-out pick (bench_dataset_metrics
# --dump-scores) on the re-measured workloads, judged against each
# measurement (dataset, pass 1, ...) as the labels. LSE_DUMP (--dump-lse)
# maps the scores' schedule indices to sentences. The ceiling that a second
# measurement used as the model reaches is label_stability.py's.
import sqlite3, sys, collections
db = sqlite3.connect(sys.argv[1]); t0 = int(sys.argv[2]); scores_path = sys.argv[3]
lse_dump = sys.argv[4]
targets = ['dense_bias_gelu_M256_K1024_N4096','dense_bias_add_M128_K4096_N1024','dense_bias_gelu_M256_K768_N3072','dense_bias_add_M256_K1024_N1024','dense_bias_gelu_M128_K768_N3072']
# schedule index -> sentence (the dump and the scores share replay order)
names = {}; sent = {}
for line in open(lse_dump):
    if line.startswith('#w'):
        p = line.rstrip('\n').split('\t'); names[int(p[1])] = p[2]; continue
    if line.startswith('#') or line.startswith('w\t'): continue
    p = line.rstrip('\n').split('\t')
    if names[int(p[0])] in targets: sent[(names[int(p[0])], int(p[1]))] = p[-1]
score = {}; weight = {}
for line in open(scores_path):
    if line.startswith('split'): continue
    sp, m, f, w, wt, i, lat, sc = line.rstrip('\n').split('\t')
    if w in targets and sp == 'workloads':
        score[(w, int(i))] = float(sc); weight[w] = float(wt)
keys = dict((n, k) for k, n in db.execute("select distinct workload_key, name from job_tasks").fetchall() if n in targets)
meas = {}  # (w, sentence) -> [dataset, pass1, pass2...]
for w in targets:
    old = {}; new = collections.defaultdict(list)
    for steps, mean, busy, at in db.execute("select steps, mean_s, host_busy_cores, measured_at_unix_ms from records where workload_key=? and error='none' and mean_s>0 order by id", (keys[w],)):
        if busy > 0.5: continue
        if at < t0: old[steps] = mean
        else: new[steps].append(mean)
    for s in old: meas[(w, s)] = [old[s]] + new[s]
npass = int(sys.argv[5]) if len(sys.argv) > 5 else min(len(v) for v in meas.values())
print("measurements per schedule:", npass)
def top1(label_of, score_of):
    num = den = 0
    for w in targets:
        items = [(i, s) for (ww, i), s in sent.items() if ww == w and (w, s) in meas and len(meas[(w, s)]) >= npass and (w, i) in score]
        best = min(label_of(w, s) for i, s in items)
        pick = max(items, key=lambda it: score_of(w, it[0], it[1]))
        num += weight[w] * best; den += weight[w] * label_of(w, pick[1])
    return num / den
labels = ['dataset'] + ['pass %d' % p for p in range(1, npass)]
for li, lab in enumerate(labels):
    L = lambda w, s, li=li: meas[(w, s)][li]
    print("labels = %-8s: PaCM %.3f" % (lab, top1(L, lambda w, i, s: score[(w, i)])))
