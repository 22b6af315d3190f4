#!/usr/bin/env python3
"""dfx simulate --inputs DIR: files are held to the programs' inputs. A file naming no tensor
(a misspelt input, which would otherwise run on random data), a wrong number of values, and a
value the programs' type cannot hold (NaN, out of int16's range, a fraction in int16, beyond
fp16's range) are refused with the file named and exit 2; inputs with no file get random values
and a note says which; a directory --outputs wrote gives the same run again.

  sim_inputs_test.py DFX PROJECT_DIR

Writes .npy files itself (the format's version 1.0), so that it needs no NumPy.
"""
import ast
import os
import struct
import subprocess
import sys
import tempfile


def read_npy(path):
    raw = open(path, "rb").read()
    assert raw[:6] == b"\x93NUMPY", path
    n = struct.unpack("<H", raw[8:10])[0]
    header = ast.literal_eval(raw[10:10 + n].decode())
    assert header["descr"] == "<f8", header
    count = 1
    for s in header["shape"]:
        count *= s
    return header["shape"], list(struct.unpack(f"<{count}d", raw[10 + n:10 + n + 8 * count]))


def write_npy(path, shape, values):
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }" % "".join(f"{s}, " for s in shape)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack(f"<{len(values)}d", *values))


def main():
    dfx, root = sys.argv[1], sys.argv[2]
    arch = f"{root}/configs/arch/tpu_like.yaml"
    program = f"{root}/configs/programs/tpu_like_gemm.s"
    with tempfile.TemporaryDirectory() as tmp:
        def simulate(inputs, prog=program):
            return subprocess.run([dfx, "simulate", arch, prog, "--inputs", inputs, "--outputs", f"{tmp}/run"],
                                  capture_output=True, text=True)

        def refused(inputs, words, prog=program):
            r = simulate(inputs, prog)
            assert r.returncode == 2, (words, r.returncode, r.stdout, r.stderr)
            assert words in r.stderr, (words, r.stderr)

        subprocess.run([dfx, "simulate", arch, program, "--outputs", f"{tmp}/first", "--seed", "5"], check=True,
                       stdout=subprocess.DEVNULL)
        shape_a, a = read_npy(f"{tmp}/first/A.npy")
        shape_b, b = read_npy(f"{tmp}/first/B.npy")
        _, c = read_npy(f"{tmp}/first/C.npy")

        # What --outputs wrote (inputs as used, and C) runs again to the same C, with no note.
        r = simulate(f"{tmp}/first")
        assert r.returncode == 0 and "note" not in r.stderr, r.stderr
        assert read_npy(f"{tmp}/run/C.npy")[1] == c

        os.mkdir(f"{tmp}/in")
        write_npy(f"{tmp}/in/A.npy", shape_a, a)
        r = simulate(f"{tmp}/in")
        assert r.returncode == 0 and "input(s) B: random values (--seed 1)" in r.stderr, r.stderr

        write_npy(f"{tmp}/in/Bb.npy", shape_b, b)
        refused(f"{tmp}/in", "Bb.npy: the programs declare no tensor 'Bb' (their inputs: A, B)")
        os.remove(f"{tmp}/in/Bb.npy")

        def with_a(k, v):
            changed = list(a)
            changed[k] = v
            write_npy(f"{tmp}/in/A.npy", shape_a, changed)

        # A is 32x256: flat element 261 is [1, 5].
        with_a(261, float("nan"))
        refused(f"{tmp}/in", "A.npy: element [1, 5] of 'A' is NaN")
        with_a(261, 40000.0)
        refused(f"{tmp}/in", "element [1, 5] of 'A' is 40000, outside int16's range [-32768, 32767]")
        with_a(261, 0.5)
        refused(f"{tmp}/in", "element [1, 5] of 'A' is 0.5, not a whole number")
        write_npy(f"{tmp}/in/A.npy", [3], a[:3])
        refused(f"{tmp}/in", "A.npy: holds 3 values; input 'A' is 32x256 = 8192 values")

        # The same program in fp16 takes fractions, and refuses what fp16 cannot hold.
        with open(program) as f:
            text = f.read()
        with open(f"{tmp}/fp16.s", "w") as f:
            f.write(".dtype fp16\n" + text)
        with_a(261, 0.5)
        r = simulate(f"{tmp}/in", f"{tmp}/fp16.s")
        assert r.returncode == 0, r.stderr
        with_a(261, 1e5)
        refused(f"{tmp}/in", "element [1, 5] of 'A' is 100000, beyond fp16's range", f"{tmp}/fp16.s")
    print("ok")


if __name__ == "__main__":
    main()
