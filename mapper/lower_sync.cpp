// Handovers between pipes (see lower_sync.h).
#include "mapper/lower_sync.h"

#include <algorithm>

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

void drain_around(Item& at, Item& writes_at, const Chain& c, Pipe writer, int64_t copies, Flags& flags) {
  if (c.empty()) return;
  if (c.first == writer) {
    at.after.insert(at.after.end(), c.code.begin(), c.code.end());
    return;
  }
  const int e = flags.fresh(c.first, writer);
  writes_at.before.push_back(flag(Opcode::WaitFlag, c.first, writer, e));
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

std::pair<Item*, Item*> diverge(const std::vector<Item*>& a, const std::vector<Item*>& b) {
  size_t k = 0;
  while (k < a.size() && k < b.size() && a[k] == b[k]) ++k;
  return {a[k], b[k]};
}

Item& first_write_item(const std::vector<Item*>& path, size_t pos) {
  while (pos + 1 < path.size() && path[pos]->kind == Item::Kind::Group) ++pos;
  return *path[pos];
}

namespace {

// The on-core loops of a path: (dim, cores) from the outside in.
std::vector<std::pair<int, int64_t>> core_split(const std::vector<Item*>& path) {
  std::vector<std::pair<int, int64_t>> out;
  for (const Item* it : path)
    if (it->kind == Item::Kind::Loop && it->on_cores) out.push_back({it->dim, it->count});
  return out;
}

// Two accesses that address a tensor the same way (each index the same sum of dims).
bool same_indexing(const model::TensorAccess& a, const model::TensorAccess& b) {
  if (a.index.size() != b.index.size()) return false;
  for (size_t p = 0; p < a.index.size(); ++p) {
    if (a.index[p].terms.size() != b.index[p].terms.size()) return false;
    for (size_t k = 0; k < a.index[p].terms.size(); ++k)
      if (a.index[p].terms[k].dim != b.index[p].terms[k].dim || a.index[p].terms[k].coef != b.index[p].terms[k].coef) return false;
  }
  return true;
}

void all_computes(Item& it, std::vector<Item*>& path, std::vector<std::vector<Item*>>& out) {
  path.push_back(&it);
  if (it.kind == Item::Kind::Compute) out.push_back(path);
  for (Item& c : it.body) all_computes(c, path, out);
  path.pop_back();
}

}  // namespace

// Cores hand intermediates over through DRAM: unless every core reads exactly what it wrote
// (same core split, same indexing), the consumer waits at a barrier until every core has
// written, and inside a loop the producer's next round waits until every core has read.
void place_barriers(Skeleton& s, const model::Workload& w, const std::vector<int>& home_node) {
  std::vector<std::vector<Item*>> computes;
  std::vector<Item*> path;
  all_computes(s.root, path, computes);
  std::vector<Item*> done;
  auto barrier_before = [&](Item* it) {
    if (std::count(done.begin(), done.end(), it)) return;
    done.push_back(it);
    Instruction b;
    b.op = Opcode::Barrier;
    it->before.insert(it->before.begin(), b);
  };
  for (const auto& prod : computes) {
    const model::Op& px = w.ops[static_cast<size_t>(prod.back()->op)];
    const auto t = static_cast<size_t>(px.out.tensor);
    if (home_node[t] >= 0) continue;
    for (const auto& cons : computes)
      for (const model::TensorAccess& in : w.ops[static_cast<size_t>(cons.back()->op)].inputs) {
        if (in.tensor != px.out.tensor) continue;
        const bool own_data = core_split(prod) == core_split(cons) && same_indexing(in, px.out);
        if (own_data || s.cores == 1) continue;
        size_t k = 0;
        while (prod[k] == cons[k]) ++k;
        barrier_before(cons[k]);
        for (size_t q = 0; q < k; ++q)
          if (prod[q]->kind == Item::Kind::Loop && !prod[q]->on_cores) barrier_before(prod[k]);
      }
  }
}

}  // namespace dfx::mapper::lowering
