#!/usr/bin/env python3
"""Bad input never crashes dfx.

Random edits of shipped arch, workload, dataflow and program files (a value replaced, a line
dropped, doubled, moved or re-indented, stray characters, the file cut short), and random
--set / --dim changes and explore options (--groups, --fix, --max-footprint, --prims, budgets)
with intact files, go through dfx eval, explore, emit, compare, asm and simulate. Each run must
end with exit 0, or exit 2 and a message on stderr, within a time limit: never a signal, an
abort, another exit code or a hang. For `compare`, whose exit 1 means the simulator's outputs
differ from the reference, that counts as a failure too: an edited dataflow the tools accept
must still compute the right numbers. A failure leaves its files in the output directory and
prints the command that reproduces it.

usage: fuzz_inputs_test.py DFX ROOT [--cases N] [--seed S] [--outdir DIR]
"""
import argparse
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

TOKENS = ["", "-1", "0", "1", "3", "7", "-0.5", "1e308", "1e-308", "nan", "inf", "abc", "~", "null",
          "99999999999999999999999", "2147483648", "[1, 2]", "{a: 1}", "[]", "{}", "'x'", "\"\"",
          "1KB", "-3MB", "0B", "5 GB/s", "0 GB/s", "1.5", "Seq", "Pipe", "DRAM", "L1", "m:0", "m:-4",
          "m:3:sp", "q:4", "&a x", "*undefined", "!!binary x", "|", ">", "- x", "b", "m", "k"]
STRAYS = ["\t", "\x00", "é", "{", "[", "]", "}", ":", "- ", "#", "'", "\"", ",", "&", "*", "%"]
TIMEOUT_S = 60
# What the runtime prints when something went badly wrong, whatever the exit code.
CRASH_WORDS = ["terminate called", "Assertion", "Segmentation", "core dumped", "AddressSanitizer", "std::"]


def mutate(text, rng):
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(8)
        i = rng.randrange(len(lines))
        if kind == 0 and ":" in lines[i]:  # a mapping value replaced
            key, _, _ = lines[i].partition(":")
            lines[i] = f"{key}: {rng.choice(TOKENS)}"
        elif kind == 1:  # a word or number inside the line replaced
            words = list(re.finditer(r"[A-Za-z0-9_.]+", lines[i]))
            if words:
                w = rng.choice(words)
                lines[i] = lines[i][:w.start()] + rng.choice(TOKENS) + lines[i][w.end():]
        elif kind == 2 and len(lines) > 1:
            del lines[i]
        elif kind == 3:
            lines.insert(i, lines[i])
        elif kind == 4:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 5:
            lines[i] = ("  " + lines[i]) if rng.random() < 0.5 else lines[i][2:]
        elif kind == 6:
            at = rng.randint(0, len(lines[i]))
            lines[i] = lines[i][:at] + rng.choice(STRAYS) + lines[i][at:]
        else:  # the file cut short
            joined = "\n".join(lines)
            return joined[:rng.randint(0, len(joined))]
    return "\n".join(lines)


