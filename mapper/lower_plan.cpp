// Planning a program on the skeleton: where each tensor lives, where it is filled and written
// back, the instruction of each operator, and the flags between pipes (docs/lowering.md).
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "mapper/lower_internal.h"
#include "mapper/lower_ops.h"
#include "mapper/lower_sync.h"
#include "model/placement.h"

namespace dfx::mapper::lowering {
namespace {

using arch::Instruction;
using arch::Opcode;
using arch::Pipe;

arch::MemRef block(int level, int64_t base, std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  arch::MemRef r;
  r.level = level, r.base = base, r.sizes = std::move(sizes), r.strides = std::move(strides);
  return r;
}

class Planner {
 public:
  // `single`: the buffers (numbered in allocation order, which does not depend on their copies)
  // kept to one copy although they lie inside loops.
  Planner(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f, Skeleton& s,
          int64_t core, arch::DType dtype, const std::set<int>& single)
      : a_(a), w_(w), f_(f), s_(s), core_(core), dtype_(dtype), single_(single), flags_(f.root().loc) {}

  // Thrown when the buffers do not fit while some are still double: `largest` is the double one
  // with the most elements on an over-full level; plan again with it single.
  struct TooBig {
    int largest = -1;
  };

  arch::Program run() {
    place_tensors();
    place_barriers(s_, w_, home_node_);
    visit(s_.root);
    attach_transfers();
    sync_locals();
    check_capacity();
    arch::Program p;
    p.dtype = dtype_;
    p.tensors = decls_;
    p.code = flags_.primes();
    flatten(s_.root, p.code);
    Instruction halt;
    p.code.push_back(halt);
    return p;
  }

 private:
  // Copies into (fill) or out of (drain) one buffer at its position, and the pipe on the
  // other side of the buffer (its reader inside for a fill, its writer inside for a drain).
  struct Transfer {
    Item* at = nullptr;
    bool fill = true;
    std::vector<Instruction> copies;
    Pipe inside = Pipe::Dma;
    int64_t buffer_copies = 1;
    // A drain: where its writer waits for the buffer to be free (lower_sync.h, first_write_item).
    Item* writes_at = nullptr;
  };

  const arch::Arch& a_;
  const model::Workload& w_;
  const model::Dataflow& f_;
  Skeleton& s_;
  int64_t core_;
  arch::DType dtype_;
  const std::set<int>& single_;
  int allocations_ = 0;
  struct Doubled {
    int id;
    int level;
    int64_t elems;
  };
  std::vector<Doubled> doubled_;
  Flags flags_;

  model::Placement placement_;
  std::vector<int> home_node_;  // per tensor: its fusion tile if it lives on chip, else -1
  std::vector<Buffer> dram_;                 // per tensor (level -1 when it never goes to DRAM)
  std::map<std::pair<int, int>, Buffer> local_;
  std::vector<int64_t> used_;                // elements allocated per level
  std::vector<arch::TensorDecl> decls_;
  std::vector<Item*> path_;
  std::vector<Transfer> transfers_;  // in planning order: outer fills before inner ones
  struct LocalUse {
    std::vector<Item*> producer;
    std::vector<std::vector<Item*>> consumers;
    Pipe writer = Pipe::Matrix;
    std::vector<Pipe> readers;
    int64_t copies = 1;
  };
  std::map<std::pair<int, int>, LocalUse> local_uses_;
  // An input buffer by what it holds: tensor, position, level, slice, reading unit and how the
  // access indexes the tensor (offsets and terms of every index).
  using SharedInput = std::tuple<int, const Item*, int, std::vector<int64_t>, Pipe, std::vector<int64_t>>;
  std::map<SharedInput, Buffer> shared_inputs_;
  // An intermediate that goes back to DRAM for a later group, as an operator of this tile wrote
  // it: its buffer there (the model's owner holds it for the readers of the same tile too), the
  // writer's path and unit. By tensor, position and level.
  struct Written {
    Buffer buf;
    std::vector<Item*> producer;
    Pipe writer = Pipe::Matrix;
    std::vector<int64_t> signature;  // access_signature of the writer's access
  };
  std::map<std::tuple<int, const Item*, int>, Written> written_here_;
  // Readers of such a buffer in the same tile: each waits for its writer (sync_locals).
  struct DirectUse {
    const Written* written;  // in written_here_, whose nodes stay put
    std::vector<Item*> consumer;
    Pipe reader;
  };
  std::vector<DirectUse> direct_uses_;

