#!/usr/bin/env python3
"""dfx compare --json: the same figures, notes and output checks as its table, as dfx.compare/1;
'-' writes the JSON alone on stdout; a --json naming an input is refused before the run.

  compare_json_test.py DFX PROJECT_DIR
"""
import json
import subprocess
import sys
import tempfile


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
    refused = subprocess.run([dfx, "compare"] + args + ["--json", args[2]], capture_output=True, text=True)
    assert refused.returncode == 2 and "--json" in refused.stderr, refused.stderr
    print("ok")


if __name__ == "__main__":
    main()
