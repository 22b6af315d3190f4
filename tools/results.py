#!/usr/bin/env python3
"""Regenerates docs/results.md: dfx explore on attention G1-G12 (edge, cloud) and conv chains
C1-C8 (cloud), next to the speed-ups the TileFlow paper reports (REFERENCE.md section 7).

usage: tools/results.py [--dfx build/tools/dfx] [--evals 2000] [--seed 1] [--jobs N] [--no-polish] [--out docs/results.md]
(the numbers do not depend on --jobs: --jobs threads in all, the searches of a table side by side as
processes of their own, tools/parallel_runs.py)
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Reported by the paper (geometric or arithmetic mean over the set, as printed; REFERENCE.md §7).
PAPER = {
    ("attention", "edge"): {"speedup": {"Uni-pipe": 1.62, "FLAT-HGran": 3.59, "FLAT-RGran": 2.89, "Chimera": 2.91, "best": 6.65},
                            "dram": {"Uni-pipe": -90.4, "FLAT-HGran": -90.4, "FLAT-RGran": -81.5, "Chimera": -75.1, "best": -87.1}},
    ("attention", "cloud"): {"speedup": {"Uni-pipe": 1.37, "best": 12.63}, "dram": {"best": -86.6}},
    ("conv_chain", "cloud"): {"speedup": {"Fused-Layer": 1.01, "best": 1.59 * 1.01}, "dram": {"Fused-Layer": -73.0}},
}


def explore(dfx, arch, workload, evals, seed, jobs, polish):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
        path = tmp.name
    cmd = [dfx, "explore", f"{ROOT}/configs/arch/{arch}.yaml", f"{ROOT}/configs/workloads/{workload}.yaml",
           "--evals", str(evals), "--seed", str(seed), "--jobs", str(jobs), "--quiet", "--json", path]
    if polish:  # every baseline (Layerwise included) and the best made coordinate optima of their tilings
        cmd.append("--polish")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(path) as f:
        data = json.load(f)
    os.unlink(path)
    return data


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def study(dfx, family, arch, names, evals, seed, jobs, polish):
    rows, per_name = [], {}
    found = run_all(lambda w, threads: explore(dfx, arch, w, evals, seed, threads, polish), names, jobs)
    for w, d in zip(names, found):
        entries = {b["name"]: b for b in d["baselines"]}
        entries["best"] = d["best"][0]
        base = entries["Layerwise"]
        row = {"workload": w, "seconds": d["seconds"], "evals": d["evaluations"]}
        for name, e in entries.items():
            s = base["cycles"] / e["cycles"]
            dram = 100.0 * (e["dram_bytes"] - base["dram_bytes"]) / base["dram_bytes"]
            row[name] = (s, dram, e["utilization"])
            per_name.setdefault(name, []).append((s, dram, e["utilization"]))
        rows.append(row)
        print(f"  {family} {arch} {w}: best {row['best'][0]:.2f}x in {d['seconds']:.1f} s", file=sys.stderr)
    return rows, per_name


def table(family, arch, rows, per_name):
    names = [n for n in per_name if n != "Layerwise"]
    paper = PAPER.get((family, arch), {"speedup": {}, "dram": {}})
    out = [f"### {family.replace('_', ' ')} on {arch}\n",
           "Speed-up over Layerwise (cycles), per workload; the last rows give the geometric mean, the mean "
           "DRAM traffic change and the paper's figures.\n",
           "| workload | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for r in rows:
        out.append(f"| {r['workload']} | " + " | ".join(f"{r[n][0]:.2f}x" if n in r else "—" for n in names) + " |")
    out.append("| **geomean** | " + " | ".join(f"**{geomean([x[0] for x in per_name[n]]):.2f}x**" for n in names) + " |")
    out.append("| paper | " + " | ".join(f"{paper['speedup'][n]:.2f}x" if n in paper["speedup"] else "—" for n in names) + " |")
    out.append("| DRAM traffic | " + " | ".join(f"{sum(x[1] for x in per_name[n]) / len(per_name[n]):+.1f}%" for n in names) + " |")
    out.append("| paper DRAM | " + " | ".join(f"{paper['dram'][n]:+.1f}%" if n in paper["dram"] else "—" for n in names) + " |")
    out.append("| utilisation | " + " | ".join(f"{100 * sum(x[2] for x in per_name[n]) / len(per_name[n]):.0f}%" for n in names) + " |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dfx", default=f"{ROOT}/build/tools/dfx")
    ap.add_argument("--evals", type=int, default=6000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default=f"{ROOT}/docs/results.md")
    ap.add_argument("--no-polish", dest="polish", action="store_false",
                    help="leave out dfx explore --polish (faster; the baselines' tilings are then less tuned)")
    args = ap.parse_args()
    attention = [f"attention_g{i}" for i in range(1, 13)]
    convs = [f"conv_chain_c{i}" for i in range(1, 9)]
    sections = []
    for family, arch, names in (("attention", "edge", attention), ("attention", "cloud", attention),
                                ("conv_chain", "cloud", convs)):
        rows, per_name = study(args.dfx, family, arch, names, args.evals, args.seed, args.jobs, args.polish)
        sections.append(table(family, arch, rows, per_name))
    flags = "" if args.polish else " --no-polish"
    polished = (", and\n`--polish` made the best and every baseline, Layerwise included, a coordinate optimum of its\ntiling"
                if args.polish else "")
    header = f"""# Results: dfx explore against the named baselines

Generated by `tools/results.py --evals {args.evals} --seed {args.seed}{flags}` (every number below is
from that run; `best` is the best dataflow dfx explore found in the budget, baselines included{polished}).
The paper's figures are TileFlow's (MICRO 2023) as summarised in shared/REFERENCE.md §7; its
`best` column is TileFlow's own searched dataflow.

"""
    with open(args.out, "w") as f:
        f.write(header + "\n".join(sections) + "\n" + open(f"{ROOT}/docs/results-discussion.md").read())


if __name__ == "__main__":
    main()
