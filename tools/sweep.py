#!/usr/bin/env python3
"""A design-space sweep: `dfx explore` on every point of a grid of arch changes and workload sizes.

Each --vary KEY V1 V2 ... is one axis of the grid over the arch (a key path of arch.yaml, as
`dfx explore --set` takes it: levels.L1.capacity, compute.matrix.rows, levels.DRAM.read_bw...);
each --vary-dim NAME S1 S2 ... one axis over a dimension of the workloads (`--dim`), and
--vary-dim m,l S1 S2 ... over several dims set together (an attention's sequence length is both
m and l). Every
workload is searched at every point, with the same seed and budget. The output is a Markdown table
per workload (best cycles, its speed-up over Layerwise at the same point, DRAM bytes, energy,
utilisation, bottleneck, on-chip peak) and, with several workloads, the geometric mean of the best
cycles per point relative to the first point.

  python3 tools/sweep.py --dfx build/tools/dfx configs/arch/edge.yaml configs/workloads/attention_g1.yaml \\
      --vary levels.L1.capacity 256KB 1MB 4MB --vary levels.DRAM.read_bw "30 GB/s" "60 GB/s" [--evals 10000]
      [--seed 1] [--seeds 1] [--jobs 2] [--polish] [--csv FILE] [--outdir DIR]

--jobs is the threads to use in all: with several searches to run, up to that many run at once,
each as a process of its own with the threads shared out (one each when there are enough searches;
separate processes scale better than one search's threads, and a search's result never depends
on its thread count), else one search at a time with all of them.

--outdir keeps each point's JSON and best flow.yaml (WORKLOAD.N.json, .yaml, N the point's number from 1; with --seeds,
those of the seed that did best), whose first line is the command that reproduces it.

After the searches, each point's best flow is evaluated (`dfx eval`) at the points next to it in
the grid (one axis one step away), and a point takes a neighbour's flow where it is valid there and
faster than the point's own search found: a search on a small budget can miss at a larger L1 what
it found at a smaller one, and the table would say more capacity costs cycles. Such rows say
"point N's search" in the "found by" column; their flow.yaml is the neighbour's (the search's own
kept as WORKLOAD.N.search.yaml); --no-carry leaves every point to its own search.
"""
import argparse
import csv
import itertools
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parallel_runs import run_all  # noqa: E402

# What dfx explore says where no candidate of the budget fits the arch (exit 2 on good input).
NONE_VALID = "no valid dataflow found"
COLUMNS = ["cycles", "time µs", "speed-up", "DRAM bytes", "energy pJ", "util", "bottleneck", "on-chip peak B",
           "found by"]
# The CSV's too: which seed's search the row is (with --seeds, the one that did best), and how
# many candidates it scored (--polish's tuning of the baselines adds to --evals).
CSV_COLUMNS = COLUMNS + ["seed", "evaluations"]


def human(v):
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "K")):
        if abs(v) >= div:
            return f"{v / div:.2f}{suffix}"
    return f"{v:.0f}"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def explore(args, workload, changes, json_path, flow_path, threads):
    """The best of --seeds searches at one point (the others' files are left out)."""
    best = None
    for seed in range(args.seed, args.seed + args.seeds):
        result = explore_once(args, workload, changes, seed, json_path + ".try", flow_path + ".try", threads)
        if "failed" in result:
            return result
        if "none_valid" in result:
            best = best or result
            continue
        if best is None or "none_valid" in best or result["best"][0]["cycles"] < best["best"][0]["cycles"]:
            best = result
            os.replace(json_path + ".try", json_path)
            os.replace(flow_path + ".try", flow_path)
    for leftover in (json_path + ".try", flow_path + ".try"):
        if os.path.exists(leftover):
            os.remove(leftover)
    return best


