"""probe_loop.py: a periodic Python loop that marks its cycles with the jitterlab probe.

Run it under jitterlab with `exec = python3 examples/probe_loop.py 10 2` and `measure = probe`: a 10 ms
period, 2 ms of pure-Python work per cycle. PYTHONPATH must reach python/ (jitterlab sets nothing; from the
source tree: `PYTHONPATH=python`, after `make install` the module is on Debian's path). Prints the cycles
it ran when it ends (SIGINT/SIGTERM)."""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import jitterlab_probe as probe  # noqa: E402

stop = False


def on_signal(sig, frame):
    global stop
    stop = True


def main():
    period = int(float(sys.argv[1] if len(sys.argv) > 1 else 10) * 1e6)
    work = int(float(sys.argv[2] if len(sys.argv) > 2 else 1) * 1e6)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    probe.init()
    probe.name("loop")
    cycles = 0
    nxt = time.monotonic_ns() + period
    while not stop:
        delay = nxt - time.monotonic_ns()
        if delay > 0:
            time.sleep(delay / 1e9)
        if stop:
            break
        probe.wake(nxt)
        t = time.monotonic_ns()
        while time.monotonic_ns() - t < work:
            pass
        probe.end()
        cycles += 1
        nxt += period
    print(f"probe_loop.py: {cycles} cycles", flush=True)


if __name__ == "__main__":
    main()
