#!/usr/bin/env python3
"""What `dfx explore` gives a user at the command line, beyond its numbers (tested in C++):

- options may come before the arch and workload files, list options included;
- `--json -` puts the JSON alone on standard output (the table goes to stderr);
- `--out F.yaml --top 3` writes F.yaml, F.2.yaml and F.3.yaml, distinct trees, each with the
  command that found it, and `dfx eval` gives each one's numbers back;
- fewer than --top found: an earlier run's FLOW.K.yaml for a place left empty is removed;
- Ctrl-C (SIGINT) ends a long search at once, writes every output and says it was stopped;
- `--time` alone bounds the search by time, not by the default 10,000 evaluations;
- outputs that are inputs or one another (a hard link, stdout twice, a tensor file, eval's --json
  naming its flow) are refused;
- the `# found by:` header is a command a shell runs again, whatever the paths hold, and keeps --emit;
- the table and the HTML tell apart ranked rows whose values differ;
- explore and eval say when dfx emit cannot lower a dataflow, and then emit refuses it.

  explore_cli_test.py DFX PROJECT_DIR
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)


def main():
    dfx, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    edge, g1 = f"{root}/configs/arch/edge.yaml", f"{root}/configs/workloads/attention_g1.yaml"
    chain = f"{root}/configs/workloads/gemm_chain_g1.yaml"
    with tempfile.TemporaryDirectory() as tmp:
        # Options first; the list options take one value and leave the files to the positionals.
        r = run([dfx, "explore", "--prims", "Seq,Pipe", "--max-footprint", "L1=4MiB", "--evals", "300", "--quiet",
                 "--json", "-", edge, chain])
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)  # the JSON alone
        assert out["schema"] == "dfx.explore/1" and out["evaluations"] == 300, out["evaluations"]
        assert "best1" in r.stderr, r.stderr  # the table, on stderr

        # --top 3 beside --out, each with its command, each reproduced by dfx eval.
        flow = f"{tmp}/flow.yaml"
        r = run([dfx, "explore", edge, g1, "--evals", "2000", "--top", "3", "--quiet", "--out", flow,
                 "--json", f"{tmp}/out.json"])
        assert r.returncode == 0, r.stderr
        files = [flow, f"{tmp}/flow.2.yaml", f"{tmp}/flow.3.yaml"]
        with open(f"{tmp}/out.json") as f:
            best = json.load(f)["best"]
        trees = set()
        for k, path in enumerate(files):
            with open(path) as f:
                text = f.read()
            assert text.startswith(f"# found by: dfx explore {edge} {g1} --seed 1 --evals 2000"), text[:200]
            trees.add(text[text.index("workload:"):])
            e = run([dfx, "eval", edge, g1, path, "--json", "-"])
            assert e.returncode == 0, e.stderr
            report = json.loads(e.stdout)
            assert report["cycles"] == best[k]["cycles"], (path, best[k]["cycles"])
            assert report["latency_cycles"] == best[k]["latency_cycles"] <= best[k]["cycles"], (path, best[k])
        assert len(trees) == 3, "--top 3 wrote a tree twice"

        # Fewer than --top found: an earlier run's file for a place left empty goes (it would read
        # as this run's); a file of the user's own there stays.
        tiny = f"{tmp}/tiny.yaml"
        with open(tiny, "w") as f:
            f.write('name: tiny\ndims: {m: 2, k: 2, n: 2}\nops:\n  - {name: g, expr: "C[m,n] += A[m,k] * B[k,n]"}\n')
        with open(f"{tmp}/flow.99.yaml", "w") as f:
            f.write("# found by: dfx explore an earlier run\n")
        with open(f"{tmp}/flow.98.yaml", "w") as f:
            f.write("my notes\n")
        r = run([dfx, "explore", edge, tiny, "--evals", "100", "--top", "99", "--quiet", "--out", flow])
        assert r.returncode == 0 and "(--top 99:" in r.stdout, r.stdout[-300:]
        assert not os.path.exists(f"{tmp}/flow.99.yaml") and os.path.exists(f"{tmp}/flow.98.yaml")

        # Ctrl-C: stops at once, writes what it has, says so.
        p = subprocess.Popen([dfx, "explore", edge, g1, "--evals", "100000000", "--quiet", "--out", f"{tmp}/int.yaml",
                              "--json", f"{tmp}/int.json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        stdout, stderr = p.communicate(timeout=30)
        assert p.returncode == 0, stderr
        assert "stopped by Ctrl-C" in stdout, stdout[:400]
        with open(f"{tmp}/int.json") as f:
            assert json.load(f)["interrupted"] is True
        with open(f"{tmp}/int.yaml") as f:
            assert "# (stopped by Ctrl-C after" in f.read()

        # Outputs that would overwrite an input or one another are refused before the run,
        # however they are named: a hard link to the workload, stdout twice, a tensor file that
        # simulate writes under --outputs.
        copy, linked = f"{tmp}/chain.yaml", f"{tmp}/linked.yaml"  # a copy: were the check broken, it is what goes
        with open(chain) as src, open(copy, "w") as dst:
            dst.write(src.read())
        os.link(copy, linked)
        r = run([dfx, "explore", edge, copy, "--evals", "100", "--quiet", "--out", linked])
        assert r.returncode == 2 and "is an input of this command" in r.stderr, r.stderr
        r = run([dfx, "explore", edge, chain, "--evals", "100", "--quiet", "--json", "-", "--html", "-"])
        assert r.returncode == 2 and "is also written by --json" in r.stderr, r.stderr
        # --out - holds standard output alone, as --json - does: a flow file eval reads.
        r = run([dfx, "explore", edge, chain, "--evals", "100", "--quiet", "--out", "-"])
        assert r.returncode == 0 and r.stdout.startswith("# found by: dfx explore ") and "speed-up" in r.stderr, r.stdout
        with open(f"{tmp}/from_stdout.yaml", "w") as f:
            f.write(r.stdout)
        assert run([dfx, "eval", edge, chain, f"{tmp}/from_stdout.yaml"]).returncode == 0
        r = run([dfx, "explore", edge, chain, "--evals", "100", "--quiet", "--html", "-"])
        assert r.returncode == 0 and r.stdout.lstrip().lower().startswith("<!doctype html>"), r.stdout[:200]
        # Without --emit, explore says when its best cannot be lowered, and then dfx emit refuses it;
        # without the note emit takes it (edge's GEMM chain splits a reduction over the cores here).
        for arch_name, workload in (("edge", "gemm_chain_g1"), ("tpu_like", "attention_g1")):
            a_path, w_path = f"{root}/configs/arch/{arch_name}.yaml", f"{root}/configs/workloads/{workload}.yaml"
            r = run([dfx, "explore", a_path, w_path, "--evals", "2000", "--quiet", "--out", f"{tmp}/lw.yaml"])
            noted = "note: dfx emit cannot lower best1 to programs (" in r.stdout
            e = run([dfx, "emit", a_path, w_path, f"{tmp}/lw.yaml", "-o", f"{tmp}/lw.s"])
            assert r.returncode == 0 and e.returncode == (2 if noted else 0), (arch_name, noted, e.stderr)
            # eval says the same of the flow, where it is, under its table.
            v = run([dfx, "eval", a_path, w_path, f"{tmp}/lw.yaml"])
            eval_noted = "note: dfx emit cannot lower this dataflow to programs" in v.stdout
            assert v.returncode == 0 and eval_noted == noted, (arch_name, noted, v.stdout)
            assert not noted or f"{tmp}/lw.yaml:" in v.stdout, v.stdout
        # A flow known not to lower: the GEMM chain's l over the cores splits gemm2's reduction.
        split = f"{tmp}/split.yaml"
        with open(split, "w") as f:
            f.write('name: split\nworkload: gemm_chain_g1\ntree:\n  tile: DRAM\n  loops: ["l:4:sp", "b:8"]\n  children:\n'
                    '    - tile: L1\n      children:\n        - tile: L1\n          loops: ["m:512", "k:64"]\n'
                    '          children: [{op: gemm1}]\n        - tile: L1\n          loops: ["m:512", "l:128", "n:64"]\n'
                    '          children: [{op: gemm2}]\n')
        v = run([dfx, "eval", edge, chain, split])
        assert v.returncode == 0 and f"{split}:5:" in v.stdout and "over cores; lowering needs each core" in v.stdout, v.stdout + v.stderr
        # Under --emit a baseline row the lowering cannot express is marked (a prime chain's closed form).
        prime = f"{tmp}/prime.yaml"
        with open(prime, "w") as f:
            f.write('name: prime\ndims: {m: 97, k: 61, l: 131, n: 53}\nops:\n'
                    '  - {name: g1, expr: "C[m,l] += A[m,k] * B[k,l]"}\n  - {name: g2, expr: "E[m,n] += C[m,l] * D[l,n]"}\n')
        r = run([dfx, "explore", edge, prime, "--evals", "1000", "--quiet", "--emit", f"{tmp}/prime.s"])
        assert r.returncode == 0 and "(Chimera (closed form): for comparison only, dfx emit cannot lower it:" in r.stdout, r.stdout
        # A flow found with --dim, evaluated without it: the failure says which changes it was found with.
        assert run([dfx, "explore", edge, chain, "--evals", "100", "--quiet", "--dim", "n=128", "--out", f"{tmp}/n128.yaml"]).returncode == 0
        r = run([dfx, "eval", edge, chain, f"{tmp}/n128.yaml"])
        assert r.returncode == 2 and "was found with --dim n=128 (its first line)" in r.stderr, r.stderr
        assert run([dfx, "eval", edge, chain, f"{tmp}/n128.yaml", "--dim", "n=128"]).returncode == 0
        # A symlink to a file not yet written names that file (before, the HTML replaced the JSON).
        os.symlink("later.json", f"{tmp}/to_later.json")
        r = run([dfx, "explore", edge, chain, "--evals", "100", "--quiet", "--html", f"{tmp}/to_later.json", "--json", f"{tmp}/later.json"])
        assert r.returncode == 2 and "is also written by --json" in r.stderr, r.stderr
        assert not os.path.exists(f"{tmp}/later.json")
        # eval's --json too, before the analysis (it overwrote the flow it analysed).
        flow_copy = f"{tmp}/flow_copy.yaml"
        with open(files[0]) as src, open(flow_copy, "w") as dst:
            dst.write(src.read())
        os.symlink(flow_copy, f"{tmp}/flow_link.yaml")
        r = run([dfx, "eval", edge, g1, flow_copy, "--json", f"{tmp}/flow_link.yaml"])
        assert r.returncode == 2 and "is an input of this command" in r.stderr and "cycles" not in r.stdout, r.stderr
        r = run([dfx, "eval", edge, g1, flow_copy, "--json", f"{tmp}/no/such/dir/x.json"])
        assert r.returncode == 2 and "--json" in r.stderr and "cycles" not in r.stdout, r.stderr
        with open(flow_copy) as f:
            assert f.read().lstrip().startswith("# found by"), "eval overwrote its flow"
        os.mkdir(f"{tmp}/tensors")
        r = run([dfx, "simulate", f"{root}/configs/arch/tpu_like.yaml", f"{root}/configs/programs/tpu_like_gemm.s",
                 "--outputs", f"{tmp}/tensors", "--json", f"{tmp}/tensors/C.npy"])
        assert r.returncode == 2 and "is also written by --json" in r.stderr, r.stderr

        # The header's command runs again as it was typed, whatever the paths hold: a quote, a
        # space, a newline (which, written raw, would end the comment line).
        odd_dir = f"{tmp}/it's a\nfolder"
        os.mkdir(odd_dir)
        odd = f"{odd_dir}/wl.yaml"
        with open(chain) as src, open(odd, "w") as dst:
            dst.write(src.read())
        r = run([dfx, "explore", edge, odd, "--evals", "200", "--quiet", "--fix", "gemm1:order=m,b,l", "--out", f"{tmp}/odd.yaml"])
        assert r.returncode == 0, r.stderr
        with open(f"{tmp}/odd.yaml") as f:
            header, second = f.readline(), f.readline()
        assert header.startswith("# found by: dfx explore ") and second.startswith("name:"), (header, second)
        words = header[len("# found by: "):].strip()
        argv = subprocess.run(["bash", "-c", "printf '%s\\0' " + words], capture_output=True, text=True).stdout.split("\0")[:-1]
        assert argv == ["dfx", "explore", edge, odd, "--seed", "1", "--evals", "200", "--fix", "gemm1:order=m,b,l"], argv
        again = run([dfx] + argv[1:-2] + ["--quiet", "--json", "-"] + argv[-2:])
        assert again.returncode == 0 and json.loads(again.stdout)["evaluations"] == 200, again.stderr

        # A workload path that starts with '-' (after --) gets ./ in the header, and --time is
        # written as typed (rounded, 0.4 read 0: no limit).
        os.mkdir(f"{tmp}/-dash")
        with open(chain) as src, open(f"{tmp}/-dash/w.yaml", "w") as dst:
            dst.write(src.read())
        r = run([dfx, "explore", "--evals", "300", "--time", "0.4", "--quiet", "--out", "dash.yaml", "--", edge, "-dash/w.yaml"], cwd=tmp)
        assert r.returncode == 0, r.stderr
        with open(f"{tmp}/dash.yaml") as f:
            header = f.readline()
        assert f" ./-dash/w.yaml --seed 1 --evals 300 --time 0.4" in header, header
        words = header[len("# found by: dfx "):].strip()
        again = subprocess.run(["bash", "-c", f"'{dfx}' {words} --quiet"], capture_output=True, text=True, cwd=tmp, timeout=120)
        assert again.returncode == 0, again.stderr

        # --emit narrows the search to what the lowering expresses: the header says so.
        r = run([dfx, "explore", f"{root}/configs/arch/tpu_like.yaml", chain, "--evals", "300", "--quiet",
                 "--emit", f"{tmp}/prog.s", "--dtype", "int16", "--out", f"{tmp}/emitted.yaml"])
        assert r.returncode == 0, r.stderr
        with open(f"{tmp}/emitted.yaml") as f:
            header = f.readline()
        assert header.rstrip().endswith(f"--emit {tmp}/prog.s --dtype int16"), header

        # Ranked rows whose values differ read differently: the front's points a fraction of a
        # cycle apart (bert_layer_tail / cloud) get the decimals that tell them apart.
        bert, cloud = f"{root}/configs/workloads/bert_layer_tail.yaml", f"{root}/configs/arch/cloud.yaml"
        r = run([dfx, "explore", cloud, bert, "--pareto", "--quiet", "--json", f"{tmp}/front.json", "--html", f"{tmp}/front.html"])
        assert r.returncode == 0, r.stderr
        with open(f"{tmp}/front.json") as f:
            front = json.load(f)["pareto"]
        with open(f"{tmp}/front.html") as f:
            html = f.read()
        in_table = {line.split()[0]: line.split()[1] for line in r.stdout.splitlines() if line.startswith("pareto")}
        in_html = dict(re.findall(r"<td>(pareto[0-9]+)</td><td>([^<]*)</td>", html))
        for shown in (in_table, in_html):
            for a in front:
                for b in front:
                    if a["cycles"] != b["cycles"]:
                        assert shown[a["name"]] != shown[b["name"]], (a["name"], b["name"], shown)

        # --time alone: the time bounds it (10,000 evaluations take ~0.3 s here).
        r = run([dfx, "explore", edge, chain, "--time", "1.5", "--quiet", "--json", "-"])
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)
        assert out["seconds"] >= 1.2, out["seconds"]
    print("ok")


if __name__ == "__main__":
    main()
