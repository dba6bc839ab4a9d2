# Usage: model_ensembles.py SCORES.tsv [SCORES.tsv ...] [--split workloads|networks]
#                           [--members mlp,pacm,xgb] [--fraction 1] [--common-workloads]
# Table 11's weighted Top-1 / Top-5 of each model in --dump-scores files
# (at one training fraction, 1 unless --fraction says) and of every
# ensemble of two or more of them: per held-out workload, the sum of the
# models' z-scored scores. Models with other features (statement rows,
# step sentences, loop variables) err on different schedules; this says
# whether their errors cancel at the top.
# Several files may be given when the models ran apart on one dataset with
# the same --folds (the held-out schedules must be the same).
# --members names the ensemble chosen beforehand (choosing the best of all
# combinations on the same held-out data would flatter it); the RESULT line
# gives it beside the best single model (by Top-1), with a paired bootstrap
# over workloads of its Top-1 and Top-5 gains (5th / 95th percentiles).
# --common-workloads keeps only the workloads every model scored: a model
# run on some folds (--only-fold) against the others on the same workloads.
import itertools, sys

from dump_scores import Scores

args = [a for a in sys.argv[1:] if not a.startswith('--')]
split = 'workloads'
if '--split' in sys.argv:
    split = sys.argv[sys.argv.index('--split') + 1]
    args.remove(split)
fraction = 1.0
if '--fraction' in sys.argv:
    value = sys.argv[sys.argv.index('--fraction') + 1]
    args.remove(value)
    fraction = float(value)
chosen = None
if '--members' in sys.argv:
    value = sys.argv[sys.argv.index('--members') + 1]
    args.remove(value)
    chosen = tuple(sorted(value.split(',')))

data = Scores(args, split, fraction)
if '--common-workloads' in sys.argv:
    data.keep_common_workloads()
models, latency = data.models, data.latency


def topk(members):
    return data.topk(members)[:3]


def bootstrap_gain(a, b, column, draws=2000):
    # Paired bootstrap over workloads: Top-k of a minus Top-k of b on the
    # same resampled workloads (column 1: Top-1, 2: Top-5), 5th and 95th
    # percentiles.
    import random
    ta, tb = data.terms(a), data.terms(b)
    keys = sorted(set(ta) & set(tb))
    rng = random.Random(1)
    gains = []
    for _ in range(draws):
        pick = [rng.choice(keys) for _ in keys]
        best = sum(ta[k][0] for k in pick)
        gains.append(best / sum(ta[k][column] for k in pick) -
                     best / sum(tb[k][column] for k in pick))
    gains.sort()
    return gains[int(0.05 * draws)], gains[int(0.95 * draws)]


print("split %s, fraction %g, %d workloads, models: %s" %
      (split, fraction, len(latency), ", ".join(models)))
results = {}
for size in range(1, len(models) + 1):
    for members in itertools.combinations(models, size):
        n, t1, t5 = topk(members)
        results[members] = (t1, t5)
        print("%-40s %3d workloads  Top-1 %.4f  Top-5 %.4f" % ("+".join(members), n, t1, t5))
if chosen:
    if chosen not in results:
        sys.exit("--members: %s are not all in the scores (models: %s)" %
                 (",".join(chosen), ", ".join(models)))
    single = max(models, key=lambda m: results[(m,)][0])
    gain1 = bootstrap_gain(chosen, (single,), 1)
    gain5 = bootstrap_gain(chosen, (single,), 2)
    print("RESULT model_ensembles split=%s fraction=%g members=%s top1=%.4f top5=%.4f best_single=%s "
          "best_single_top1=%.4f best_single_top5=%.4f top1_gain_p5=%.4f top1_gain_p95=%.4f "
          "top5_gain_p5=%.4f top5_gain_p95=%.4f" %
          (split, fraction, "+".join(chosen), *results[chosen], single, *results[(single,)], *gain1, *gain5))