  [[noreturn]] void refuse(const std::string& msg) const { throw InputError(f_.root().loc, msg); }
  const model::Op& op(int i) const { return w_.ops[static_cast<size_t>(i)]; }

  // A buffer at path position `pos` (-1: outside every loop). Inside loops it is double
  // buffered: consecutive executions of its position alternate between two copies, chosen by
  // the parity of the position's linear iteration count Σ i_j·Π_{k>j} n_k.
  Buffer allocate(int level, const std::vector<int64_t>& box, int pos, bool ring = true) {
    Buffer b;
    b.level = level;
    b.box = box;
    b.strides = row_major(box);
    const std::vector<const Item*> loops = pos < 0 ? std::vector<const Item*>{} : loops_between(0, static_cast<size_t>(pos));
    const int id = allocations_++;
    if (ring && !single_.count(id) && level > 0 && !loops.empty()) {
      doubled_.push_back({id, level, volume(box)});
      b.copies = 2;
      int64_t inner = 1;
      b.ring_weights.assign(loops.size(), 0);
      for (size_t j = loops.size(); j-- > 0;) {
        b.ring_weights[j] = inner % 2;
        inner *= loops[j]->count;
      }
    }
    const auto l = static_cast<size_t>(level);
    if (used_.size() <= l) used_.resize(l + 1, 0);
    b.base = used_[l];
    used_[l] += volume(box) * b.copies;
    return b;
  }

  // Where every tensor lives and which tiles keep buffers of it: the model's placement. An
  // intermediate whose home is on chip lives in a buffer of its fusion tile; the rest in DRAM.
  void place_tensors() {
    placement_ = model::place(a_, w_, f_);
    home_node_.assign(w_.tensors.size(), -1);
    for (size_t t = 0; t < w_.tensors.size(); ++t) {
      const model::TensorPlacement& tp = placement_.tensors[t];
      if (w_.tensors[t].is_intermediate() && a_.addressable(tp.home)) home_node_[t] = tp.region;
    }
    dram_.assign(w_.tensors.size(), Buffer{});
    for (size_t t = 0; t < w_.tensors.size(); ++t) {
      if (home_node_[t] >= 0) continue;
      dram_[t] = allocate(0, w_.tensors[t].shape, -1);
      const model::Tensor& ten = w_.tensors[t];
      if (ten.producer < 0 || ten.consumers.empty()) {
        arch::TensorDecl d;
        d.name = ten.name;
        d.output = ten.producer >= 0;
        d.at = block(0, dram_[t].base, ten.shape, dram_[t].strides);
        decls_.push_back(d);
      }
    }
  }

  // How many cores the on-core loops of the current path spread over.
  int64_t path_cores() const {
    int64_t n = 1;
    for (const Item* it : path_) n *= it->kind == Item::Kind::Loop && it->on_cores ? it->count : 1;
    return n;
  }

  void visit(Item& item) {
    path_.push_back(&item);
    if (item.kind != Item::Kind::Compute) {
      for (Item& child : item.body) visit(child);
    } else if (core_ < path_cores()) {  // else this core has no share of the operator
      plan_compute(item);
    }
    path_.pop_back();
  }

  // A loop of the program (on-core loops become addresses, not loops).
  bool program_loop(size_t p) const { return path_[p]->kind == Item::Kind::Loop && !path_[p]->on_cores; }

  // Program loops among path_[from, to), outermost first.
  std::vector<const Item*> loops_between(size_t from, size_t to) const {
    std::vector<const Item*> out;
    for (size_t p = from; p < to; ++p)
      if (program_loop(p)) out.push_back(path_[p]);
    return out;
  }

