# Usage: subset_top1.py WORKLOADS.txt SCORES.tsv [SCORES.tsv ...]
# Table 11's weighted Top-1 and Top-5 (bench_dataset_metrics --dump-scores,
# held-out workloads) on the workloads named in WORKLOADS.txt (one per
# line), on the others, and on all: where a change of labels or of model
# moved the figure. Given several dumps of one dataset (seeds), also their
# ensemble: per workload, the sum of each dump's z-scored scores.
import csv, sys, collections, math
subset = set(open(sys.argv[1]).read().split())

def load(path):
    """{(model, workload): {schedule: (score, latency)}}, {workload: weight}"""
    rows = collections.defaultdict(dict); weight = {}
    for r in csv.DictReader(open(path), delimiter='\t'):
        if r['split'] != 'workloads': continue
        rows[(r['model'], r['workload'])][int(r['schedule'])] = (float(r['score']), float(r['latency_s']))
        weight[r['workload']] = float(r['weight'])
    return rows, weight

def z(d):
    m = sum(s for s, _ in d.values()) / len(d)
    sd = math.sqrt(sum((s - m) ** 2 for s, _ in d.values()) / len(d)) or 1
    return {i: ((s - m) / sd, lat) for i, (s, lat) in d.items()}

def report(title, rows, weight):
    for model in sorted(set(m for m, _ in rows)):
        for label, keep in [('listed', lambda w: w in subset), ('others', lambda w: w not in subset), ('all', lambda w: True)]:
            best_sum = top1_sum = top5_sum = 0; n = 0
            for (m, w), items in rows.items():
                if m != model or not keep(w): continue
                by_score = sorted(items.values(), key=lambda it: -it[0]); n += 1
                best_sum += weight[w] * min(lat for _, lat in by_score)
                top1_sum += weight[w] * by_score[0][1]
                top5_sum += weight[w] * min(lat for _, lat in by_score[:5])
            if n: print("%s: %s %-6s %3d workloads: Top-1 %.3f Top-5 %.3f" % (title, model, label, n, best_sum / top1_sum, best_sum / top5_sum))

dumps = [load(p) for p in sys.argv[2:]]
for path, (rows, weight) in zip(sys.argv[2:], dumps):
    report(path, rows, weight)
if len(dumps) > 1:
    # How many of the other workloads' first picks differ from the first
    # dump's: dumps of runs whose training labels differ (not only their
    # seeds) show how far a small change of the data moves the picks where
    # the labels judged are the same.
    rows0, weight = dumps[0]
    pick = lambda items: max(items, key=lambda i: items[i][0])
    for path, (rows, _) in zip(sys.argv[3:], dumps[1:]):
        for model in sorted(set(m for m, _ in rows0)):
            common = [w for (m, w) in rows0 if m == model and w not in subset and (m, w) in rows]
            if not common: continue
            differ = sum(pick(rows0[(model, w)]) != pick(rows[(model, w)]) for w in common)
            print("%s: %s picks another schedule than %s's in %d of %d other workloads"
                  % (path, model, sys.argv[2], differ, len(common)))
    ensemble = {}  # the (model, workload) lists every dump has
    for key, items in rows0.items():
        if not all(key in rows for rows, _ in dumps): continue
        zs = [z(rows[key]) for rows, _ in dumps]
        assert all(set(zz) == set(items) for zz in zs), "the dumps must score the same schedules"
        ensemble[key] = {i: (sum(zz[i][0] for zz in zs), items[i][1]) for i in items}
    if ensemble: report("ensemble of %d" % len(dumps), ensemble, weight)
