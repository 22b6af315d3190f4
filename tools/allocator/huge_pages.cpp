// Backs mimalloc's heap with 2 MiB transparent huge pages in the executables that search.
//
// A search's memory only grows (the trees and reports it keeps to answer repeats, the phase and
// shape caches): 10,000 candidates of attention G1 / edge touch ~40 MB, page by page: ~7,700
// minor faults. On the VMs dfx is measured on a fault costs several microseconds, a quarter of
// such a run's wall time; on huge pages it takes a few hundred (docs/search-speed.md,
// 2026-12-05). With the option mimalloc first asks for explicit huge pages (MAP_HUGETLB: a
// machine's reserved pool, if it has one), then advises transparent ones (a no-op where THP is
// off), and keeps such segments committed: fine for a search, whose memory only grows.
#include <mimalloc.h>
#include <sys/mman.h>

#include <cstdint>

namespace {

// mimalloc's segments: 32 MiB, aligned to their size (MI_SEGMENT_SHIFT in mimalloc 2.x).
static_assert(MI_MALLOC_VERSION >= 200 && MI_MALLOC_VERSION < 300, "segment size of mimalloc 2.x");
constexpr uintptr_t kSegmentBytes = uintptr_t{1} << 25;

// At load time, before main. Segments mimalloc maps from now on are advised as huge pages,
// each further thread's first one too: mimalloc would delay committing that one and leave large
// pages out of it (a worker of --jobs 2 took 3,000 faults more). The main thread's first
// segment was mapped before (the libraries' own start-up allocates), and a 10,000-candidate
// search lives in it: it is advised here, found from a block it holds. Were the segment laid
// out otherwise, the advice would miss part of it, which only costs speed.
const bool kHugePages = [] {
  mi_option_enable(mi_option_large_os_pages);
  mi_option_set(mi_option_eager_commit_delay, 0);
  void* probe = mi_malloc(16);  // in a segment of mimalloc's, whoever serves malloc
  const uintptr_t segment = reinterpret_cast<uintptr_t>(probe) & ~(kSegmentBytes - 1);
  madvise(reinterpret_cast<void*>(segment), kSegmentBytes, MADV_HUGEPAGE);
  mi_free(probe);
  return true;
}();

}  // namespace