def scenarios(root):
    c = f"{root}/configs"
    return [
        ("eval", [f"{c}/arch/edge.yaml", f"{c}/workloads/attention_g1.yaml", f"{c}/dataflows/attention_g1_edge_fused_pipe.yaml"]),
        ("eval", [f"{c}/arch/edge.yaml", f"{c}/workloads/gemm_chain_g1.yaml", f"{c}/dataflows/gemm_chain_g1_edge_fused.yaml"]),
        ("eval", [f"{c}/arch/ascend_like.yaml", f"{c}/workloads/attention_g1.yaml", f"{c}/dataflows/attention_g1_ascend_fused.yaml"]),
        ("eval", [f"{c}/arch/cloud.yaml", f"{c}/workloads/conv_chain_c1.yaml", f"{c}/dataflows/conv_chain_c1_edge_explored.yaml"]),
        ("explore", [f"{c}/arch/edge.yaml", f"{c}/workloads/attention_g1.yaml"]),
        ("explore", [f"{c}/arch/tpu_like.yaml", f"{c}/workloads/gemm_chain_g1.yaml"]),
        ("set eval", [f"{c}/arch/edge.yaml", f"{c}/workloads/attention_g1.yaml", f"{c}/dataflows/attention_g1_edge_fused_pipe.yaml"]),
        ("set explore", [f"{c}/arch/edge.yaml", f"{c}/workloads/gemm_chain_g1.yaml"]),
        ("options explore", [f"{c}/arch/edge.yaml", f"{c}/workloads/attention_g1.yaml"]),
        ("options explore", [f"{c}/arch/cloud.yaml", f"{c}/workloads/attention_g1.yaml"]),
        ("emit", [f"{c}/arch/tpu_like.yaml", f"{c}/workloads/attention_g1.yaml", f"{c}/dataflows/attention_g1_tpu_like_explored.yaml"]),
        ("compare", [f"{c}/arch/tpu_like.yaml", f"{c}/workloads/gemm_chain_g1.yaml", f"{c}/dataflows/gemm_chain_g1_tpu_like_explored.yaml"]),
        ("compare", [f"{c}/arch/tpu_like.yaml", f"{c}/workloads/conv_chain_c1.yaml", f"{c}/dataflows/conv_chain_c1_tpu_like_explored.yaml"]),
        ("asm", [f"{c}/arch/tpu_like.yaml", f"{c}/programs/tpu_like_gemm.s"]),
        ("simulate", [f"{c}/arch/tpu_like.yaml", f"{c}/programs/tpu_like_gemm.s"]),
    ]


# Changes from the command line: real key paths of edge.yaml and dims of the workloads, with
# values that are wrong, extreme or merely unusual (the file itself is left intact then).
SET_PATHS = ["clock", "cores", "name", "compute.matrix.rows", "compute.matrix.cols", "compute.matrix.per",
             "compute.matrix", "compute.vector.lanes", "compute.vector.op_pj", "compute.vector", "levels.DRAM.read_bw",
             "levels.DRAM.capacity", "levels.L1.capacity", "levels.L1.per", "levels.L1.read_bw", "levels.1.name",
             "levels.Reg.capacity", "levels.Reg.read_bw", "levels.Reg", "levels", "levels.5", "levels.L1.extra"]
SET_VALUES = TOKENS + ["1 B", "2 B", "64 KB", "1 GB", "0.001 GB/s", "1000000", "65536", "2", "core", "chip", "pe",
                       "{rows: 1, cols: 1, per: core, mac_pj: 1}", "[DRAM]", "unlimited"]
DIMS = ["b", "m", "k", "l", "n", "q"]
DIM_VALUES = ["0", "-2", "1", "2", "3", "7", "97", "1000003", "99999999999", "x", ""]


# explore's options that fix parts of the search, assembled from pieces of real and wrong specs.
OPS = ["qk", "max", "sub", "exp", "sum", "div", "av", "qk+max", "qk+max+sub+exp+sum+div", "av+qk", "x", ""]
FIX_KEYS = ["prim=Pipe", "prim=Seq", "prim=Para", "prim=x", "loops=m:16", "loops=m:0", "loops=q:2", "loops=m:4,l:8",
            "cores=b:8,m:4", "cores=b:3", "cores=m:99", "sp=m:16,l:16", "sp=none", "sp=m:99999999999999999999", "sp=l",
            "order=n,m,b", "order=m,l,b", "order=m,m,b", "order=", "home=L2", "home=DRAM", "home=L1", "home=", "=", ":", "prim"]


def search_options(rng):
    out = []
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(5)
        if kind == 0:
            out += ["--groups", ",".join(rng.choice(OPS) for _ in range(rng.randint(1, 3)))]
        elif kind == 1:
            out += ["--fix", f"{rng.choice(OPS)}:{rng.choice(FIX_KEYS)}"]
        elif kind == 2:
            out += ["--max-footprint", f"{rng.choice(['L1', 'Reg', 'DRAM', 'L9', ''])}={rng.choice(SET_VALUES)}"]
        elif kind == 3:
            out += ["--prims", rng.choice(["Seq", "Pipe", "Para", "Shar", "Foo", ""])]
        else:
            out += [rng.choice(["--objective", "--top", "--time", "--evals"]), rng.choice(TOKENS)]
    return out


