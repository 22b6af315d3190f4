#pragma once
// The instruction set shared by the SystemC model and the RTL: one definition, a text assembly
// and a binary encoding that round-trip (docs/isa.md). Programs move data between declared
// levels with strided multi-dimensional transfers, multiply tiles on the matrix unit, run vector
// operations, synchronise pipes with flags, and loop without being unrolled.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "arch/arch.h"
#include "arch/errors.h"

namespace dfx::arch {

// Barrier: the core waits until its pipes are idle and every core of the run has reached its
// matching barrier (the k-th of each core), so that cores can hand data over through DRAM.
enum class Opcode : uint8_t { Dma = 1, Mma, Vec, SetFlag, WaitFlag, Loop, EndLoop, Halt, Barrier };

// The units that run instructions side by side; flags order them. A transfer runs on the
// engine of its path (arch.yaml `paths[].engine`): the generic dma, or Ascend's MTE1/2/3 and
// fixpipe, each a pipe of its own.
// dma_out: a second DMA engine for transfers out to DRAM (tpu_like), so that results leaving
// never hold up the next inputs in one queue.
enum class Pipe : uint8_t { Dma, Matrix, Vector, Scalar, Mte1, Mte2, Mte3, Fixpipe, DmaOut };
constexpr int kPipeCount = 9;

enum class VecOp : uint8_t { Add, Sub, Mul, Div, Max, Min, Exp, Scale, Copy, RowSum, RowMax, Cast };

constexpr int kMaxDims = 4;

// A strided block in one level: address (elements) plus, per enclosing loop, an address step;
// sizes and strides per dimension, outermost first. A ring (double buffering) adds
// ((Σ ring_weights[j]·i_j) mod ring) · ring_stride, so consecutive iterations use different copies.
struct MemRef {
  int level = -1;
  int64_t base = 0;
  std::vector<int64_t> loop_steps;  // address step per enclosing loop, outermost first
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t ring = 1;                   // copies (1: none)
  int64_t ring_stride = 0;            // elements between copies
  std::vector<int64_t> ring_weights;  // per enclosing loop
  int64_t elements() const;
  bool operator==(const MemRef& o) const;
};

struct Instruction {
  Opcode op = Opcode::Halt;
  // Dma: dst ← src. Mma: dst (acc) += a·b with (m, n, k); accumulate=false overwrites.
  // Vec: dst ← vop(a[, b]) over the operands' shape; Scale multiplies by imm/65536.
  // Mma with `+=`: imm is a mask of enclosing loops (bit j: loop i_j); when all of them are at
  // iteration 0 the accumulator starts from zero (`init i1,i3` in the text).
  MemRef dst, a, b;
  int64_t m = 0, n = 0, k = 0;
  bool accumulate = true;
  VecOp vop = VecOp::Copy;
  int64_t imm = 0;
  Pipe from = Pipe::Dma, to = Pipe::Dma;  // SetFlag / WaitFlag
  int event = 0;
  int64_t count = 0;                      // Loop
  int line = 0;                           // source line, for messages
  bool operator==(const Instruction& o) const;
};

// The element type of a program's data. Integers accumulate in 32 bits, floats in fp32.
enum class DType : uint8_t { Int16, Fp16, Bf16 };
const char* dtype_name(DType t);

// A named tensor the program reads (input) or writes (output), where it lives: the simulator
// fills inputs from files or random data and writes outputs back.
struct TensorDecl {
  std::string name;
  bool output = false;
  MemRef at;  // no loop steps
  int line = 0;
  bool operator==(const TensorDecl& o) const { return name == o.name && output == o.output && at == o.at; }
};

struct Program {
  DType dtype = DType::Int16;
  // `.core I of N`: which of a dataflow's N programs (one per core it uses) this is. cores 0:
  // not said (a program written by hand), nothing to check it against.
  int64_t core = 0, cores = 0;
  int core_line = 0;  // the directive's line, for messages
  std::vector<TensorDecl> tensors;
  std::vector<Instruction> code;
};

// Lowest and highest element address a block touches over all iterations of its loops
// (trip counts outermost first).
std::pair<int64_t, int64_t> address_range(const MemRef& r, const std::vector<int64_t>& loop_counts);

const char* pipe_name(Pipe p);
const char* vecop_name(VecOp v);
// Which unit runs an instruction: a transfer's engine, mma on matrix, vec on vector, the rest
// on scalar (flags are routed by the simulator: set in `from`, wait in `to`).
Pipe pipe_of(const Instruction& i, const Arch& a);
// The pipe of an engine name (dma, dma_out, MTE1, MTE2, MTE3, fixpipe; any case); false if unknown.
bool engine_pipe(const std::string& engine, Pipe& p);
// The element addresses a block touches at the given loop indices (outermost first), in
// row-major order of its sizes.
void block_addresses(const MemRef& r, const std::vector<int64_t>& loop_index, std::vector<int64_t>& out);
// Whether an mma adds to its accumulator at these loop indices (see Instruction::imm).
bool accumulates(const Instruction& mma, const std::vector<int64_t>& loop_index);

// Contract: parse_program throws InputError (file:line:col) for syntax errors; check_program
// throws InputError listing every problem against the arch (unknown level, no path, a level that
// cannot hold the operand's role, an address out of range, unbalanced loops, a wait never set).
Program parse_program(const std::string& text, const std::string& name, const Arch& a);
std::string print_program(const Program& p, const Arch& a);
void check_program(const Program& p, const Arch& a, const std::string& name);
// Contract: throws InputError, located at the `.core` line, where programs that say which core
// they are do not make a whole run: each must be the core of its place among `programs` (core
// order) and say N where N are given. One core's program alone would compute its share of the
// outputs and leave the rest uncomputed. (Programs of two emits of the same core count pass: the
// directive names no dataflow.) `names`: the programs' files, in the same order.
void check_program_set(const std::vector<Program>& programs, const std::vector<std::string>& names);

// Contract: reads a program file in either form (binary if it starts with the binary header) and
// checks it; throws InputError for an unreadable file or any problem.
Program load_program(const std::string& path, const Arch& a);

// Binary: the header "DFXPROG3", the element type, the core and cores (.core; "DFXPROG2" files,
// which have neither, still read), the tensor table, the instruction count, then
// one record per instruction, little-endian (docs/isa.md).
std::vector<uint8_t> encode_program(const Program& p);
// Contract: throws InputError on a truncated file, a bad header or an unknown opcode.
Program decode_program(const std::vector<uint8_t>& bytes, const std::string& name);

}  // namespace dfx::arch