  // The extent of every dim at path position `pos` (outside the item there): the instruction's
  // block times the loops from there to the instruction.
  std::vector<int64_t> extent_at(size_t pos, const Item& compute) const {
    std::vector<int64_t> ext = compute.block;
    for (const Item* l : loops_between(pos, path_.size() - 1)) ext[static_cast<size_t>(l->dim)] *= l->count;
    return ext;
  }

  // The outermost position in [limit, start] the access can move out to while its slice stays
  // the same: past loops that do not index it, stopping at one that does or that holds a Seq of
  // several children below (whose next child empties the buffer: docs/semantics.md).
  size_t hoist(const model::TensorAccess& acc, size_t start, size_t limit) const {
    size_t best = start;
    bool emptied = false;
    for (size_t p = start; p-- > limit;) {
      const Item& it = *path_[p];
      if (it.kind == Item::Kind::Group) {
        const model::TreeNode& n = f_.nodes[static_cast<size_t>(it.node)];
        emptied = emptied || (n.prim == model::Prim::Seq && n.children.size() > 1);
      }
      if (!program_loop(p)) continue;
      if (emptied || indexes(acc, path_[p]->dim)) break;
      best = p;
    }
    return best;
  }

  size_t group_position(int node) const {
    size_t p = 0;
    while (path_[p]->kind != Item::Kind::Group || path_[p]->node != node) ++p;
    return p;
  }

  // DRAM address of the access's slice at path position `pos` for this core.
  arch::MemRef dram_ref(const model::TensorAccess& acc, size_t pos, const std::vector<int64_t>& box) const {
    const Buffer& d = dram_[static_cast<size_t>(acc.tensor)];
    arch::MemRef r = block(0, d.base, box, d.strides);
    for (size_t p = 0; p < acc.index.size(); ++p) r.base += acc.index[p].offset * d.strides[p];
    // The core's coordinate along each on-core loop of the path: its number in mixed radix.
    int64_t rest = core_;
    for (size_t p = path_.size(); p-- > 0;)
      if (path_[p]->kind == Item::Kind::Loop && path_[p]->on_cores) {
        r.base += (rest % path_[p]->count) * path_[p]->chunk * stride_of(acc, d, path_[p]->dim);
        rest /= path_[p]->count;
      }
    for (const Item* l : loops_between(0, pos)) r.loop_steps.push_back(l->chunk * stride_of(acc, d, l->dim));
    return r;
  }

  // The access's block in a buffer positioned at `owner` (-1 for DRAM), addressed from path
  // position `at`: steps for the loops between the two, the buffer's ring; `box` gives sizes.
  arch::MemRef block_in(const Buffer& b, long owner, const model::TensorAccess& acc, size_t at,
                        const std::vector<int64_t>& box) const {
    if (owner < 0) return dram_ref(acc, at, box);
    arch::MemRef r = block(b.level, b.base, box, box.empty() ? std::vector<int64_t>{} : b.strides);
    for (size_t p = 0; p < at; ++p)
      if (program_loop(p))
        r.loop_steps.push_back(static_cast<long>(p) >= owner ? path_[p]->chunk * stride_of(acc, b, path_[p]->dim) : 0);
    apply_ring(b, r, r.loop_steps.size());
    return r;
  }

  // Copies of the inner buffer's slice (`box`) between two buffers of an access at path position
  // `at`, through the levels of the route between them (each hop gets a buffer of its own).
  std::vector<Instruction> copy_chain(const Buffer& from, long from_owner, const Buffer& to, long to_owner,
                                      const model::TensorAccess& acc, size_t at, const std::vector<int64_t>& box) {
    const int from_level = from_owner < 0 ? 0 : from.level, to_level = to_owner < 0 ? 0 : to.level;
    const std::vector<int> levels = route(a_, from_level, to_level, f_.root().loc);
    std::vector<Instruction> out;
    Buffer src = from;
    long src_owner = from_owner;
    for (size_t h = 1; h < levels.size(); ++h) {
      const bool last = h + 1 == levels.size();
      Buffer dst = last ? to : allocate(levels[h], box, static_cast<int>(at), false);
      const long dst_owner = last ? to_owner : static_cast<long>(at);
      Instruction dma;
      dma.op = Opcode::Dma;
      dma.a = block_in(src, src_owner, acc, at, box);
      dma.dst = block_in(dst, dst_owner, acc, at, box);
      out.push_back(dma);
      src = dst, src_owner = dst_owner;
    }
    return out;
  }