def changes(rng):
    out = []
    for _ in range(rng.randint(1, 2)):
        if rng.random() < 0.7:
            out += ["--set", f"{rng.choice(SET_PATHS)}={rng.choice(SET_VALUES)}"]
        else:
            out += ["--dim", f"{rng.choice(DIMS)}={rng.choice(DIM_VALUES)}"]
    return out


def command(dfx, verb, files, work, rng):
    if verb.startswith("set "):
        return command(dfx, verb[4:], files, work, rng) + changes(rng)
    if verb.startswith("options "):
        return command(dfx, verb[8:], files, work, rng) + search_options(rng)
    if verb == "eval":
        return [dfx, "eval", *files]
    if verb == "explore":
        return [dfx, "explore", *files, "--evals", "40", "--jobs", "1", "--quiet"]
    if verb == "emit":
        return [dfx, "emit", *files, "-o", os.path.join(work, "program.txt")]
    if verb == "compare":
        return [dfx, "compare", *files]
    if verb == "asm":
        return [dfx, "asm", *files, "-o", os.path.join(work, "out.bin")]
    return [dfx, "simulate", *files, "--seed", "1"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dfx")
    p.add_argument("root")
    p.add_argument("--cases", type=int, default=240)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--outdir", default=None)
    a = p.parse_args()
    rng = random.Random(a.seed)
    outdir = a.outdir or tempfile.mkdtemp(prefix="dfx_fuzz_")
    os.makedirs(outdir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="dfx_fuzz_run_")
    cases = scenarios(a.root)
    failures, exits, per_verb = [], {}, {}
    for n in range(a.cases):
        verb, files = cases[n % len(cases)]
        files = list(files)
        edited = None
        if not verb.startswith(("set ", "options ")):
            victim = rng.randrange(len(files))
            with open(files[victim], encoding="utf-8") as f:
                text = mutate(f.read(), rng)
            edited = os.path.join(work, f"case{n}_" + os.path.basename(files[victim]))
            with open(edited, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
            files[victim] = edited
        cmd = command(a.dfx, verb, files, work, rng)
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S)
            rc, err = r.returncode, r.stderr
        except subprocess.TimeoutExpired:
            rc, err = "timeout", ""
        exits[rc] = exits.get(rc, 0) + 1
        per_verb.setdefault(verb, {})
        per_verb[verb][rc] = per_verb[verb].get(rc, 0) + 1
        crashed = [w for w in CRASH_WORDS if w in err]
        if rc not in (0, 2) or (rc == 2 and not err.strip()) or crashed:
            if edited:
                kept = os.path.join(outdir, os.path.basename(edited))
                shutil.copy(edited, kept)
                cmd[cmd.index(edited)] = kept
            failures.append(f"case {n}: exit {rc}{' (' + ', '.join(crashed) + ')' if crashed else ''}: "
                            f"{' '.join(shlex.quote(w) for w in cmd)}\n    {err.strip().splitlines()[-1] if err.strip() else '(no message)'}")
        if edited:
            os.remove(edited)
    shutil.rmtree(work, ignore_errors=True)
    print(f"fuzz: {a.cases} runs, exits {dict(sorted(exits.items(), key=str))}")
    for verb, counts in per_verb.items():
        print(f"  {verb}: exits {dict(sorted(counts.items(), key=str))}")
    for f in failures:
        print(f)
    if failures:
        print(f"{len(failures)} of {a.cases} runs failed; their files are in {outdir}")
        return 1
    # Every scenario must have refused something: edits that never reach the checks test nothing.
    if exits.get(2, 0) < a.cases // 4:
        print("too few runs were refused: the edits no longer reach the checks")
        return 1
    shutil.rmtree(outdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
