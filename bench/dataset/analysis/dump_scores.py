# Reading bench_dataset_metrics --dump-scores files and Table 11's weighted
# Top-k from them (shared by model_ensembles.py and table11_from_dumps.py).
# A dump row: split, model, fraction, workload, weight, schedule (index in
# the workload), latency_s, score. Top-1 is TenSet's: over held-out
# workloads, sum(weight x best latency) / sum(weight x latency of the
# model's first pick); Top-5 takes the best of the first five picks.
import collections, csv, math


class Scores:
    """Every model's scores of the held-out schedules of one split at one
    training fraction, from one or more dumps of the same dataset and folds."""

    def __init__(self, paths, split, fraction):
        self.scores = collections.defaultdict(dict)  # (model, workload) -> {schedule: score}
        self.latency = collections.defaultdict(dict)  # workload -> {schedule: latency}
        self.weight = {}
        for path in paths:
            for r in csv.DictReader(open(path), delimiter='\t'):
                if r['split'] != split or abs(float(r['fraction']) - fraction) > 1e-9:
                    continue
                w, i = r['workload'], int(r['schedule'])
                self.scores[(r['model'], w)][i] = float(r['score'])
                self.latency[w][i] = float(r['latency_s'])
                self.weight[w] = float(r['weight'])
        self.models = sorted(set(m for m, _ in self.scores))

    def keep_common_workloads(self):
        # Only the workloads every model scored (models run on some folds).
        for w in list(self.latency):
            if not all((m, w) in self.scores for m in self.models):
                del self.latency[w]

    def terms(self, members):
        # Per workload every member scored: weight x (best latency, the
        # pick's, the best of the first 5) by the sum of the members'
        # z-scores (one member: its own order).
        out = {}
        for w, lats in self.latency.items():
            if not all((m, w) in self.scores for m in members):
                continue
            zs = [zscores(self.scores[(m, w)]) for m in members]
            combined = {i: sum(z[i] for z in zs) for i in lats}
            order = sorted(lats, key=lambda i: -combined[i])
            out[w] = (self.weight[w] * min(lats.values()), self.weight[w] * lats[order[0]],
                      self.weight[w] * min(lats[i] for i in order[:5]))
        return out

    def topk(self, members):
        # (workloads, Top-1, Top-5, mean over workloads of best / pick).
        t = self.terms(members).values()
        if not t:
            return 0, float('nan'), float('nan'), float('nan')
        best = sum(x[0] for x in t)
        return (len(t), best / sum(x[1] for x in t), best / sum(x[2] for x in t),
                sum(x[0] / x[1] for x in t) / len(t))


def zscores(d):
    finite = [s for s in d.values() if math.isfinite(s)]
    m = sum(finite) / len(finite)
    sd = math.sqrt(sum((s - m) ** 2 for s in finite) / len(finite)) or 1
    # A schedule a model could not score (-inf) stays last.
    return {i: (s - m) / sd if math.isfinite(s) else -1e9 for i, s in d.items()}
