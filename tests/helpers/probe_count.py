"""probe_count.py PERIOD_MS: a probed Python loop (python/jitterlab_probe.py) for the integration tests.
After each cycle's end record it prints "release NS" (the release its wake record named), so that a test
can count the cycles the program itself ran and compare with what jitterlab measured."""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import jitterlab_probe as probe  # noqa: E402

stop = False


def on_signal(sig, frame):
    global stop
    stop = True


signal.signal(signal.SIGINT, on_signal)
signal.signal(signal.SIGTERM, on_signal)
period = int(float(sys.argv[1]) * 1e6)
print("connected" if probe.init() else "no run", flush=True)
probe.name("counter")
out = []
nxt = time.monotonic_ns() + period
while not stop:
    delay = nxt - time.monotonic_ns()
    if delay > 0:
        time.sleep(delay / 1e9)
    if stop:
        break
    probe.wake(nxt)
    sum(i * i for i in range(2000))
    probe.end()
    out.append(nxt)
    nxt += period
print("\n".join(f"release {r}" for r in out), flush=True)
