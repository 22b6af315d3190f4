#!/usr/bin/env python3
"""tools/sweep.py runs dfx explore at every point of its grid with the point's changes: each row
must equal what `dfx explore --set … --dim …` gives on its own, and the table must list every point.

  sweep_test.py DFX PROJECT_DIR
"""
import csv
import json
import os
import subprocess
import sys
import tempfile


def main():
    dfx, root = sys.argv[1], sys.argv[2]
    arch = f"{root}/configs/arch/edge.yaml"
    workload = f"{root}/configs/workloads/gemm_chain_g1.yaml"
    common = ["--evals", "300", "--seed", "3", "--jobs", "1"]
    with tempfile.TemporaryDirectory() as tmp:
        table = subprocess.run(
            [sys.executable, f"{root}/tools/sweep.py", "--dfx", dfx, arch, workload,
             "--vary", "levels.L1.read_bw", "0.3 TB/s", "1.2 TB/s", "--vary-dim", "n", "32", "64",
             "--csv", f"{tmp}/rows.csv", "--no-carry"] + common,
            check=True, capture_output=True, text=True).stdout
        with open(f"{tmp}/rows.csv") as f:
            rows = list(csv.DictReader(f))
        assert len(rows) == 4, rows
        assert [(r["levels.L1.read_bw"], r["n"]) for r in rows] == [
            ("0.3 TB/s", "32"), ("0.3 TB/s", "64"), ("1.2 TB/s", "32"), ("1.2 TB/s", "64")], rows
        for r in rows:
            subprocess.run([dfx, "explore", arch, workload, "--set", f"levels.L1.read_bw={r['levels.L1.read_bw']}",
                            "--dim", f"n={r['n']}", "--quiet", "--json", f"{tmp}/one.json"] + common,
                           check=True, stdout=subprocess.DEVNULL)
            with open(f"{tmp}/one.json") as f:
                one = json.load(f)
            assert one["set"] == [f"levels.L1.read_bw={r['levels.L1.read_bw']}"] and one["dims"] == [f"n={r['n']}"], one
            assert float(r["cycles"]) == one["best"][0]["cycles"], (r, one["best"][0]["cycles"])
            assert float(r["DRAM bytes"]) == one["best"][0]["dram_bytes"], r
            assert r["seed"] == "3" and int(r["evaluations"]) == one["evaluations"], (r, one["evaluations"])
        # Halving n halves the second GEMM's work: the sizes reached the workload.
        by = {(r["levels.L1.read_bw"], r["n"]): float(r["cycles"]) for r in rows}
        assert by[("1.2 TB/s", "32")] < by[("1.2 TB/s", "64")], by
        lines = [l for l in table.splitlines() if l.startswith("| 0.3 TB/s") or l.startswith("| 1.2 TB/s")]
        assert len(lines) == 4, table
        # The time column is cycles at the point's clock (edge: 1 GHz, so microseconds = cycles / 1000).
        for r in rows:
            assert abs(float(r["time µs"]) - float(r["cycles"]) / 1e3) < 1e-9 * float(r["cycles"]), r
        check_same_stems_kept_apart(dfx, root, arch, workload, common, tmp)
        check_bad_points_stop_first(dfx, root, arch, workload, common, tmp)
        check_a_point_with_nothing_valid_is_a_row(dfx, root, arch, workload, common, tmp)
        check_neighbours_flows_carry_over(dfx, root, arch, tmp)
        check_linked_dims(dfx, root, arch, common, tmp)
        check_carry_over_weighs_every_neighbour(root)
    print("sweep: 4 points agree with dfx explore; bad points stop it before any search; "
          "a point where nothing fits is a row")


