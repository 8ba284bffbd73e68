"""jitterlab_probe: mark the cycles of a Python loop so that jitterlab measures them.

    import jitterlab_probe as probe

    probe.name("control")                 # optional, once per thread: the series' name
    while True:
        time.sleep(max(0, (nxt - time.monotonic_ns()) / 1e9))
        probe.wake(nxt)                   # the CLOCK_MONOTONIC ns the loop meant to wake (0: none)
        work()
        probe.end()
        nxt += period_ns

Run it under jitterlab as `exec = python3 my_loop.py` with `measure = probe`. The records go to the run's
tracing instance (trace_marker_raw), with the kernel's clock, exactly as jitterlab/probe.h writes them.

The probe must not change what it measures: os.write releases the interpreter lock, so every call would
hand the lock over (the very effect a GIL experiment measures). The write goes through ctypes.PyDLL,
which calls write(2) with the lock held. Outside a jitterlab run every call is a no-op (one test).
JITTERLAB_PROBE names a unix socket on which the run hands over an open descriptor (SCM_RIGHTS); a
program running as root falls back to opening JITTERLAB_PROBE_MARKER. When neither works the probe says
so once on stderr."""
import ctypes
import os
import socket
import struct
import sys
import threading

PROBE_ID = 0x4A4C5042  # "JLPB"
WAKE, END, NAME = 1, 2, 3
_REC = struct.Struct("<IIq")     # id, kind, release_ns: WAKE and END
_NAMED = struct.Struct("<IIq16s")  # and the name: NAME

_fd = -2       # -2: not connected yet, -1: no run
_write = None  # libc write(2), called with the interpreter lock held
_lock = threading.Lock()  # one connection, whichever thread calls first


def _receive(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        _, fds, _, _ = socket.recv_fds(s, 1, 1, socket.MSG_CMSG_CLOEXEC)
        return fds[0] if fds else -1
    finally:
        s.close()


def init():
    """Connect to the run (once). True when records go to a run."""
    with _lock:
        return _init()


def _init():
    global _fd, _write
    if _fd != -2:
        return _fd >= 0
    sock = os.environ.get("JITTERLAB_PROBE")
    if not sock:
        _fd = -1
        return False
    fd = -1
    why = ""
    try:
        fd = _receive(sock)
    except OSError as e:
        why = e.strerror or str(e)
    marker = os.environ.get("JITTERLAB_PROBE_MARKER")
    if fd < 0 and marker and os.geteuid() == 0:
        try:
            fd = os.open(marker, os.O_WRONLY | os.O_CLOEXEC)
        except OSError as e:
            why = e.strerror or str(e)
    if fd < 0:
        print(f"jitterlab probe: cannot reach the run at {sock} ({why or 'refused: not a program of the run'}): "
              "cycles are not recorded", file=sys.stderr)
        _fd = -1
        return False
    libc = ctypes.PyDLL(None)  # PyDLL: the call keeps the interpreter lock
    _write = libc.write
    _write.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t)
    _write.restype = ctypes.c_ssize_t
    _fd = fd
    return True


def wake(release_ns=0):
    """The loop woke for the cycle due at RELEASE_NS (CLOCK_MONOTONIC ns; 0 when it has none)."""
    if _fd == -1:
        return
    if _fd == -2 and not init():
        return
    _write(_fd, _REC.pack(PROBE_ID, WAKE, release_ns), _REC.size)


def end():
    """The cycle's work ended."""
    if _fd == -1:
        return
    if _fd == -2 and not init():
        return
    _write(_fd, _REC.pack(PROBE_ID, END, 0), _REC.size)


def name(text):
    """Name this thread's series (at most 15 characters of [a-z0-9_-])."""
    if _fd == -1 or (_fd == -2 and not init()):
        return
    _write(_fd, _NAMED.pack(PROBE_ID, NAME, 0, text.encode()[:15]), _NAMED.size)
