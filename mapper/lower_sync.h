#pragma once
// Lowering: the flags that hand buffers between pipes. A buffer written by pipe W and read by
// pipe R is handed over with two counters: "ready" (W → R, event 0 of the pair, set right after
// the write and waited for right after that) and "free" (R → W, an event of its own, set when R
// is done with a copy and waited for before W overwrites one; primed with one token per copy).
// Set and wait of each pair sit at the same loop depth, so their counts match.
#include <utility>
#include <vector>

#include "arch/isa.h"
#include "mapper/lower_internal.h"

namespace dfx::mapper::lowering {

arch::Instruction flag(arch::Opcode op, arch::Pipe from, arch::Pipe to, int event);

class Flags {
 public:
  explicit Flags(SourceLoc where) : where_(std::move(where)) {}
  // A fresh "free" event for the pair (1..15). Contract: throws InputError when none is left.
  int fresh(arch::Pipe from, arch::Pipe to);
  // `tokens` sets of from → to at the start of the program.
  void prime(arch::Pipe from, arch::Pipe to, int event, int64_t tokens);
  const std::vector<arch::Instruction>& primes() const { return primes_; }

 private:
  SourceLoc where_;
  int next_[arch::kPipeCount][arch::kPipeCount] = {};
  std::vector<arch::Instruction> primes_;
};

// Transfers in order with the engines they run on: where consecutive copies run on different
// engines, the hop buffer between them is handed over.
struct Chain {
  std::vector<arch::Instruction> code;
  arch::Pipe first = arch::Pipe::Dma, last = arch::Pipe::Dma;
  bool empty() const { return code.empty(); }
};
Chain sequence(const std::vector<arch::Instruction>& copies, const arch::Arch& a, Flags& flags);

// A chain that fills a buffer (copies: its copies) read by `reader` inside `at`: flags before
// and after `at`, appended to `pre` (which goes in front of at.before) and at.after.
void fill_around(Item& at, const Chain& c, arch::Pipe reader, int64_t copies, Flags& flags, std::vector<arch::Instruction>& pre);
// A chain that drains a buffer written by `writer` inside `at`, after `at`; the writer waits
// for the buffer to be free before `writes_at` (`at` or an item inside it that runs once per `at`).
void drain_around(Item& at, Item& writes_at, const Chain& c, arch::Pipe writer, int64_t copies, Flags& flags);
// A handover between two items at the same depth (an intermediate between operators): the
// writer's item sets "ready" after it (after its own transfers out), the reader's item waits for
// it before anything else; "free" back. Call it after the items' transfers are attached.
void hand_over(Item& writer_item, Item& reader_item, Item& writer_next, Item& reader_last, arch::Pipe writer, arch::Pipe reader,
               int64_t copies, Flags& flags);

// The items of two paths just below their last common ancestor.
std::pair<Item*, Item*> diverge(const std::vector<Item*>& a, const std::vector<Item*>& b);

// Where a staging engine that writes a buffer positioned at path[pos] waits for a free copy:
// as late as a wait that runs once per position can sit, down through the groups on the path
// to the operator, stopping at a loop (whose waits run before it, once). At the position itself
// the engine, which moves data for every operator of the tile, held all of them back
// (docs/lowering.md, "Flags").
Item& first_write_item(const std::vector<Item*>& path, size_t pos);

// Cores hand intermediates over through DRAM: unless every core reads exactly what it wrote
// (same core split, same indexing), the consumer starts with a barrier; inside a loop, so does
// the producer's next round. `home_node` per tensor: its fusion tile if it lives on chip.
void place_barriers(Skeleton& s, const model::Workload& w, const std::vector<int>& home_node);

}  // namespace dfx::mapper::lowering