  struct Stage {
    Buffer buf;
    long pos = -1;  // the buffer's position in path_ (-1: DRAM)
  };

  // Where an access's data is, from the outside in: DRAM or the intermediate's home buffer, then
  // a buffer for every tile on the path that keeps its own (the model's owners), each filled from
  // (or written back to) the one outside it at the outermost loop its slice allows.
  Stage plan_access(const model::Op& x, Pipe pipe, const model::TensorAccess& acc, bool output, const Item& c, bool& carry) {
    const auto t = static_cast<size_t>(acc.tensor);
    const model::TensorPlacement& tp = placement_.tensors[t];
    Stage outer{dram_[t], -1};
    if (home_node_[t] >= 0) {
      outer.pos = static_cast<long>(group_position(home_node_[t]));
      const auto key = std::pair{acc.tensor, home_node_[t]};
      if (!local_.count(key)) local_[key] = allocate(tp.home, box_of(acc, extent_at(static_cast<size_t>(outer.pos), c)), static_cast<int>(outer.pos));
      outer.buf = local_[key];
    }
    std::vector<size_t> owners;
    for (size_t p = static_cast<size_t>(outer.pos + 1); p + 1 < path_.size(); ++p) {
      const Item& it = *path_[p];
      if (it.kind == Item::Kind::Group && tp.owner[static_cast<size_t>(it.node)] && a_.addressable(tp.level[static_cast<size_t>(it.node)]))
        owners.push_back(p);
    }
    if (owners.empty() && outer.pos < 0)
      refuse("operator '" + x.name + "' would read '" + w_.tensors[t].name + "' straight from DRAM; give it an on-chip tile");
    std::vector<Stage> stages = {outer};
    bool shared = false;  // the innermost stage is another operator's input buffer, filled there
    const Written* reused = nullptr;  // ... or the buffer its producer wrote it to in this tile
    for (size_t i = 0; i < owners.size(); ++i) {
      const Stage& prev = stages.back();
      // As far out as the stage it is filled from: a slice no loop between them moves is staged
      // once (ViT's K and V in L0B were refilled on every row before 2026-11-27).
      const size_t anchor = hoist(acc, owners[i], static_cast<size_t>(std::max<long>(prev.pos, 0)));
      const bool innermost = i + 1 == owners.size();
      const int level = tp.level[static_cast<size_t>(path_[owners[i]]->node)];
      const std::vector<int64_t> box = box_of(acc, extent_at(anchor, c));
      if (innermost && !output) {
        // An intermediate written in this tile and sent to DRAM for a later group is read where
        // it was written, as the model's owner holds it: the DRAM copy is not there yet.
        const auto w = written_here_.find({acc.tensor, path_[anchor], level});
        if (w != written_here_.end() && w->second.buf.box == box && w->second.signature == access_signature(acc)) {
          reused = &w->second;
          shared = true;
          stages.push_back({w->second.buf, static_cast<long>(anchor)});
          continue;
        }
        // Operators of one tile that read the same slice on the same unit read one buffer,
        // filled once (the model's owner holds it for all of them).
        const SharedInput key{acc.tensor, path_[anchor], level, box, pipe, access_signature(acc)};
        auto [it, fresh] = shared_inputs_.try_emplace(key);
        if (fresh) it->second = allocate(level, box, static_cast<int>(anchor), true);
        shared = !fresh;
        stages.push_back({it->second, static_cast<long>(anchor)});
        continue;
      }
      stages.push_back({allocate(level, box, static_cast<int>(anchor)), static_cast<long>(anchor)});
    }
    // Transfers, anchored at each stage's position: fills outside in, write-backs inside out.
    // Each stage buffer is read (written) inside by the next stage's first (last) engine, or by
    // the operator's unit for the innermost one.
    const size_t n = stages.size();
    std::vector<std::vector<Instruction>> in(n), out(n);
    for (size_t i = 1; i < n; ++i) {
      const Stage &prev = stages[i - 1], &cur = stages[i];
      const auto anchor = static_cast<size_t>(cur.pos);
      bool partial = false;
      for (size_t p = static_cast<size_t>(std::max(prev.pos, 0L)); p < anchor; ++p)
        partial |= output && program_loop(p) && is_reduction(x, path_[p]->dim);
      if (partial && prev.pos >= 0 && home_node_[t] >= 0 && i == 1)
        refuse("operator '" + x.name + "' reduces over a loop between its fusion tile and its own tile; move the loop inside");
      carry |= partial;
      if ((!output || carry) && !(shared && i + 1 == n)) in[i] = copy_chain(prev.buf, prev.pos, cur.buf, cur.pos, acc, anchor, cur.buf.box);
      if (output) out[i] = copy_chain(cur.buf, cur.pos, prev.buf, prev.pos, acc, anchor, cur.buf.box);
    }
    auto engine = [&](const std::vector<Instruction>& copies, bool first) {
      return copies.empty() ? pipe : arch::pipe_of(first ? copies.front() : copies.back(), a_);
    };
    for (size_t i = 1; i < n; ++i)
      if (!in[i].empty())
        transfers_.push_back({path_[static_cast<size_t>(stages[i].pos)], true, in[i], i + 1 < n ? engine(in[i + 1], true) : pipe,
                              stages[i].buf.copies});
    // A staging engine (i + 1 < n) waits for a free copy at its first write; the operator's own
    // unit at the buffer's position (moved down, tpu_like's units stalled the dispatcher: docs/lowering.md).
    for (size_t i = n; output && i-- > 1;)
      transfers_.push_back({path_[static_cast<size_t>(stages[i].pos)], false, out[i], i + 1 < n ? engine(out[i + 1], false) : pipe,
                            stages[i].buf.copies,
                            in[i].empty() && i + 1 < n ? &first_write_item(path_, static_cast<size_t>(stages[i].pos)) : nullptr});
    if (output && home_node_[t] < 0 && w_.tensors[t].is_intermediate() && n > 1) {
      const Stage& inner = stages.back();
      written_here_[{acc.tensor, path_[static_cast<size_t>(inner.pos)], inner.buf.level}] =
          Written{inner.buf, path_, pipe, access_signature(acc)};
    }
    if (reused) {
      direct_uses_.push_back({reused, path_, pipe});
      return stages.back();
    }
    // Who touches the home buffer (or DRAM) for the operators on either side of an intermediate.
    if (w_.tensors[t].is_intermediate()) {
      LocalUse& use = local_uses_[{acc.tensor, home_node_[t]}];
      use.copies = home_node_[t] >= 0 ? outer.buf.copies : 1;
      if (output) use.producer = path_, use.writer = n > 1 ? engine(out[1], false) : pipe;
      else use.consumers.push_back(path_), use.readers.push_back(n > 1 ? engine(in[1], true) : pipe);
    }
    return stages.back();
  }

