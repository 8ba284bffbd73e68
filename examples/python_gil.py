"""python_gil.py: the published ROS 2 Python experiment, without ROS: a 100 Hz control loop beside a scan
callback that sums sin() in pure Python, both marking their cycles with the jitterlab probe.

  python3 examples/python_gil.py [--scan thread|process|none] [--handoffs N] [--control other|fifo:PRIO]
                                 [--control-cpu N] [--scan-cpu N] [--scan-iterations N] [--rate HZ]
                                 [--scan-rate HZ]

--scan thread: the scan runs in a second thread of this process (the two share CPython's interpreter lock);
       process: in a process of its own (no lock shared); none: no scan.
--handoffs N: N extra lock hand-offs per control tick (time.sleep(0) releases the interpreter lock and takes
       it back), as an executor's wait-set round trips do; each costs up to one switch interval (5 ms)
       while the scan holds the lock. 0: a plain two-thread script.
--control fifo:80: the control thread (only it) runs SCHED_FIFO 80; --control-cpu/--scan-cpu pin one
       thread each (the placement of the whole process is the scenario's: cpus, policy).
Under jitterlab: `exec = python3 examples/python_gil.py ...` with `measure = probe`: series NAME.control
(every tick) and NAME.scan (every scan). Prints its own tick and scan counts when it ends."""
import argparse
import ctypes
import math
import os
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import jitterlab_probe as probe  # noqa: E402

libc = ctypes.CDLL(None)
stop = threading.Event()


def name_thread(name):
    libc.prctl(15, name.encode(), 0, 0, 0)  # PR_SET_NAME: the name the trace shows
    probe.name(name)


def place(policy, cpu):
    if cpu is not None and cpu >= 0:
        os.sched_setaffinity(0, {cpu})  # 0: the calling thread
    if policy and policy.startswith("fifo:"):
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(int(policy[5:])))


def scan(args, counts):
    name_thread("scan")
    place(None, args.scan_cpu)
    period = int(1e9 / args.scan_rate)
    nxt = time.monotonic_ns()
    while not stop.is_set():
        delay = nxt - time.monotonic_ns()
        if delay > 0:
            time.sleep(delay / 1e9)
        probe.wake(nxt)
        r = 0.0
        for i in range(args.scan_iterations):
            r += math.sin(i)
            if i & 0xFFFFF == 0 and stop.is_set():  # an end of run stops a 3 s scan within ~0.1 s
                break
        probe.end()
        counts["scan"] += 1
        counts["scan_s"].append((time.monotonic_ns() - nxt) / 1e9)
        nxt = max(nxt + period, time.monotonic_ns())


def control(args, counts):
    name_thread("control")
    place(args.control, args.control_cpu)
    period = int(1e9 / args.rate)
    nxt = time.monotonic_ns() + period
    while not stop.is_set():
        delay = nxt - time.monotonic_ns()
        if delay > 0:
            time.sleep(delay / 1e9)
        probe.wake(nxt)
        for _ in range(args.handoffs):
            time.sleep(0)
        cmd = sum(math.sin(i) for i in range(100))  # compute a command
        probe.end()
        counts["control"] += 1
        nxt += period
        now = time.monotonic_ns()
        if now > nxt:  # late: the next tick is the next period boundary (a timer does not catch up)
            nxt += ((now - nxt) // period + 1) * period
    return cmd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scan", choices=("thread", "process", "none"), default="thread")
    ap.add_argument("--handoffs", type=int, default=0)
    ap.add_argument("--control", default="other")
    ap.add_argument("--control-cpu", type=int, default=None)
    ap.add_argument("--scan-cpu", type=int, default=None)
    ap.add_argument("--scan-iterations", type=int, default=50_000_000)
    ap.add_argument("--rate", type=float, default=100.0)
    ap.add_argument("--scan-rate", type=float, default=60.0)
    args = ap.parse_args()
    counts = {"control": 0, "scan": 0, "scan_s": []}
    signal.signal(signal.SIGINT, lambda *a: stop.set())
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    child = 0
    if args.scan == "process":
        child = os.fork()  # before any thread: the scan process has the interpreter to itself
        if child == 0:
            # nothing has connected before the fork: the scan process connects on its first record
            signal.signal(signal.SIGINT, lambda *a: stop.set())
            scan(args, counts)
            print(f"python_gil scan process: {counts['scan']} scans", flush=True)
            print("".join(f"scan {i}: {d:.3f} s\n" for i, d in enumerate(counts["scan_s"])), end="", flush=True)
            os._exit(0)
    probe.init()
    threads = [threading.Thread(target=control, args=(args, counts), daemon=True)]
    if args.scan == "thread":
        threads.append(threading.Thread(target=scan, args=(args, counts), daemon=True))
    for t in threads:
        t.start()
    while not stop.is_set():
        stop.wait(0.5)
    if child:
        os.kill(child, signal.SIGINT)
        os.waitpid(child, 0)
    print(f"python_gil: {counts['control']} control ticks, {counts['scan']} scans", flush=True)
    print("".join(f"scan {i}: {d:.3f} s\n" for i, d in enumerate(counts["scan_s"])), end="", flush=True)


if __name__ == "__main__":
    main()
