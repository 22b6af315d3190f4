// Handovers between pipes (see lower_sync.h).
#include "mapper/lower_sync.h"

namespace dfx::mapper::lowering {

using arch::Instruction;
using arch::Opcode;
using arch::Pipe;

Instruction flag(Opcode op, Pipe from, Pipe to, int event) {
  Instruction i;
  i.op = op;
  i.from = from, i.to = to, i.event = event;
  return i;
}

int Flags::fresh(Pipe from, Pipe to) {
  int& next = next_[static_cast<int>(from)][static_cast<int>(to)];
  if (next == 0) next = 1;  // event 0 of every pair is "ready"
  if (next > 15)
    throw InputError(where_, std::string("the program needs more than 15 flags from the ") + arch::pipe_name(from) + " to the " +
                                 arch::pipe_name(to) + " pipe; use fewer fused buffers");
  return next++;
}

void Flags::prime(Pipe from, Pipe to, int event, int64_t tokens) {
  for (int64_t k = 0; k < tokens; ++k) primes_.push_back(flag(Opcode::SetFlag, from, to, event));
}

Chain sequence(const std::vector<Instruction>& copies, const arch::Arch& a, Flags& flags) {
  Chain c;
  std::vector<Instruction> frees;  // "free" sets of hop buffers, after their reader's copy
  for (size_t k = 0; k < copies.size(); ++k) {
    const Pipe engine = arch::pipe_of(copies[k], a);
    if (k == 0) c.first = engine;
    if (k > 0 && engine != c.last) {  // hand the hop buffer from the previous engine to this one
      const int e = flags.fresh(engine, c.last);
      c.code.insert(c.code.end() - 1, flag(Opcode::WaitFlag, engine, c.last, e));
      c.code.push_back(flag(Opcode::SetFlag, c.last, engine, 0));
      c.code.push_back(flag(Opcode::WaitFlag, c.last, engine, 0));
      frees.push_back(flag(Opcode::SetFlag, engine, c.last, e));
      flags.prime(engine, c.last, e, 1);
    }
    c.code.push_back(copies[k]);
    if (!frees.empty() && frees.back().from == engine) c.code.push_back(frees.back()), frees.pop_back();
    c.last = engine;
  }
  return c;
}

void fill_around(Item& at, const Chain& c, Pipe reader, int64_t copies, Flags& flags, std::vector<Instruction>& pre) {
  if (c.empty()) return;
  if (c.last == reader) {  // the same pipe reads it: program order is enough
    pre.insert(pre.end(), c.code.begin(), c.code.end());
    return;
  }
  const int e = flags.fresh(reader, c.last);
  pre.push_back(flag(Opcode::WaitFlag, reader, c.last, e));
  pre.insert(pre.end(), c.code.begin(), c.code.end());
  pre.push_back(flag(Opcode::SetFlag, c.last, reader, 0));
  pre.push_back(flag(Opcode::WaitFlag, c.last, reader, 0));
  at.after.push_back(flag(Opcode::SetFlag, reader, c.last, e));
  flags.prime(reader, c.last, e, copies);
}

void drain_around(Item& at, const Chain& c, Pipe writer, int64_t copies, Flags& flags) {
  if (c.empty()) return;
  if (c.first == writer) {
    at.after.insert(at.after.end(), c.code.begin(), c.code.end());
    return;
  }
  const int e = flags.fresh(c.first, writer);
  at.before.push_back(flag(Opcode::WaitFlag, c.first, writer, e));
  at.after.push_back(flag(Opcode::SetFlag, writer, c.first, 0));
  at.after.push_back(flag(Opcode::WaitFlag, writer, c.first, 0));
  at.after.insert(at.after.end(), c.code.begin(), c.code.end());
  at.after.push_back(flag(Opcode::SetFlag, c.first, writer, e));
  flags.prime(c.first, writer, e, copies);
}

void hand_over(Item& writer_item, Item& reader_item, Item& writer_next, Item& reader_last, Pipe writer, Pipe reader,
               int64_t copies, Flags& flags) {
  if (writer == reader) return;
  // The waits go first: the items' own transfers may already read or overwrite the buffer.
  writer_item.after.push_back(flag(Opcode::SetFlag, writer, reader, 0));
  reader_item.before.insert(reader_item.before.begin(), flag(Opcode::WaitFlag, writer, reader, 0));
  const int e = flags.fresh(reader, writer);
  writer_next.before.insert(writer_next.before.begin(), flag(Opcode::WaitFlag, reader, writer, e));
  reader_last.after.push_back(flag(Opcode::SetFlag, reader, writer, e));
  flags.prime(reader, writer, e, copies);
}

}  // namespace dfx::mapper::lowering