  void plan_compute(Item& c) {
    const model::Op& x = op(c.op);
    const Pipe pipe = x.unit == arch::UnitKind::Matrix ? Pipe::Matrix : Pipe::Vector;
    OperandRefs refs;
    bool carry = false;  // partial sums come back from outside: always accumulate
    Stage out;
    for (size_t k = 0; k <= x.inputs.size(); ++k) {
      const bool output = k == x.inputs.size();
      const model::TensorAccess& acc = output ? x.out : x.inputs[k];
      const Stage st = plan_access(x, pipe, acc, output, c, carry);
      if (output) out = st;
      const std::vector<int64_t> shape_later;  // matrix_code / vector_code set sizes and strides
      const OperandRef operand{block_in(st.buf, st.pos, acc, path_.size() - 1, shape_later), st.buf, &acc};
      if (output) refs.out = operand;
      else refs.in.push_back(operand);
    }
    // Reduction loops inside the result's buffer: start from zero at their first iteration.
    int64_t init_mask = 0;
    if (!carry)
      for (size_t p = static_cast<size_t>(std::max(out.pos, 0L)); p + 1 < path_.size(); ++p)
        if (program_loop(p) && is_reduction(x, path_[p]->dim)) init_mask |= int64_t{1} << loops_between(0, p).size();
    const bool accumulate = carry || init_mask != 0;
    if (x.unit == arch::UnitKind::Vector && accumulate)
      refuse("operator '" + x.name + "' reduces over a loop above its on-chip tile; lowering needs a vector reduction's "
             "reduced dimensions inside one tile");
    c.code = x.unit == arch::UnitKind::Matrix ? matrix_code(w_, x, c.block, refs, accumulate, init_mask)
                                              : vector_code(w_, x, c.block, refs);
  }