def explore_once(args, workload, changes, seed, json_path, flow_path, threads):
    cmd = [args.dfx, "explore", args.arch, workload, "--seed", str(seed), "--evals", str(args.evals),
           "--jobs", str(threads), "--quiet", "--json", json_path, "--out", flow_path]
    if args.polish:
        cmd.append("--polish")
    for flag, value in changes:
        cmd += [flag, value]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode == 2 and NONE_VALID in done.stderr:
        # The point is good input (check_points) where no candidate fits: a row of its own.
        return {"none_valid": done.stderr.strip(), "seconds": 0.0}
    if done.returncode != 0:
        # A point check_points passed but dfx refused: a row that says so; the sweep goes on and
        # exits with dfx's code once every row is printed.
        shown_cmd = cmd[:cmd.index("--json")] + cmd[cmd.index("--out") + 2:]  # its files are temporary
        words = " ".join(shlex.quote(c) for c in shown_cmd)
        print(f"sweep: {words} failed (exit {done.returncode}):\n{done.stderr.strip()}", file=sys.stderr)
        return {"failed": f"failed (exit {done.returncode})", "exit": done.returncode, "seconds": 0.0}
    with open(json_path) as f:
        return json.load(f)


def check_files(p, args):
    """What would fail only after every search, or overwrite an input, refused first (exit 2)."""
    if not (os.path.isfile(args.dfx) and os.access(args.dfx, os.X_OK)):
        p.error(f"--dfx {args.dfx}: not an executable file")
    inputs = {os.path.realpath(f) for f in [args.arch] + args.workloads}
    if args.csv:
        if os.path.realpath(args.csv) in inputs:
            p.error(f"--csv {args.csv} is an input of this sweep; one would overwrite the other")
        where = os.path.dirname(os.path.abspath(args.csv))
        if not os.path.isdir(where):
            p.error(f"--csv {args.csv}: no directory {os.path.dirname(args.csv)}")
        if os.path.isdir(args.csv):
            p.error(f"--csv {args.csv} is a directory")
    if args.outdir and os.path.exists(args.outdir) and not os.path.isdir(args.outdir):
        p.error(f"--outdir {args.outdir} is a file, not a directory")


def stems_of(workloads):
    """Each workload's name in tables, the CSV and --outdir: its file's stem, with #2, #3... after a
    stem an earlier file already has (two attention_g1.yaml from different folders, or one file
    given twice), so that their rows and files never mix."""
    stems, seen = [], {}
    for w in workloads:
        stem = os.path.splitext(os.path.basename(w))[0]
        seen[stem] = seen.get(stem, 0) + 1
        stems.append(stem if seen[stem] == 1 else f"{stem}#{seen[stem]}")
    return stems


def point_file(where, stem, i, suffix):
    """A point's file in --outdir: WORKLOAD.N.json, .yaml, .search.yaml, N numbered from 1 as the
    table and the messages number the points."""
    return os.path.join(where, f"{stem}.{i + 1}{suffix}")


def changes_of(point):
    """A point's command-line changes: (flag, KEY=VALUE) pairs, two or more for linked dims."""
    return [(flag, change) for flag, changes, _ in point for change in changes]


def check_points(args, points):
    """Every point checked with `dfx validate`, workload by workload, before any search (a few
    milliseconds each), so that a bad value or a point the arch cannot run stops the sweep at once,
    every such point and workload named, rather than after the searches before it. A problem shared
    by several points (a dim one workload does not have) is said once, with the points. Exits with
    dfx's code."""
    failed = 0
    problems = {}  # (workload, message) -> the points with it, in order
    for w in args.workloads:
        for i, point in enumerate(points):
            cmd = [args.dfx, "validate", args.arch, w]
            for flag, change in changes_of(point):
                cmd += [flag, change]
            done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                problems.setdefault((w, done.stderr.strip()), []).append(i)
                failed = failed or done.returncode
    for (w, message), at in problems.items():
        shown = ", ".join(f"{i + 1}/{len(points)} ({' '.join(c for _, c in changes_of(points[i]))})" for i in at[:3])
        more = f" and {len(at) - 3} more" if len(at) > 3 else ""
        print(f"sweep: {w} cannot run at point{'s' if len(at) > 1 else ''} {shown}{more}:\n{message}", file=sys.stderr)
    if failed:
        print("sweep: nothing searched", file=sys.stderr)
        sys.exit(failed)


