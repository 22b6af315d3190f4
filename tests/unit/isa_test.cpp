#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "arch/isa.h"
#include "arch/isa_words.h"
#include "tests/unit/test_util.h"

namespace dfx::arch {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Isa, ShippedProgramsCheckAndRoundTrip) {
  for (const auto& [arch_name, prog] : {std::pair{"tpu_like", "tpu_like_gemm"}, std::pair{"ascend_like", "ascend_like_softmax_row"}}) {
    SCOPED_TRACE(prog);
    Arch a = load_arch(test::config(std::string("arch/") + arch_name + ".yaml"));
    Program p = parse_program(read(test::config(std::string("programs/") + prog + ".s")), prog, a);
    check_program(p, a, prog);
    // text → program → binary → program → text, and text → program → text → program.
    Program back = decode_program(encode_program(p), "bin");
    ASSERT_EQ(back.code.size(), p.code.size());
    for (size_t i = 0; i < p.code.size(); ++i) EXPECT_TRUE(back.code[i] == p.code[i]) << "instruction " << i;
    EXPECT_FALSE(p.tensors.empty());
    EXPECT_TRUE(back.tensors == p.tensors);
    EXPECT_EQ(back.dtype, p.dtype);
    EXPECT_EQ(print_program(back, a), print_program(p, a));
    Program again = parse_program(print_program(p, a), "printed", a);
    for (size_t i = 0; i < p.code.size(); ++i) EXPECT_TRUE(again.code[i] == p.code[i]) << "instruction " << i;
    EXPECT_TRUE(again.tensors == p.tensors);
    EXPECT_EQ(again.dtype, p.dtype);
  }
}

// The RTL core's fixed-width words hold every field of the shipped programs.
TEST(IsaWords, ShippedProgramsRoundTripThroughMachineWords) {
  for (const auto& [arch_name, prog] : {std::pair{"tpu_like", "tpu_like_gemm"}, std::pair{"ascend_like", "ascend_like_softmax_row"}}) {
    SCOPED_TRACE(prog);
    Arch a = load_arch(test::config(std::string("arch/") + arch_name + ".yaml"));
    Program p = parse_program(read(test::config(std::string("programs/") + prog + ".s")), prog, a);
    const std::vector<Instruction> back = decode_words(encode_words(p, prog));
    ASSERT_EQ(back.size(), p.code.size());
    for (size_t i = 0; i < p.code.size(); ++i) EXPECT_TRUE(back[i] == p.code[i]) << "instruction " << i;
  }
}

