"""probe_cost.py MODULE_DIR [PAIRS]: the cost of one probe call in Python (python/jitterlab_probe.py), the
twin of probe_cost.c. Run under jitterlab (exec with measure = probe): through the thread's ring (or, with
JITTERLAB_PROBE_RING=0, the trace marker); outside a run: the no-op. Bursts of 200 pairs, 20 ms apart (the
run drains the ring every 5 ms: no call finds it full), only the bursts timed. Prints
"probe_cost (python): N pairs, X ns per call (connected|no run)"."""
import sys
import time

sys.path.insert(0, sys.argv[1])
import jitterlab_probe as p  # noqa: E402

ok = p.init()
n, burst, spent = int(sys.argv[2]) if len(sys.argv) > 2 else 20000, 200, 0
for _ in range(n // burst):
    t = time.monotonic_ns()
    for i in range(burst):
        p.wake(0)
        p.end()
    spent += time.monotonic_ns() - t
    if ok:
        time.sleep(0.02)
print("probe_cost (python): %d pairs, %.1f ns per call (%s)" % (n, spent / (2 * n), "connected" if ok else "no run"))
