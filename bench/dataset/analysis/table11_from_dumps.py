# Usage: table11_from_dumps.py SCORES.tsv [SCORES.tsv ...] [--logs RUN.log ...]
# Table 11 and Fig. 15 from --dump-scores files of bench_dataset_metrics
# runs made apart on one dataset with the same --folds and --seed (TLP's
# 100% folds take an hour of a core each, so they run as separate
# --only-fold processes, beside or after the other models' run). Per split
# and model: Top-1 at each training fraction, Top-5 and the mean per
# workload at 100%, and how many held-out workloads the dumps cover (a
# model run on some folds covers a part: compare it on those with
# model_ensembles.py --common-workloads).
# --logs: the runs' logs; their `RESULT dataset_models` lines give the
# dataset's size, and each model's train seconds (summed over the logs:
# one per fold adds up to the folds of one run) and states per second
# (their mean).
# Ends with `RESULT dataset_models_combined ...`, keys as in
# bench_dataset_metrics' line (net_ for held-out networks, _f7 / _f25 for
# the 7% / 25% fractions) plus _workloads, the held-out workloads scored.
import collections, csv, sys

from dump_scores import Scores

argv = sys.argv[1:]
logs = []
if '--logs' in argv:
    i = argv.index('--logs')
    logs, argv = argv[i + 1:], argv[:i]
dumps = argv
if not dumps:
    sys.exit(__doc__ or "usage: table11_from_dumps.py SCORES.tsv ... [--logs RUN.log ...]")

combos = set()  # (split, model, fraction)
for path in dumps:
    for r in csv.DictReader(open(path), delimiter='\t'):
        combos.add((r['split'], r['model'], float(r['fraction'])))

# The logs' RESULT lines: dataset size, train seconds, states per second.
dataset = {}
train_s = collections.defaultdict(float)
states = collections.defaultdict(list)
for path in logs:
    for line in open(path):
        if not line.startswith('RESULT dataset_models '):
            continue
        fields = dict(f.split('=', 1) for f in line.split()[2:] if '=' in f)
        for k in ('records', 'workloads', 'networks'):
            if k in fields:
                dataset.setdefault(k, fields[k])
        for k, v in fields.items():
            if k.endswith('_train_s'):
                train_s[k] += float(v)
            elif k.endswith('_states_per_s'):
                states[k].append(float(v))

result = dict(dataset)
for split in ('workloads', 'networks'):
    models = sorted(set(m for s, m, _ in combos if s == split))
    if not models:
        continue
    print("held-out %s" % split)
    print("| model | Top-1 by fraction | Top-5 (100%) | per workload (100%) | workloads (100%) | train s | states/s |")
    print("|---|---|---|---|---|---|---|")
    by_fraction = {}
    for fraction in sorted(set(f for s, _, f in combos if s == split)):
        data = Scores(dumps, split, fraction)
        for m in data.models:
            by_fraction[(m, fraction)] = data.topk((m,))
    for m in models:
        key = ('net_' if split == 'networks' else '') + m.replace('-', '_')
        fractions = sorted(f for (mm, f) in by_fraction if mm == m)
        cells = " / ".join("%.3f (%g%%)" % (by_fraction[(m, f)][1], 100 * f) for f in fractions)
        full = by_fraction.get((m, 1.0))
        for f in fractions:
            if f != 1.0:
                result['%s_top1_f%g' % (key, round(100 * f))] = '%.4f' % by_fraction[(m, f)][1]
        if full:
            result[key + '_top1'] = '%.4f' % full[1]
            result[key + '_top5'] = '%.4f' % full[2]
            result[key + '_top1_per_workload'] = '%.4f' % full[3]
            result[key + '_workloads'] = full[0]
        if key + '_train_s' in train_s:
            result[key + '_train_s'] = '%.1f' % train_s[key + '_train_s']
        if states.get(key + '_states_per_s'):
            result[key + '_states_per_s'] = '%.0f' % (sum(states[key + '_states_per_s']) /
                                                      len(states[key + '_states_per_s']))
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            m, cells, '%.3f' % full[2] if full else '-', '%.3f' % full[3] if full else '-',
            full[0] if full else '-', result.get(key + '_train_s', '-'),
            result.get(key + '_states_per_s', '-')))
    print()
print("RESULT dataset_models_combined " + " ".join("%s=%s" % kv for kv in result.items()))
