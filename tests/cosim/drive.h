#pragma once
// Driving a verilated model from a test: one clock cycle, and a reset cycle.

namespace dfx::test {

template <class Model>
void tick(Model& m) {
  m.clk = 0;
  m.eval();
  m.clk = 1;
  m.eval();
}

template <class Model>
void reset(Model& m) {
  m.rst = 1;
  tick(m);
  m.rst = 0;
}

}  // namespace dfx::test