  // Flags around intermediates that one pipe writes and another reads: readers wait for the
  // writer's result; the writer waits until the readers are done before overwriting it.
  void sync_locals() {
    for (const DirectUse& d : direct_uses_) {
      auto [wp, rp] = diverge(d.written->producer, d.consumer);
      hand_over(*wp, *rp, *wp, *rp, d.written->writer, d.reader, d.written->buf.copies, flags_);
    }
    for (auto& [key, use] : local_uses_) {
      if (use.producer.empty()) continue;  // this core has no share of the producer (barriers order it)
      std::vector<Pipe> done;
      for (size_t r = 0; r < use.consumers.size(); ++r) {
        const Pipe reader = use.readers[r];
        if (reader == use.writer || std::count(done.begin(), done.end(), reader)) continue;
        done.push_back(reader);
        size_t last = r;
        for (size_t q = r; q < use.consumers.size(); ++q)
          if (use.readers[q] == reader) last = q;
        auto [wp, rp] = diverge(use.producer, use.consumers[r]);
        auto [wq, rq] = diverge(use.producer, use.consumers[last]);
        hand_over(*wp, *rp, *wq, *rq, use.writer, reader, use.copies, flags_);
      }
    }
  }

  // Transfers with their handover flags, in planning order; an item's fills go in front of it,
  // outer buffers first.
  void attach_transfers() {
    std::map<Item*, std::vector<Instruction>> pre;
    std::vector<Item*> order;
    for (const Transfer& t : transfers_) {
      const Chain c = sequence(t.copies, a_, flags_);
      if (!t.fill) {
        drain_around(*t.at, t.writes_at ? *t.writes_at : *t.at, c, t.inside, t.buffer_copies, flags_);
        continue;
      }
      if (!pre.count(t.at)) order.push_back(t.at);
      fill_around(*t.at, c, t.inside, t.buffer_copies, flags_, pre[t.at]);
    }
    for (Item* it : order) it->before.insert(it->before.begin(), pre[it].begin(), pre[it].end());
  }

  void check_capacity() const {
    for (size_t l = 1; l < used_.size(); ++l) {
      const auto& lv = a_.levels[l];
      const double bytes = static_cast<double>(used_[l]) * lv.word_bytes;
      if (lv.unlimited() || bytes <= lv.capacity_bytes) continue;
      const Doubled* largest = nullptr;
      for (const Doubled& d : doubled_)
        if (d.level == static_cast<int>(l) && (!largest || d.elems > largest->elems)) largest = &d;
      if (largest) throw TooBig{largest->id};
      refuse("the program's buffers need " + std::to_string(static_cast<int64_t>(bytes)) + " B of " + lv.name + ", which holds " +
             std::to_string(static_cast<int64_t>(lv.capacity_bytes)) + " B (lowering keeps one buffer per tensor and operator)");
    }
  }
};

}  // namespace

arch::Program plan_program(const arch::Arch& a, const model::Workload& w, const model::Dataflow& f, Skeleton s,
                           int64_t core, arch::DType dtype) {
  // Double buffers where they fit: while a level overflows, its largest double buffer goes
  // single (each try adds one, so this ends).
  std::set<int> single;
  for (;;) {
    try {
      Skeleton attempt = s;  // planning writes into the skeleton: keep `s` clean for a retry
      return Planner(a, w, f, attempt, core, dtype, single).run();
    } catch (const Planner::TooBig& too_big) {
      single.insert(too_big.largest);
    }
  }
}

}  // namespace dfx::mapper::lowering
