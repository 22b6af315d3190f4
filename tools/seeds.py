#!/usr/bin/env python3
"""How much the search's result depends on the seed (docs/mapper.md, "Where seeds still disagree").

Runs `dfx explore` for every arch/workload pair below and every seed, and prints per pair the best
cycles of each seed, then over all runs the geometric mean of cycles / best known and how many
runs end within 1% of it. "Best known" is the lowest cycles any run here found for that pair, or a
lower figure given with --known PAIR=CYCLES (from earlier studies).

  python3 tools/seeds.py --dfx build-rel/tools/dfx [--seeds 8] [--evals 10000] [--jobs 2]

--jobs is the threads in all: the runs go side by side, each a process of its own
(tools/parallel_runs.py); no result depends on it.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parallel_runs import run_all  # noqa: E402

PAIRS = [
    ("edge", "attention_g1"), ("edge", "attention_g8"), ("cloud", "attention_g3"),
    ("ascend_like", "attention_g1"), ("edge", "gemm_chain_g1"), ("cloud", "gemm_chain_g5"),
    ("cloud", "conv_chain_c1"), ("cloud", "conv_chain_c5"),
]


def best_cycles(dfx, root, arch, workload, seed, evals, jobs):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        cmd = [dfx, "explore", f"{root}/configs/arch/{arch}.yaml", f"{root}/configs/workloads/{workload}.yaml",
               "--seed", str(seed), "--evals", str(evals), "--jobs", str(jobs), "--quiet", "--json", out]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            return json.load(f)["best"][0]["cycles"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dfx", required=True)
    p.add_argument("--seeds", type=int, default=8)
    p.add_argument("--evals", type=int, default=10000)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--known", action="append", default=[], help="arch/workload=cycles")
    a = p.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    known = {}
    for k in a.known:
        pair, cycles = k.split("=")
        known[pair] = float(cycles)
    log_sum, runs, close = 0.0, 0, 0
    seeds = range(1, a.seeds + 1)
    found = run_all(lambda run, threads: best_cycles(a.dfx, root, *run, a.evals, threads),
                    [(arch, workload, s) for arch, workload in PAIRS for s in seeds], a.jobs)
    for p, (arch, workload) in enumerate(PAIRS):
        cycles = found[p * len(seeds):(p + 1) * len(seeds)]
        pair = f"{arch}/{workload}"
        best = min(cycles + [known.get(pair, math.inf)])
        log_sum += sum(math.log(c / best) for c in cycles)
        runs += len(cycles)
        close += sum(c <= best * 1.01 for c in cycles)
        print(f"{pair:28s} best known {best:10.0f}  seeds: " + " ".join(f"{c:.0f}" for c in cycles))
        sys.stdout.flush()
    print(f"geometric mean of cycles / best known: {math.exp(log_sum / runs):.3f}; "
          f"{close} of {runs} runs within 1%")


if __name__ == "__main__":
    main()