def row_of(result):
    if "none_valid" in result or "failed" in result:
        why = "no valid dataflow" if "none_valid" in result else result["failed"]
        return {c: why if c == "bottleneck" else None for c in CSV_COLUMNS}
    best = result["best"][0]
    layerwise = next((b for b in result["baselines"] if b["name"] == "Layerwise"), None)
    return {
        "cycles": best["cycles"],
        # At the point's clock: cycles alone would rank a slower clock first in a sweep over clocks.
        "time µs": best["cycles"] / (result["clock_ghz"] * 1e3),
        "speed-up": layerwise["cycles"] / best["cycles"] if layerwise else None,
        "DRAM bytes": best["dram_bytes"],
        "energy pJ": best["energy_pj"],
        "util": best["utilization"],
        "bottleneck": best["bottleneck"],
        "on-chip peak B": best["peak_onchip_bytes"],
        "seed": result["seed"],
        "evaluations": result["evaluations"],
        "found by": "search",
    }


def linked(flag, key):
    """The keys one axis sets: a --vary-dim NAME,NAME... sets every dim it names to each value."""
    return key.split(",") if flag == "--dim" else [key]


def neighbours(points, i):
    """The points one axis one step away from point i in the grid (the axes' values in order)."""
    out = []
    for j, other in enumerate(points):
        apart = [k for k, (a, b) in enumerate(zip(points[i], other)) if a != b]
        if len(apart) == 1:
            k = apart[0]
            values = sorted({p[k][2] for p in points}, key=[p[k][2] for p in points].index)
            if abs(values.index(points[i][k][2]) - values.index(other[k][2])) == 1:
                out.append(j)
    return out


def evaluate_at(args, workload, point, flow):
    """dfx eval of a flow at a point's changes: its report, or None where it is not valid there."""
    cmd = [args.dfx, "eval", args.arch, workload, flow, "--json", "-"]
    for flag, change in changes_of(point):
        cmd += [flag, change]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        return None  # e.g. its tiles no longer fit, or a --dim its loops do not divide
    report = json.loads(done.stdout)
    return report if report.get("valid") else None


def carry_over(args, rows, points, where, workload_of):
    """Each point takes the fastest of its neighbours' flows where one is valid there and faster
    than its own, pass after pass until no point changes (a flow may travel several steps). A
    pass weighs every point against the flows its neighbours held when the pass began and changes
    them only at its end, so that the result does not depend on the order of the points. A point
    whose search failed is left alone. Returns how many rows changed."""
    at = {(s, i): row for s, i, _, row in rows}
    searched = {key: (row.get("seed"), row.get("evaluations")) for key, row in at.items()}
    fresh = set(at)  # the points whose flow is new since the last pass: only theirs are offered
    changed = 0
    while fresh:
        offers = {}  # point -> (report, neighbour): the fastest neighbour's flow there
        for (stem, i), row in at.items():
            if str(row.get("bottleneck", "")).startswith("failed"):
                continue
            for j in neighbours(points, i):
                if (stem, j) not in fresh or at[(stem, j)]["cycles"] is None:
                    continue
                report = evaluate_at(args, workload_of[stem], points[i], point_file(where, stem, j, ".yaml"))
                best = offers[(stem, i)][0]["cycles"] if (stem, i) in offers else row["cycles"]
                if report is not None and (best is None or report["cycles"] < best):
                    offers[(stem, i)] = (report, j)
        taken = {}
        for (stem, i), (report, j) in offers.items():  # every offered flow read before any changes
            with open(point_file(where, stem, j, ".yaml")) as f:
                taken[(stem, i)] = f.read().split("\n", 1)[1], at[(stem, j)].get("origin", j)
        for (stem, i), (report, _) in offers.items():
            flow, origin = taken[(stem, i)]
            own = point_file(where, stem, i, ".yaml")
            if at[(stem, i)]["found by"] == "search" and os.path.exists(own):
                os.replace(own, point_file(where, stem, i, ".search.yaml"))
            with open(own, "w") as f:
                f.write(f"# point {origin + 1}'s search's best, carried over to point {i + 1} (dfx eval there: "
                        f"{report['cycles']:.0f} cycles)\n" + flow)
            at[(stem, i)].update(carried_row(at[(stem, i)], report, origin, searched[(stem, origin)]))
        changed += len(offers)
        fresh = set(offers)
    return changed


