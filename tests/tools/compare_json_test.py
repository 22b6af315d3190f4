#!/usr/bin/env python3
"""dfx compare --json: the same figures, notes and output checks as its table, as dfx.compare/1;
'-' writes the JSON alone on stdout; a --json naming an input is refused before the run. Where
the programs read partial sums back at a reduction's first step (ascend_like's L0C under a loop
over l at GM), a note says so, and only there; a convolution's overlapping windows are named as
such.

  compare_json_test.py DFX PROJECT_DIR
"""
import json
import os
import subprocess
import sys
import tempfile


SPLIT_L = """name: split_l
workload: gemm_chain_g1
tree:
  tile: GM
  children:
  - tile: GM
    loops: ["b:8:sp", "m:4:sp", "l:2"]
    children:
    - tile: [L1,UB]
      children:
      - tile: L1
        loops: ["l:8"]
        children:
        - tile: [L0A,L0B,L0C]
          loops: ["k:64", "m:128:sp", "l:32:sp"]
          children: [{op: gemm1}]
      - tile: L1
        loops: ["m:2", "n:2"]
        children:
        - tile: [L0A,L0B,L0C]
          loops: ["l:256", "m:64:sp", "n:32:sp"]
          children: [{op: gemm2}]
"""


def main():
    dfx, root = sys.argv[1], sys.argv[2]
    args = [f"{root}/configs/arch/edge.yaml", f"{root}/configs/workloads/gemm_chain_g1.yaml",
            f"{root}/configs/dataflows/gemm_chain_g1_edge_fused.yaml", "--seed", "2"]
    alone = subprocess.run([dfx, "compare"] + args + ["--json", "-"], check=True, capture_output=True, text=True).stdout
    j = json.loads(alone)  # stdout holds the JSON and nothing else
    assert j["schema"] == "dfx.compare/1" and j["seed"] == 2 and j["cores"] == 4 and j["dtype"] == "int16", j
    assert [f["name"] for f in j["figures"]][:3] == ["cycles", "DRAM read (B)", "DRAM written (B)"], j["figures"]
    assert j["outputs_ok"] and all(o["ok"] and o["max_error"] == 0 for o in j["outputs"]), j["outputs"]
    assert len(j["notes"]) == 1 and "edge is timed by its tree" in j["notes"][0], j["notes"]
    with tempfile.TemporaryDirectory() as tmp:
        table = subprocess.run([dfx, "compare"] + args + ["--json", f"{tmp}/c.json"], check=True, capture_output=True,
                               text=True).stdout
        with open(f"{tmp}/c.json") as f:
            assert json.load(f) == j
        for fig in j["figures"]:
            line = next(l for l in table.splitlines() if l.startswith(fig["name"]))
            assert line.split()[-3:-1] == [f"{fig['model']:.0f}", f"{fig['simulator']:.0f}"], (line, fig)
        # gemm2 reduces over l in two steps at GM: E's partial sums come back into L0C at both in the
        # programs, at the second alone in the model (QA pass 8 met it on an explore --emit pick).
        flow = os.path.join(tmp, "split_l.yaml")
        with open(flow, "w") as f:
            f.write(SPLIT_L)
        asc = [f"{root}/configs/arch/ascend_like.yaml", f"{root}/configs/workloads/gemm_chain_g1.yaml", flow, "--json", "-"]
        k = json.loads(subprocess.run([dfx, "compare"] + asc, check=True, capture_output=True, text=True).stdout)
        l0c = next(fig for fig in k["figures"] if fig["name"] == "L0C moved in (B)")
        assert l0c["simulator"] == 2 * l0c["model"] > 0, l0c
        assert any(n.startswith("L0C takes back partial sums of E") for n in k["notes"]), k["notes"]
        assert not any("partial sums" in n for n in j["notes"]), j["notes"]
        # tpu_like's convolution chain reloads I's overlapping windows: said as such, not as partial
        # sums (QA pass 9 found O1's partial sums named for it).
        conv = [f"{root}/configs/arch/tpu_like.yaml", f"{root}/configs/workloads/conv_chain_c1.yaml",
                f"{root}/configs/dataflows/conv_chain_c1_tpu_like_explored.yaml", "--json", "-"]
        notes = json.loads(subprocess.run([dfx, "compare"] + conv, check=True, capture_output=True, text=True).stdout)["notes"]
        assert notes == ["SPM receives I through overlapping windows: the programs load each step's window whole, the model "
                         "only what the step before did not leave there"], notes
        # A Gram matrix on one core: the programs load A once per read, the model once; no multicast
        # note with a single core (QA pass 9 found one).
        with open(f"{tmp}/gram.yaml", "w") as f:
            f.write('name: gram8\ndims: {m: 8, n: 8, k: 4}\nops:\n  - {name: gram, expr: "C[m,n] += A[m,k] * A[n,k]"}\n')
        with open(f"{tmp}/gram_f.yaml", "w") as f:
            f.write('name: g\nworkload: gram8\ntree:\n  tile: DRAM\n  loops: ["m:2", "n:4"]\n  children:\n    - tile: L1\n'
                    '      loops: ["m:4", "n:2", "k:4"]\n      children: [{tile: Reg, children: [{op: gram}]}]\n')
        g = json.loads(subprocess.run([dfx, "compare", f"{root}/configs/arch/edge.yaml", f"{tmp}/gram.yaml", f"{tmp}/gram_f.yaml",
                                       "--json", "-"], check=True, capture_output=True, text=True).stdout)
        assert g["cores"] == 1 and g["outputs_ok"], g
        assert any(n.startswith("A is read in two ways by one operator") for n in g["notes"]), g["notes"]
        assert not any("multicasts" in n for n in g["notes"]), g["notes"]
    refused = subprocess.run([dfx, "compare"] + args + ["--json", args[2]], capture_output=True, text=True)
    assert refused.returncode == 2 and "--json" in refused.stderr, refused.stderr
    print("ok")


if __name__ == "__main__":
    main()
