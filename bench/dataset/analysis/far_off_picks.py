# Usage: far_off_picks.py SCORES.tsv [SCORES.tsv ...] [--factor 3] [--split workloads]
#                         [--fraction 1] [--db DB --device KEY --since-ms T]
# Per model in the dumps: the held-out workloads whose first pick is more
# than --factor times slower than the list's fastest, their share of the
# model's Top-1 loss, and the Top-1 the model would have without them (a
# decomposition, not a score). With --db, also how many of those workloads
# have a quiet ok record measured at or after T (unix ms) on the device:
# whether the far-off picks fall on labels measured again with a later build
# or on the collection's. Session 55.
import sqlite3
import sys

from dump_scores import Scores
from script_args import take_option

args = sys.argv[1:]
factor = float(take_option(args, '--factor', '3'))
split = take_option(args, '--split', 'workloads')
fraction = float(take_option(args, '--fraction', '1'))
db = take_option(args, '--db', '')
device = take_option(args, '--device', '')
since_ms = int(take_option(args, '--since-ms', '0'))
if not args or (db and not device):
    sys.exit('usage: far_off_picks.py SCORES.tsv ... [--factor 3] [--db DB --device KEY --since-ms T]')

measured_again = set()
if db:
    rows = sqlite3.connect(db).execute(
        "SELECT DISTINCT w.description FROM records r JOIN workloads w ON w.key = r.workload_key "
        "WHERE r.device_key = ? AND r.error = 'none' AND r.measured_at_unix_ms >= ? "
        "AND r.host_busy_cores <= 0.5", (device, since_ms))
    measured_again = {name for (name,) in rows}

data = Scores(args, split, fraction)
for model in data.models:
    terms = data.terms([model])  # per workload: weight x (best, pick, best of five)
    best_sum = sum(t[0] for t in terms.values())
    pick_sum = sum(t[1] for t in terms.values())
    far = [(pick - best, w, pick / best) for w, (best, pick, _) in terms.items()
           if pick > factor * best]
    far_loss = sum(f[0] for f in far)
    loss = pick_sum - best_sum
    line = '%s: Top-1 %.4f; %d first picks over %gx the fastest, %.2f of the loss' % (
        model, best_sum / pick_sum, len(far), factor, far_loss / loss if loss > 0 else 0)
    if db:
        line += ', %d of them on workloads measured again since %d' % (
            sum(1 for _, w, _ in far if w in measured_again), since_ms)
    print(line + '; without them Top-1 %.4f' % (best_sum / (pick_sum - far_loss)))
    for l, w, ratio in sorted(far, reverse=True)[:5]:
        print('    %.3f of the loss  %-50s pick %.1fx the fastest%s' % (
            l / loss, w, ratio, '  (measured again)' if w in measured_again else ''))