def check_neighbours_flows_carry_over(dfx, root, arch, tmp):
    """A point takes a neighbour's best flow where it is valid there and faster than its own
    search's: on 300 evaluations attention G1's search found 123 K cycles at L1 = 1 MB where the
    8 MB point's flow (689 KB on chip) takes 70 K. Every row is then at most its own search's
    figure, a carried row is what dfx eval gives for its flow at the point, and more L1 never costs
    cycles here."""
    attention = f"{root}/configs/workloads/attention_g1.yaml"
    done = subprocess.run(
        [sys.executable, f"{root}/tools/sweep.py", "--dfx", dfx, arch, attention, "--vary", "levels.L1.capacity",
         "512KB", "1MB", "2MB", "4MB", "8MB", "--evals", "300", "--seed", "1", "--csv", f"{tmp}/carry.csv",
         "--outdir", f"{tmp}/carry"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with open(f"{tmp}/carry.csv") as f:
        rows = list(csv.DictReader(f))
    cycles = [float(r["cycles"]) for r in rows]
    assert cycles == sorted(cycles, reverse=True), cycles
    carried = [i for i, r in enumerate(rows) if r["found by"] != "search"]
    assert carried, rows
    for i, r in enumerate(rows):
        with open(f"{tmp}/carry/attention_g1.{i + 1}.json") as f:
            own = json.load(f)["best"][0]["cycles"]
        assert float(r["cycles"]) <= own, (r, own)
        if i in carried:
            assert float(r["cycles"]) < own and os.path.exists(f"{tmp}/carry/attention_g1.{i + 1}.search.yaml"), (r, own)
            report = json.loads(subprocess.run(
                [dfx, "eval", arch, attention, f"{tmp}/carry/attention_g1.{i + 1}.yaml", "--set",
                 f"levels.L1.capacity={r['levels.L1.capacity']}", "--json", "-"],
                check=True, capture_output=True, text=True).stdout)
            assert report["cycles"] == float(r["cycles"]) and report["dram_bytes"] == float(r["DRAM bytes"]), (r, report)
    no_carry = subprocess.run(
        [sys.executable, f"{root}/tools/sweep.py", "--dfx", dfx, arch, attention, "--vary", "levels.L1.capacity",
         "1MB", "8MB", "--evals", "300", "--seed", "1", "--no-carry"], capture_output=True, text=True)
    assert no_carry.returncode == 0 and "point 2's search" not in no_carry.stdout, no_carry.stdout


def check_carry_over_weighs_every_neighbour(root):
    """carry_over on three points of one axis with dfx eval replaced by a table of cycles (flow,
    point): point 1's own flow F0 takes 50 at point 2 although point 1 itself takes point 2's F1 (80
    against its own 100) in the same pass; the result must not depend on which point is weighed
    first, and F0 then travels on to point 3 only where it is valid (it is not)."""
    sys.path.insert(0, f"{root}/tools")
    import sweep
    cost = {("F0", 0): 100, ("F1", 0): 80, ("F2", 0): None,
            ("F0", 1): 50, ("F1", 1): 90, ("F2", 1): 95,
            ("F0", 2): None, ("F1", 2): 99, ("F2", 2): 97}

    def table(args, workload, point, flow):
        with open(flow) as f:
            c = cost[(f.read().split("\n", 1)[1].strip(), int(point[0][2]))]
        return None if c is None else {"cycles": c, "clock_ghz": 1.0, "dram_bytes": 0, "energy_pj": 0,
                                       "utilization": 0, "bottleneck": "compute", "levels": []}
    evaluate_at, sweep.evaluate_at = sweep.evaluate_at, table
    try:
        points = [(("--set", (f"k={v}",), str(v)),) for v in range(3)]
        with tempfile.TemporaryDirectory() as d:
            rows = []
            for i in range(3):
                with open(f"{d}/w.{i + 1}.yaml", "w") as f:
                    f.write(f"# found by: a search\nF{i}\n")
                rows.append(("w", i, [str(i)], {"cycles": cost[(f"F{i}", i)], "speed-up": None, "found by": "search",
                                                "bottleneck": "compute", "seed": 10 + i, "evaluations": 300}))
            sweep.carry_over(None, rows, points, d, {"w": "w.yaml"})
            got = [(r["cycles"], r["found by"], r["seed"]) for _, _, _, r in rows]
            assert got == [(80, "point 2's search", 11), (50, "point 1's search", 10), (97, "search", 12)], got
            with open(f"{d}/w.2.yaml") as f:
                assert f.read().split("\n", 1)[1].strip() == "F0"
            assert os.path.exists(f"{d}/w.2.search.yaml") and not os.path.exists(f"{d}/w.3.search.yaml")
    finally:
        sweep.evaluate_at = evaluate_at


def check_same_stems_kept_apart(dfx, root, arch, workload, common, tmp):
    """Two workload files of one name (another folder) get rows and files of their own; --csv naming
    an input is refused before any search."""
    os.makedirs(f"{tmp}/other", exist_ok=True)
    with open(workload) as f, open(f"{tmp}/other/gemm_chain_g1.yaml", "w") as g:
        g.write(f.read().replace("n: 64", "n: 32"))
    done = subprocess.run(
        [sys.executable, f"{root}/tools/sweep.py", "--dfx", dfx, arch, workload, f"{tmp}/other/gemm_chain_g1.yaml",
         "--vary", "levels.L1.capacity", "1MB", "--csv", f"{tmp}/two.csv", "--outdir", f"{tmp}/two"] + common,
        capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with open(f"{tmp}/two.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["workload"] for r in rows] == ["gemm_chain_g1", "gemm_chain_g1#2"], rows
    assert float(rows[1]["cycles"]) < float(rows[0]["cycles"]), rows  # half of the second GEMM's work
    assert sorted(os.listdir(f"{tmp}/two")) == ["gemm_chain_g1#2.1.json", "gemm_chain_g1#2.1.yaml",
                                                "gemm_chain_g1.1.json", "gemm_chain_g1.1.yaml"], os.listdir(f"{tmp}/two")
    refused = subprocess.run(
        [sys.executable, f"{root}/tools/sweep.py", "--dfx", dfx, arch, f"{tmp}/other/gemm_chain_g1.yaml",
         "--csv", f"{tmp}/other/gemm_chain_g1.yaml"] + common, capture_output=True, text=True)
    assert refused.returncode == 2 and "is an input of this sweep" in refused.stderr, refused.stderr
    with open(f"{tmp}/other/gemm_chain_g1.yaml") as f:
        assert "ops:" in f.read()


def check_bad_points_stop_first(dfx, root, arch, workload, common, tmp):
    """A bad value anywhere in the grid stops the sweep before any search, every bad point named."""
    out = f"{tmp}/bad"
    done = subprocess.run(
        [sys.executable, f"{root}/tools/sweep.py", "--dfx", dfx, arch, workload,
         "--vary", "levels.L1.capacity", "256KB", "lots", "--vary-dim", "n", "32", "-4", "--outdir", out] + common,
        capture_output=True, text=True)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "point 2/4" in done.stderr and "point 3/4" in done.stderr and "point 4/4" in done.stderr, done.stderr
    assert "point 1/4" not in done.stderr, done.stderr
    assert "levels[1].capacity" in done.stderr and "dims.n" in done.stderr, done.stderr
    assert "nothing searched" in done.stderr, done.stderr
    assert not os.listdir(out), os.listdir(out)  # no point was searched
    # A dim one workload lacks: that workload named, its points said once.
    conv = f"{root}/configs/workloads/conv_chain_c1.yaml"
    done = subprocess.run(
        [sys.executable, f"{root}/tools/sweep.py", "--dfx", dfx, arch, workload, conv, "--vary-dim", "l", "256", "512"]
        + common, capture_output=True, text=True)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert f"{conv} cannot run at points 1/2 (l=256), 2/2 (l=512):" in done.stderr, done.stderr
    assert done.stderr.count("no key 'l' in 'dims'") == 1 and "gemm_chain_g1.yaml cannot" not in done.stderr, done.stderr


def check_linked_dims(dfx, root, arch, common, tmp):
    """--vary-dim m,l sets both dims to each size: the row equals dfx explore with both --dim."""
    attention = f"{root}/configs/workloads/attention_g1.yaml"
    done = subprocess.run(
        [sys.executable, f"{root}/tools/sweep.py", "--dfx", dfx, arch, attention, "--vary-dim", "m,l", "256", "512",
         "--csv", f"{tmp}/linked.csv", "--no-carry"] + common, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with open(f"{tmp}/linked.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["m,l"] for r in rows] == ["256", "512"], rows
    one = json.loads(subprocess.run([dfx, "explore", arch, attention, "--dim", "m=256", "--dim", "l=256", "--quiet",
                                     "--json", "-"] + common, check=True, capture_output=True, text=True).stdout)
    assert float(rows[0]["cycles"]) == one["best"][0]["cycles"], (rows[0], one["best"][0]["cycles"])


def check_a_point_with_nothing_valid_is_a_row(dfx, root, arch, workload, common, tmp):
    """An L1 too small for any candidate: that row says so, the other is searched as usual."""
    done = subprocess.run(
        [sys.executable, f"{root}/tools/sweep.py", "--dfx", dfx, arch, f"{root}/configs/workloads/attention_g1.yaml",
         "--vary", "levels.L1.capacity", "256KB", "2KB", "--csv", f"{tmp}/none.csv"] + common,
        capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with open(f"{tmp}/none.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["levels.L1.capacity"] for r in rows] == ["256KB", "2KB"], rows
    assert float(rows[0]["cycles"]) > 0 and rows[0]["bottleneck"] != "no valid dataflow", rows
    assert rows[1]["cycles"] == "" and rows[1]["bottleneck"] == "no valid dataflow", rows
    assert "| 2KB | — |" in done.stdout, done.stdout


if __name__ == "__main__":
    main()
