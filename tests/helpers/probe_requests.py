"""probe_requests.py N: a probed Python "server" for the integration tests: two threads (the main one and a
worker) each serve N requests, alternating between the series "ping" and "price"; a price makes a nested
"call" inside it (python/jitterlab_probe.py's wake(release, series=...)). Each request's release is its own
"send time", 1 ms before its start. After its end record each thread prints "served SERIES RELEASE_NS TID",
so that a test can count what the program served against what jitterlab measured."""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import jitterlab_probe as probe  # noqa: E402

n = int(sys.argv[1])
lock = threading.Lock()
out = []


def serve(first):
    for i in range(n):
        time.sleep(0.005)
        series = ("ping", "price")[(i + first) % 2]
        release = time.monotonic_ns() - 1_000_000
        probe.wake(release, series=series)
        if series == "price":
            call = time.monotonic_ns()
            probe.wake(call, series="call")
            time.sleep(0.002)
            probe.end()
            with lock:
                out.append(f"served call {call} {threading.get_native_id()}")
        probe.end()
        with lock:
            out.append(f"served {series} {release} {threading.get_native_id()}")


print("connected" if probe.init() else "no run", flush=True)
t = threading.Thread(target=serve, args=(1,))
t.start()
serve(0)
t.join()
print("\n".join(out), flush=True)
time.sleep(600)  # outlive the measured phase: the run ends the program
