#!/usr/bin/env python3
# Usage: label_repeat_ceiling.py DB DEVICE [SCORES.tsv ...] [--members mlp,pacm,xgb]
#            [--since UNIX_MS] [--min-schedules N]
# How far can any model get on Table 11's Top-1 when the labels are single
# measurements? Every schedule of DEVICE measured quietly at least twice
# (host_busy_cores <= 0.5; the dataset's re-measured workloads, whatever
# the reason or the day) gives two label sets of the same workload. One
# set taken as a model of the other (its order = a perfect model of that
# measurement) scores the figure that measurement noise and the code
# generator's drift between the two leave to any model. Workloads with at
# least 20 (--min-schedules) such schedules count; with --since, only
# measurements made at or after that time (one build's repeats, e.g. of
# `pruner dataset remeasure --fastest 15 --passes 2`: the figures then
# hold for each workload's fastest few, without the code generator's
# drift). Weights as bench_dataset_metrics's (the
# workload's use count summed over jobs). Given --dump-scores files of
# bench_dataset_metrics (held-out workloads, 100%), also each model's
# Top-1 / Top-5 on the same workloads, judged by the dataset's labels, and
# with --members their ensemble (z-scores summed, model_ensembles.py's).
import collections, math, os, sqlite3, statistics, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dump_scores import Scores

if len(sys.argv) < 3:
    sys.exit(open(__file__).read().split('\nimport')[0])
args = sys.argv[1:]; members = []; since = 0; min_schedules = 20
if '--members' in args:
    i = args.index('--members'); members = args[i + 1].split(','); del args[i:i + 2]
if '--since' in args:
    i = args.index('--since'); since = int(args[i + 1]); del args[i:i + 2]
if '--min-schedules' in args:
    i = args.index('--min-schedules'); min_schedules = int(args[i + 1]); del args[i:i + 2]
db = sqlite3.connect(args[0]); device = args[1]; dumps = args[2:]

weight = collections.defaultdict(float); name_of = {}
for name, key, w in db.execute("select name, workload_key, weight from job_tasks"):
    weight[key] += w; name_of[key] = name
times = collections.defaultdict(list)  # (workload, schedule) -> quiet latencies since --since
latest = {}  # (workload, schedule) -> latest quiet latency, whatever --since
for key, steps, mean, at in db.execute(
        "select workload_key, steps, mean_s, measured_at_unix_ms from records where device_key=? "
        "and error='none' and mean_s>0 and host_busy_cores<=0.5 order by id", (device,)):
    latest[(key, steps)] = mean
    if at >= since: times[(key, steps)].append(mean)
pairs = collections.defaultdict(list)  # workload -> [(earlier, latest)]
for (key, _), t in times.items():
    if len(t) >= 2: pairs[key].append((t[-2], t[-1]))
pairs = {k: p for k, p in pairs.items() if len(p) >= min_schedules}
if not pairs:
    sys.exit("no workload of %s has %d schedules measured twice" % (device, min_schedules))

def topk(model, label):
    # (weighted Top-1, weighted Top-5, mean best/pick per workload)
    num = den = den5 = per = 0.0
    for key, p in pairs.items():
        order = sorted(p, key=lambda x: x[model]); best = min(x[label] for x in p)
        num += weight[key] * best; den += weight[key] * order[0][label]
        den5 += weight[key] * min(x[label] for x in order[:5]); per += best / order[0][label]
    return num / den, num / den5, per / len(pairs)

# Table 11 reads each schedule's latest quiet measurement: those labels,
# the earlier measurement as the model (and the other way round).
w1, f1, p1 = topk(0, 1); w2, f2, p2 = topk(1, 0)
n = sum(len(p) for p in pairs.values())
best = collections.defaultdict(lambda: float('inf'))  # workload -> best latest latency
for (key, _), t in latest.items(): best[key] = min(best[key], t)
share = sum(weight[k] * best[k] for k in pairs) / sum(weight[k] * b for k, b in best.items())
print("%d workloads of %s with >= %d schedules measured quietly twice%s (%d schedules), "
      "%.2f of Table 11's weight x best latency" % (len(pairs), device, min_schedules,
      " since %d" % since if since else "", n, share))
print("one measurement as the model of the other, weighted (Table 11's):")
print("  labels latest, model earlier: Top-1 %.3f  Top-5 %.3f  per workload %.3f" % (w1, f1, p1))
print("  labels earlier, model latest: Top-1 %.3f  Top-5 %.3f  per workload %.3f" % (w2, f2, p2))
# How far apart the two measurements of one schedule are: ln(latest /
# earlier), each workload's mean removed (the code generator's drift moves
# a whole workload), over all the pairs and over each workload's 10
# fastest (by the latest), where Top-1 is decided.
def spread(pairs_of):
    r = []
    for p in pairs_of:
        logs = [math.log(b / a) for a, b in p]; mean = sum(logs) / len(logs)
        r += [x - mean for x in logs]
    return statistics.median(abs(x) for x in r), math.sqrt(sum(x * x for x in r) / len(r))
all_mad, all_sd = spread(pairs.values())
top_mad, top_sd = spread(sorted(p, key=lambda x: x[1])[:10] for p in pairs.values())
print("ln(latest / earlier) less each workload's mean: median |.| %.3f, sd %.3f; "
      "on each workload's 10 fastest: median |.| %.3f, sd %.3f" % (all_mad, all_sd, top_mad, top_sd))
# ceiling_*: the direction Table 11 reads (latest as labels). Not a strict
# bound: a model fitted on many workloads can beat one earlier measurement.
ceiling = ("ceiling_top1=%.4f ceiling_top5=%.4f reverse_top1=%.4f ln_ratio_mad=%.4f ln_ratio_sd=%.4f "
           "top10_ln_ratio_mad=%.4f top10_ln_ratio_sd=%.4f" % (w1, f1, w2, all_mad, all_sd, top_mad, top_sd))
if dumps:
    scores = Scores(dumps, 'workloads', 1.0)
    names = {name_of[k] for k in pairs}
    for w in list(scores.latency):
        if w not in names: del scores.latency[w]
    print("the models on these workloads (held-out workloads, 100%%; %s):" % ", ".join(dumps))
    line = []
    for m in scores.models:
        count, t1, t5, per = scores.topk([m])
        print("  %-18s %3d workloads  Top-1 %.3f  Top-5 %.3f  per workload %.3f" % (m, count, t1, t5, per))
        line.append("%s_top1=%.4f" % (m.replace('-', '_'), t1))
    if members:
        count, t1, t5, per = scores.topk(members)
        print("  %-18s %3d workloads  Top-1 %.3f  Top-5 %.3f  per workload %.3f" % ("+".join(members), count, t1, t5, per))
        line.append("ensemble_top1=%.4f" % t1)
    print("RESULT label_repeat_ceiling workloads=%d schedules=%d %s %s" % (len(pairs), n, ceiling, " ".join(line)))
else:
    print("RESULT label_repeat_ceiling workloads=%d schedules=%d %s" % (len(pairs), n, ceiling))
