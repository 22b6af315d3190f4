#include "model/compulsory.h"

#include <vector>

#include "model/index_set.h"

namespace dfx::model {

CompulsoryBytes compulsory_bytes(const arch::Arch& a, const Workload& w) {
  const OpBoxes whole = OpBoxes::whole(w);
  std::vector<MultiSlice> touched(w.tensors.size());
  for (size_t o = 0; o < w.ops.size(); ++o) {
    const Op& op = w.ops[o];
    touched[static_cast<size_t>(op.out.tensor)].add_access(op.out, whole[o]);
    for (const auto& in : op.inputs) touched[static_cast<size_t>(in.tensor)].add_access(in, whole[o]);
  }
  CompulsoryBytes b;
  for (size_t t = 0; t < w.tensors.size(); ++t)
    if (!w.tensors[t].is_intermediate())
      (w.tensors[t].producer >= 0 ? b.outputs : b.inputs) += static_cast<double>(touched[t].size()) * a.levels[0].word_bytes;
  return b;
}

}  // namespace dfx::model