TEST(IsaWords, WhatTheWordCannotHoldIsRefusedWithTheLine) {
  Arch a = load_arch(test::config("arch/tpu_like.yaml"));
  std::string deep, tail;
  for (int j = 0; j < 9; ++j) deep += "loop 2\n", tail += "endloop\n";
  const Program p = parse_program(deep + "dma SPM[0 : 4 / 1] <- DRAM[0 : 4 / 1]\n" + tail + "halt\n", "deep.s", a);
  const std::string msg = test::input_error([&] { encode_words(p, "deep.s"); });
  EXPECT_NE(msg.find("deep.s:10:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("more than 8 nested loops"), std::string::npos) << msg;
  const Program far = parse_program("dma SPM[0 : 4 / 1] <- DRAM[5000000000 : 4 / 1]\nhalt\n", "far.s", a);
  EXPECT_NE(test::input_error([&] { encode_words(far, "far.s"); }).find("does not fit in 32 bits"), std::string::npos);
}

class BadProgram : public ::testing::Test {
 protected:
  Arch tpu = load_arch(test::config("arch/tpu_like.yaml"));
  Arch ascend = load_arch(test::config("arch/ascend_like.yaml"));
  std::string problems(const Arch& a, const std::string& text) {
    return test::input_error([&] { check_program(parse_program(text, "p.s", a), a, "p.s"); });
  }
};

TEST_F(BadProgram, SyntaxErrorsHaveLineAndColumn) {
  std::string err = test::input_error([&] { parse_program("halt\ndma SPM[0 : 4 / 1] <- DRAN[0 : 4 / 1]\n", "p.s", tpu); });
  EXPECT_NE(err.find("p.s:2:23: unknown level 'DRAN'"), std::string::npos) << err;  // at the name's first letter
  err = test::input_error([&] { parse_program("  frobnicate SPM\n", "p.s", tpu); });
  EXPECT_NE(err.find("p.s:1:3: unknown instruction 'frobnicate'"), std::string::npos) << err;
  err = test::input_error([&] { parse_program("loop 3\n  loop 2\n  endloop\nloop 2\nhalt\n", "p.s", tpu); });
  EXPECT_NE(err.find("p.s:4:1: this loop is never closed with endloop"), std::string::npos) << err;
}

TEST_F(BadProgram, RingsAndInitMasks) {
  const std::string text = "loop 3\n  loop 2\n    dma SPM[0 %2*64(i0+i1) : 64 / 1] <- DRAM[0 +64*i0 : 64 / 1]\n"
                           "    mma SPM[1000 : 4x4 / 4,1] += SPM[0 %2*64(i1) : 4x4 / 4,1] * SPM[200 : 4x4 / 4,1] init i1\n  endloop\nendloop\n";
  Program p = parse_program(text, "p.s", tpu);
  check_program(p, tpu, "p.s");
  EXPECT_EQ(p.code[2].dst.ring, 2);
  EXPECT_EQ(p.code[2].dst.ring_weights, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(address_range(p.code[2].dst, {3, 2}).second, 64 + 63);
  EXPECT_TRUE(accumulates(p.code[3], {0, 1}));
  EXPECT_FALSE(accumulates(p.code[3], {2, 0}));
  Program back = parse_program(print_program(p, tpu), "printed", tpu);
  Program bin = decode_program(encode_program(p), "bin");
  for (size_t i = 0; i < p.code.size(); ++i) EXPECT_TRUE(back.code[i] == p.code[i] && bin.code[i] == p.code[i]) << i;
  // The second copy is what reaches past the end.
  std::string err = problems(tpu, "loop 2\ndma SPM[196500 %2*64(i0) : 64 / 1] <- DRAM[0 : 64 / 1]\nendloop\n");
  EXPECT_NE(err.find("reaches element 196627"), std::string::npos) << err;
  err = test::input_error([&] { parse_program("mma SPM[0 : 4x4 / 4,1] = SPM[0 : 4x4 / 4,1] * SPM[0 : 4x4 / 4,1] init i0\n", "p.s", tpu); });
  EXPECT_NE(err.find("'init' only makes sense with '+='"), std::string::npos) << err;
}

TEST_F(BadProgram, Declarations) {
  std::string err = test::input_error([&] { parse_program(".dtype fp32\nhalt\n", "p.s", tpu); });
  EXPECT_NE(err.find("unknown element type 'fp32'"), std::string::npos) << err;
  err = test::input_error([&] { parse_program("halt\n.input A DRAM[0 : 4 / 1]\n", "p.s", tpu); });
  EXPECT_NE(err.find("p.s:2:"), std::string::npos) << err;
  EXPECT_NE(err.find("must come before the first instruction"), std::string::npos) << err;
  err = test::input_error([&] { parse_program(".input A DRAM[0 : 4 / 1]\n.output A DRAM[8 : 4 / 1]\n", "p.s", tpu); });
  EXPECT_NE(err.find("declared twice"), std::string::npos) << err;
  err = problems(tpu, ".input A SPM[196600 : 16 / 1]\nhalt\n");
  EXPECT_NE(err.find("tensor 'A' reaches element 196615"), std::string::npos) << err;
}

TEST_F(BadProgram, FlagsNameThePipesTheArchHas) {
  // ascend_like moves data on MTE1/2/3 and fixpipe: a flag on 'dma' would order nothing.
  std::string err = problems(ascend, "set_flag dma -> vector 0\nwait_flag dma -> vector 0\n");
  EXPECT_NE(err.find("the arch has no 'dma' pipe (its transfers run on mte1, mte2, mte3, fixpipe)"), std::string::npos) << err;
  check_program(parse_program("set_flag mte2 -> vector 0\nwait_flag mte2 -> vector 0\n", "ok.s", ascend), ascend, "ok.s");
  err = problems(tpu, "set_flag mte2 -> vector 0\nwait_flag mte2 -> vector 0\n");
  EXPECT_NE(err.find("the arch has no 'mte2' pipe (its transfers run on dma, dma_out)"), std::string::npos) << err;
}

TEST_F(BadProgram, TooManyInstructionsToRun) {
  std::string err = problems(tpu, "loop 100000\nloop 100000\nset_flag dma -> matrix 0\nendloop\nendloop\n");
  EXPECT_NE(err.find("would run"), std::string::npos) << err;
}

TEST_F(BadProgram, AddressOutOfRange) {
  std::string err = problems(tpu, "dma SPM[196600 : 16 / 1] <- DRAM[0 : 16 / 1]\n");
  EXPECT_NE(err.find("reaches element 196615 of 'SPM', which holds 196608"), std::string::npos) << err;
  // The last of 4 iterations reaches 3·70000 + 15: out of range, though the first is not.
  err = problems(tpu, "loop 4\ndma SPM[0 +70000*i0 : 16 / 1] <- DRAM[0 : 16 / 1]\nendloop\n");
  EXPECT_NE(err.find("reaches element 210015"), std::string::npos) << err;
  check_program(parse_program("loop 4\ndma SPM[0 +60000*i0 : 16 / 1] <- DRAM[0 : 16 / 1]\nendloop\n", "ok.s", tpu), tpu, "ok.s");
}

TEST_F(BadProgram, OperandInALevelTheUnitCannotRead) {
  std::string err = problems(ascend, "mma L0C[0 : 16x16 / 16,1] += L0B[0 : 16x16 / 16,1] * L0A[0 : 16x16 / 16,1]\n");
  EXPECT_NE(err.find("left operand is in 'L0B', which may not hold left data"), std::string::npos) << err;
  EXPECT_NE(err.find("right operand is in 'L0A'"), std::string::npos) << err;
}

TEST_F(BadProgram, TransfersNeedADeclaredPath) {
  std::string err = problems(ascend, "dma L0A[0 : 16 / 1] <- UB[0 : 16 / 1]\n");
  EXPECT_NE(err.find("no data path from 'UB' to 'L0A'"), std::string::npos) << err;
}

TEST_F(BadProgram, AWaitThatIsNeverSetIsADeadlock) {
  std::string err = problems(tpu, "set_flag dma -> matrix 0\nwait_flag dma -> matrix 1\nhalt\n");
  EXPECT_NE(err.find("p.s:2:"), std::string::npos) << err;
  EXPECT_NE(err.find("wait_flag dma -> matrix 1 is never set"), std::string::npos) << err;
}

TEST_F(BadProgram, ShapesMustAgree) {
  std::string err = problems(tpu, "mma SPM[0 : 4x4 / 4,1] += SPM[16 : 4x8 / 8,1] * SPM[64 : 4x4 / 4,1]\n"
                                  "vec.add SPM[0 : 16 / 1] <- SPM[16 : 16 / 1]\n");
  EXPECT_NE(err.find("mma needs C[m×n] from A[m×k] and B[k×n]"), std::string::npos) << err;
  EXPECT_NE(err.find("vec.add needs two sources"), std::string::npos) << err;
}

// `.core I of N` says which of a dataflow's programs a file is, in text and binary; a run of
// programs that is not the whole set, in core order, is refused at the directive.
TEST(Isa, ProgramsSayWhichCoreTheyAre) {
  Arch a = load_arch(test::config("arch/tpu_like.yaml"));
  const std::string body = ".input A DRAM[0 : 4 / 1]\ndma SPM[0 : 4 / 1] <- DRAM[0 : 4 / 1]\nhalt\n";
  const Program first = parse_program("# lowered\n.core 0 of 2\n" + body, "p.s", a);
  const Program second = parse_program(".core 1 of 2\n" + body, "p.core1.s", a);
  EXPECT_EQ(first.core, 0);
  EXPECT_EQ(first.cores, 2);
  EXPECT_EQ(first.core_line, 2);
  EXPECT_NE(print_program(second, a).find(".core 1 of 2\n"), std::string::npos);
  const Program back = decode_program(encode_program(second), "p.bin");
  EXPECT_EQ(back.core, 1);
  EXPECT_EQ(back.cores, 2);
  // A version-2 binary (before .core) still reads, as a program that does not say.
  std::vector<uint8_t> v2 = encode_program(second);
  v2[7] = '2';
  v2.erase(v2.begin() + 9, v2.begin() + 25);
  const Program old = decode_program(v2, "old.bin");
  EXPECT_EQ(old.cores, 0);
  EXPECT_TRUE(old.tensors == second.tensors);
  ASSERT_EQ(old.code.size(), second.code.size());
  for (size_t i = 0; i < old.code.size(); ++i) EXPECT_TRUE(old.code[i] == second.code[i]) << "instruction " << i;

  EXPECT_NO_THROW(check_program_set({first, second}, {"p.s", "p.core1.s"}));
  const Program hand = parse_program(body, "hand.s", a);
  EXPECT_NO_THROW(check_program_set({hand}, {"hand.s"}));  // says nothing: nothing to check
  std::string msg = test::input_error([&] { check_program_set({first}, {"p.s"}); });
  EXPECT_NE(msg.find("p.s:2:1: this is core 0 of 2, but 1 program(s) are given"), std::string::npos) << msg;
  msg = test::input_error([&] { check_program_set({second, first}, {"p.core1.s", "p.s"}); });
  EXPECT_NE(msg.find("p.core1.s:1:1: this is core 1 of 2, given as program 0"), std::string::npos) << msg;
  msg = test::input_error([&] { parse_program(".core 2 of 2\n" + body, "x.s", a); });
  EXPECT_NE(msg.find("x.s:1:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("core 2 of 2 is not a core"), std::string::npos) << msg;
  msg = test::input_error([&] { parse_program(body + ".core 0 of 1\n", "late.s", a); });
  EXPECT_NE(msg.find(".core must come before the first instruction"), std::string::npos) << msg;
}

TEST(IsaBinary, BadBytesAreRejected) {
  std::string err = test::input_error([] { decode_program({'n', 'o', 'p', 'e'}, "x.bin"); });
  EXPECT_NE(err.find("bad header"), std::string::npos) << err;
  Program p;
  p.code.push_back(Instruction{});
  std::vector<uint8_t> bytes = encode_program(p);
  bytes[34] = 99;  // the first opcode, after magic, element type, core, cores, tensor count and instruction count
  err = test::input_error([&] { decode_program(bytes, "x.bin"); });
  EXPECT_NE(err.find("unknown opcode 99"), std::string::npos) << err;
  bytes = encode_program(p);
  bytes[8] = 7;  // the element type
  err = test::input_error([&] { decode_program(bytes, "x.bin"); });
  EXPECT_NE(err.find("unknown element type 7"), std::string::npos) << err;
  bytes = encode_program(p);
  bytes.pop_back();
  err = test::input_error([&] { decode_program(bytes, "x.bin"); });
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
}

}  // namespace
}  // namespace dfx::arch
