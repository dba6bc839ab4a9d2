# Usage: largest_losses.py SCORES.tsv MODEL [--split workloads|networks] [--fraction 1] [--top 10]
# Where a model's Table 11 Top-1 goes: the held-out workloads whose first
# pick costs the most, weight x (pick's latency - fastest), each as its
# share of the model's whole loss, with the fastest and the picked latency
# and the pick's rank by measured latency (1 = the fastest).
import sys

from dump_scores import Scores
from script_args import take_option

args = sys.argv[1:]
split = take_option(args, '--split', 'workloads')
fraction = float(take_option(args, '--fraction', '1'))
top = int(take_option(args, '--top', '10'))
if len(args) != 2:
    sys.exit(__doc__ or "usage: largest_losses.py SCORES.tsv MODEL [--split S] [--fraction F] [--top N]")
path, model = args
data = Scores([path], split, fraction)
losses = []
best_sum = pick_sum = 0
for w, lats in data.latency.items():
    scores = data.scores.get((model, w))
    if not scores:
        continue
    pick = max(scores, key=lambda i: scores[i])
    best = min(lats.values())
    rank = 1 + sum(1 for v in lats.values() if v < lats[pick])
    best_sum += data.weight[w] * best
    pick_sum += data.weight[w] * lats[pick]
    losses.append((data.weight[w] * (lats[pick] - best), w, best, lats[pick], rank))
if not losses:
    sys.exit("no %s scores of the %s split at fraction %g in %s" % (model, split, fraction, path))
total = sum(l[0] for l in losses) or 1
print("%s, %s split, fraction %g: Top-1 %.4f over %d workloads" % (model, split, fraction, best_sum / pick_sum, len(losses)))
for loss, w, best, picked, rank in sorted(losses, reverse=True)[:top]:
    print("%5.3f of the loss  %-50s fastest %9.3f ms  pick %9.3f ms  rank %3d" % (loss / total, w, best * 1e3, picked * 1e3, rank))
