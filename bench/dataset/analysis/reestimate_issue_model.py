# Usage: reestimate_issue_model.py LSE.tsv [--constants "load=1 chain=0.5 ..."]
#                                  [--combine sum|max|overlap:A] [--check]
# The CPU issue model recomputed from bench_dataset_metrics --dump-lse rows
# with other constants or another way of combining a row's compute and
# memory cycles, without lowering anything again: the mean Spearman rho
# (over workloads with 3 or more schedules, as the tool's) and the weighted
# Top-1 of the analyzer's first pick (sum w L* / sum w L(pick)).
#   cycles_c = load*loads + gather*gathered + store*stores + loop*iterations + chain*chain_steps
#   cycles_m = s5*S5 + dram*dram elements + l1*L1 lines + l2*L2 lines
#   row = sum: c + m (the analyzer's), max: max(c, m), overlap:A: c + m - A*min(c, m)
# divided by the row's cores. The statement term is left out: its default
# weight is 0 (analyzer_options.h). --check compares the default-constant
# sum with the dumped estimate and says how far the two lie apart.
import math, sys
from collections import defaultdict

from script_args import take_option

args = sys.argv[1:]
constants = dict(load=1, gather=1, store=2 / 3, loop=0.5, chain=1, s5=1 / 6, dram=1, l1=1, l2=0)
for pair in take_option(args, '--constants', '').split():
    name, value = pair.split('=')
    if name not in constants:
        sys.exit(f'unknown constant {name}: one of {", ".join(constants)}')
    constants[name] = float(value)
combine = take_option(args, '--combine', 'sum')
check = '--check' in args
if check:
    args.remove('--check')
if len(args) != 1:
    sys.exit(__doc__ or 'usage: reestimate_issue_model.py LSE.tsv [options]')

def combined(c, m):
    if combine == 'sum':
        return c + m
    if combine == 'max':
        return max(c, m)
    if combine.startswith('overlap:'):
        return c + m - float(combine.split(':')[1]) * min(c, m)
    sys.exit(f'unknown --combine {combine}')

weights, measured, dumped = {}, {}, {}
rows = defaultdict(lambda: defaultdict(list))  # workload -> schedule -> rows
columns = None
for line in open(args[0]):
    fields = line.rstrip('\n').split('\t')
    if fields[0] == '#w':
        weights[int(fields[1])] = float(fields[4])
        continue
    if fields[0].startswith('#'):
        continue
    if fields[0] == 'w':
        columns = {name: i for i, name in enumerate(fields)}
        continue
    value = lambda name: float(fields[columns[name]])
    w, j = int(fields[0]), int(fields[1])
    measured[(w, j)] = value('measured_s')
    dumped[(w, j)] = value('estimate_s')
    compute = (constants['load'] * value('i_loads') + constants['gather'] * value('i_gather') +
               constants['store'] * value('i_stores') + constants['loop'] * value('i_iters') +
               constants['chain'] * value('i_chain_steps'))
    memory = (constants['s5'] * value('s5') + constants['dram'] * value('i_dram') +
              constants['l1'] * value('i_l1_lines') + constants['l2'] * value('i_l2_lines'))
    rows[w][j].append((compute, memory, max(1.0, value('cores'))))

def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        k = i
        while k + 1 < len(order) and values[order[k + 1]] == values[order[i]]:
            k += 1
        for t in range(i, k + 1):
            out[order[t]] = (i + k) / 2
        i = k + 1
    return out

def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    den = math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))
    return num / den if den > 0 else float('nan')

rhos, top1_num, top1_den, worst = [], 0.0, 0.0, 0.0
for w, schedules in rows.items():
    keys = sorted(schedules)
    cycles = {j: sum(combined(c, m) / cores for c, m, cores in schedules[j]) for j in keys}
    if len(keys) >= 3:
        rho = spearman([cycles[j] for j in keys], [measured[(w, j)] for j in keys])
        if not math.isnan(rho):
            rhos.append(rho)
    pick = min(keys, key=lambda j: cycles[j])
    top1_num += weights.get(w, 1) * min(measured[(w, j)] for j in keys)
    top1_den += weights.get(w, 1) * measured[(w, pick)]
    if check:
        # The dump's estimate is in seconds, ours in cycles: compare ratios.
        ratios = [dumped[(w, j)] / cycles[j] for j in keys if cycles[j] > 0]
        worst = max(worst, max(ratios) / min(ratios) - 1)
print(f'{len(rhos)} workloads, combine {combine}, constants '
      + ' '.join(f'{k}={v:.4g}' for k, v in constants.items()))
print(f'mean rho {sum(rhos) / len(rhos):.4f}  first pick Top-1 {top1_num / top1_den:.4f}')
if check:
    print(f'dumped estimate / recomputed cycles varies by at most {worst:.2e} within a workload')