def carried_row(row, report, origin, origin_search):
    """A row's figures for a flow another point's search found, from its dfx eval report here; its
    seed and evaluations are that search's."""
    layerwise = row["speed-up"] * row["cycles"] if row["speed-up"] and row["cycles"] else None
    seed, evaluations = origin_search
    return {
        "cycles": report["cycles"],
        "time µs": report["cycles"] / (report["clock_ghz"] * 1e3),
        "speed-up": layerwise / report["cycles"] if layerwise else None,
        "DRAM bytes": report["dram_bytes"],
        "energy pJ": report["energy_pj"],
        "util": report["utilization"],
        "bottleneck": report["bottleneck"],
        "on-chip peak B": max((lv["peak_bytes"] for lv in report["levels"][1:]), default=0),
        "found by": f"point {origin + 1}'s search",
        "origin": origin,
        "seed": seed,
        "evaluations": evaluations,
    }


def shown(column, value):
    if value is None:
        return "—"
    if column == "speed-up":
        return f"{value:.2f}x"
    if column == "util":
        return f"{100 * value:.1f}%"
    if column == "time µs":
        return f"{value:.4g}"
    if column in ("bottleneck", "found by"):
        return value
    return human(value)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dfx", required=True, help="the dfx binary")
    p.add_argument("arch")
    p.add_argument("workloads", nargs="+")
    p.add_argument("--vary", nargs="+", action="append", default=[], metavar=("KEY", "VALUE"),
                   help="an arch key path and its values (dfx --set)")
    p.add_argument("--vary-dim", nargs="+", action="append", default=[], metavar=("NAME", "SIZE"),
                   help="a workload dimension and its sizes (dfx --dim); NAME,NAME... sets several dims to each "
                        "size together (attention's m,l)")
    p.add_argument("--evals", type=int, default=10000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--seeds", type=int, default=1,
                   help="search each point with seeds SEED, SEED+1, ... and keep the best (a tight arch can "
                        "leave one search far from the best; docs/mapper.md, 'Sweeps')")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--polish", action="store_true", help="pass --polish (tuned baselines; slower)")
    p.add_argument("--csv", help="also write every row as CSV")
    p.add_argument("--outdir", help="keep each run's JSON and best flow.yaml here")
    p.add_argument("--no-carry", action="store_true",
                   help="do not let a point take a neighbour's flow where it is faster there than its own search's")
    args = p.parse_args()
    if args.seeds < 1:
        p.error(f"--seeds {args.seeds}: at least 1")
    if args.evals < 10:
        p.error(f"--evals {args.evals}: at least 10 (dfx explore's least)")
    check_files(p, args)

    axes = [("--set", v[0], v[1:]) for v in args.vary] + [("--dim", v[0], v[1:]) for v in args.vary_dim]
    for flag, key, values in axes:
        if flag == "--dim" and not all(linked(flag, key)):
            p.error(f"--vary-dim {key}: name each dim, NAME or NAME,NAME...")
        if not values:
            p.error(f"{'--vary' if flag == '--set' else '--vary-dim'} {key}: give at least one value")
    names = [key for _, key, _ in axes]
    # A --vary-dim over "m,l" sets both dims to each value (linked: attention's sequence length).
    points = list(itertools.product(*[[(flag, tuple(f"{k}={v}" for k in linked(flag, key)), v) for v in values]
                                      for flag, key, values in axes]))
    if args.outdir:
        os.makedirs(args.outdir, exist_ok=True)

    check_points(args, points)
    stems = stems_of(args.workloads)
    searches = [(w, stem, i, point) for w, stem in zip(args.workloads, stems) for i, point in enumerate(points)]

    def run(search, threads):
        w, stem, i, point = search
        result = explore(args, w, changes_of(point), point_file(where, stem, i, ".json"), point_file(where, stem, i, ".yaml"),
                         threads)
        row = (stem, i, [value for _, _, value in point], row_of(result))
        if "none_valid" in result or "failed" in result:
            print(f"  {stem} point {i + 1}/{len(points)}: {result.get('none_valid') or result['failed']}", file=sys.stderr)
        else:
            print(f"  {stem} point {i + 1}/{len(points)}: {human(row[3]['cycles'])} cycles "
                  f"in {result['seconds']:.1f} s", file=sys.stderr)
        return row, result.get("exit", 0)

    try:
        with tempfile.TemporaryDirectory() as tmp:
            where = args.outdir or tmp
            done = run_all(run, searches, args.jobs)  # in grid order
            rows = [row for row, _ in done]  # (workload, point index, point values, row)
            if not args.no_carry and len(points) > 1:
                carried = carry_over(args, rows, points, where, dict(zip(stems, args.workloads)))
                if carried:
                    print(f"  {carried} point(s) took a neighbour's flow (faster there than their own search's)",
                          file=sys.stderr)
    except KeyboardInterrupt:
        print("sweep: interrupted (no table: the points still running were stopped)", file=sys.stderr)
        sys.exit(130)
    failed = next((code for _, code in done if code), 0)

    seeds = f"seed {args.seed}" if args.seeds == 1 else f"best of seeds {args.seed}–{args.seed + args.seeds - 1}"
    print(f"Sweep of {args.arch}: --evals {args.evals} per search, {seeds}"
          + (", --polish (its tuning of the baselines adds evaluations: the CSV counts them)" if args.polish else "")
          + ".\n")
    for w, stem in zip(args.workloads, stems):
        print(f"### {stem}" + (f" ({w})" if stem != os.path.splitext(os.path.basename(w))[0] else "") + "\n")
        print("| " + " | ".join(names + COLUMNS) + " |")
        print("|" + "---|" * (len(names) + len(COLUMNS)))
        for s, _, values, row in rows:
            if s == stem:
                print("| " + " | ".join(values + [shown(c, row[c]) for c in COLUMNS]) + " |")
        print()
    if len(args.workloads) > 1 and len(points) > 1:
        print_geomeans(rows, points, names, len(args.workloads))
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            out = csv.writer(f, lineterminator="\n")  # Unix lines, for cut and awk
            out.writerow(["workload"] + names + CSV_COLUMNS)
            for s, _, values, row in rows:
                out.writerow([s] + values + [row[c] for c in CSV_COLUMNS])
    if failed:
        print("sweep: some points failed (their rows say so)", file=sys.stderr)
        sys.exit(failed)


def print_geomeans(rows, points, names, workloads):
    """Best cycles per point over all workloads, relative to the first point where every workload
    has a valid dataflow (a point where one has none has no figure)."""
    cycles = {(s, i): row["cycles"] for s, i, _, row in rows}
    whole = [i for i in range(len(points)) if sum(1 for s, j, _, row in rows if j == i and row["cycles"]) == workloads]
    print("### all workloads\n")
    if not whole:
        print("No point where every workload has a valid dataflow.\n")
        return
    ref = whole[0]
    print("| " + " | ".join(names + [f"best cycles vs point {ref + 1} (geomean)"]) + " |")
    print("|" + "---|" * (len(names) + 1))
    for i, point in enumerate(points):
        ratios = [row["cycles"] / cycles[(s, ref)] for s, j, _, row in rows if j == i and row["cycles"]]
        figure = f"{geomean(ratios):.3f}" if i in whole else "—"
        print("| " + " | ".join([value for _, _, value in point] + [figure]) + " |")
    print()


if __name__ == "__main__":
    main()
