"""Running many `dfx explore` searches on a few cores (tools/sweep.py, seeds.py, results.py).

Separate processes scale better than one search's threads (two single-thread searches side by
side each run as fast as one alone; one search on two threads runs ~1.5x as fast), and a search's
result never depends on its thread count. So with several searches to run, up to `jobs` of them
run at once, each given its share of the threads.
"""
import concurrent.futures


def run_all(run, items, jobs):
    """[run(item, threads) for item in items], up to `jobs` at a time, in the order of `items`.
    The threads are shared out among the searches that run at once: with fewer searches than
    jobs, the first ones get one more each (jobs=3, two searches: 2 and 1)."""
    items = list(items)
    at_once = max(1, min(jobs, len(items)))
    threads = [max(1, jobs // at_once + (1 if i % at_once < jobs % at_once else 0)) for i in range(len(items))]
    with concurrent.futures.ThreadPoolExecutor(max_workers=at_once) as pool:
        return list(pool.map(run, items, threads))
