"""jitterlab_probe: mark the cycles of a Python loop so that jitterlab measures them.

    import jitterlab_probe as probe

    probe.init()                          # optional, once per thread, before its loop: connects it
    probe.name("control")                 # optional, once per thread: the series' name
    while True:
        time.sleep(max(0, (nxt - time.monotonic_ns()) / 1e9))
        probe.wake(nxt)                   # the CLOCK_MONOTONIC ns the loop meant to wake (0: none)
        work()
        probe.end()
        nxt += period_ns

A server whose workers each serve any method marks a request with its method's series instead:
probe.wake(sent_ns, series="ping") ... probe.end(). Every thread's wakes of one series name make that
series; wakes and ends nest (the end closes the thread's latest open wake), so a request's own outgoing
call can be marked inside it.

Run it under jitterlab as `exec = python3 my_loop.py` with `measure = probe`. It writes the same records
as jitterlab/probe.h, the same way: each thread gets a ring in memory the run shares with the program,
and a call stores one 32-byte record stamped with time.monotonic_ns() (CLOCK_MONOTONIC, the clock of the
run's trace) and the CPU; jitterlab drains the rings and writes the records into trace.dat where they
happened. No system call, and the interpreter lock is never released (a GIL experiment measures exactly
that hand-over). On x86-64 only (the record must be visible before its head moves, which x86 stores
guarantee); elsewhere, for a thread past the run's rings, or with JITTERLAB_PROBE_RING=0, each call
writes the record to the run's trace_marker_raw through ctypes.PyDLL (write(2) with the lock held).
Outside a jitterlab run every call is a no-op (one test).
JITTERLAB_PROBE names a unix socket on which the run hands over an open descriptor of the marker and, asked
with the thread's id, the rings' memory and which ring is the thread's (SCM_RIGHTS); a program running as
root falls back to opening JITTERLAB_PROBE_MARKER. When neither works the probe says so once on stderr."""
import ctypes
import mmap
import os
import platform
import socket
import struct
import sys
import threading
import time

PROBE_ID = 0x4A4C5042  # "JLPB"
RING_MAGIC = 0x4A4C5052  # "JLPR"
RING_VERSION = 1
WAKE, END, NAME, SERIES = 1, 2, 3, 4
_REC = struct.Struct("<IIq")     # id, kind, release_ns: WAKE and END (the marker's)
_NAMED = struct.Struct("<IIq16s")  # and the name: NAME, SERIES
# the ring's (include/jitterlab/probe.h): native order and alignment, so that the head is one 8-byte store
_AREA = struct.Struct("@IIIIII")   # magic, version, nrings, cap, ctl_off, rec_off
_U64 = struct.Struct("@Q")
_RREC = struct.Struct("@qIiq8x")   # ts, kind, cpu, release_ns: 32 bytes
_RNAMED = struct.Struct("@qIi16s")
_REQ = struct.Struct("@Ii")        # magic, tid
_ANS = struct.Struct("@IiQ")       # magic, ring, size

_fd = -2       # -2: not connected yet, -1: no run
_write = None  # libc write(2), called with the interpreter lock held
_getcpu = None  # libc sched_getcpu (rseq or the vDSO)
_area = None   # the rings' memory, mapped once
_series_bytes = {}  # wake(series=): each name encoded once
_lock = threading.Lock()  # one connection, whichever thread calls first
class _Me(threading.local):
    """Per thread: its ring ([head, tail as last read, control, records, mask]), None for the marker, 0 when
    not asked yet (a class attribute: reading it never raises, which would cost more than the call)."""
    ring = 0


_me = _Me()
_RING_OK = platform.machine() in ("x86_64", "AMD64") and os.environ.get("JITTERLAB_PROBE_RING") != "0"


def _forked():
    """In a forked child: its thread is not the parent's, nor is its ring (it asks again at its first call)."""
    global _fd
    _me.ring = 0
    if _fd >= 0:
        _fd = -2


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def _take_ring(afd, size, ring):
    """Map the area (once) and make ring RING the calling thread's. False when it is not one."""
    global _area
    if _area is None:
        flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
        _area = mmap.mmap(afd, size, flags=flags, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    magic, version, nrings, cap, ctl_off, rec_off = _AREA.unpack_from(_area, 0)
    if (magic != RING_MAGIC or version != RING_VERSION or not 0 <= ring < nrings or cap <= 0 or cap & (cap - 1)
            or ctl_off + nrings * 128 > size or rec_off + nrings * cap * 32 > size):
        return False
    ctl = ctl_off + ring * 128
    # [head, tail as last read, control, records, mask]: the thread is the head's only writer, and the
    # tail is read again only when the ring looks full
    _me.ring = [_U64.unpack_from(_area, ctl)[0], _U64.unpack_from(_area, ctl + 64)[0], ctl, rec_off + ring * cap * 32,
                cap - 1]
    return True


def _connect(path, want_ring):
    """The marker's descriptor from the run (-1: refused), and with WANT_RING this thread's ring."""
    _me.ring = None
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.settimeout(5)
        s.connect(path)
        _, fds, _, _ = socket.recv_fds(s, 1, 1, socket.MSG_CMSG_CLOEXEC)
        if not fds:
            return -1
        if want_ring:
            try:
                s.sendall(_REQ.pack(RING_MAGIC, threading.get_native_id()))
                msg, afds, _, _ = socket.recv_fds(s, _ANS.size, 1, socket.MSG_CMSG_CLOEXEC)
                try:
                    if len(msg) == _ANS.size and afds:
                        magic, ring, size = _ANS.unpack(msg)
                        if magic == RING_MAGIC and ring >= 0:
                            _take_ring(afds[0], size, ring)
                finally:
                    for f in afds:
                        os.close(f)
            except (OSError, ValueError):
                _me.ring = None  # the marker, then
        return fds[0]
    finally:
        s.close()


def init():
    """Connect to the run (the program once, the calling thread's ring once). True when records go to a run."""
    with _lock:
        return _init()


def _init():
    global _fd, _write, _getcpu
    sock = os.environ.get("JITTERLAB_PROBE")
    if _fd >= 0:  # connected: this thread's ring, once
        if _me.ring == 0:
            _me.ring = None
            if _RING_OK and sock:
                try:
                    os.close(_connect(sock, True))
                except OSError:
                    pass
        return True
    if _fd != -2:
        return False
    if not sock:
        _fd = -1
        return False
    fd = -1
    why = ""
    try:
        fd = _connect(sock, _RING_OK)
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
    _getcpu = libc.sched_getcpu
    _getcpu.argtypes = ()
    _getcpu.restype = ctypes.c_int
    _fd = fd
    return True


def _ring():
    """This thread's ring, None for the marker; False: no run."""
    r = _me.ring
    if r == 0:  # not asked yet
        if not init():
            return False
        r = _me.ring
    return r


def _put(r, kind, release_ns, name):
    head, tail, ctl, recs, mask = r
    if head - tail > mask:
        r[1] = tail = _U64.unpack_from(_area, ctl + 64)[0]
        if head - tail > mask:  # full: counted, never waited for
            _U64.pack_into(_area, ctl + 8, _U64.unpack_from(_area, ctl + 8)[0] + 1)
            return
    if name is None:
        _RREC.pack_into(_area, recs + (head & mask) * 32, time.monotonic_ns(), kind, _getcpu(), release_ns)
    else:
        _RNAMED.pack_into(_area, recs + (head & mask) * 32, time.monotonic_ns(), kind, _getcpu(), name)
    r[0] = head + 1
    _U64.pack_into(_area, ctl, head + 1)  # after the record: x86 keeps the order of stores


def wake(release_ns=0, series=None):
    """The loop woke for the cycle due at RELEASE_NS (CLOCK_MONOTONIC ns; 0 when it has none). SERIES
    (at most 15 characters of [a-z0-9_-]): this wake belongs to that series, not to the thread's."""
    r = _me.ring
    if r and r[0] - r[1] < r[4]:  # room for two records: the common case, _put inlined (each call costs what
        head = r[0]               # it measures), a SERIES record and its WAKE published together
        if series is not None:
            b = _series_bytes.get(series)
            if b is None:
                b = series.encode()[:15]
                if len(_series_bytes) < 256:  # a program's methods, not names made per request
                    _series_bytes[series] = b
            _RNAMED.pack_into(_area, r[3] + (head & r[4]) * 32, time.monotonic_ns(), SERIES, _getcpu(), b)
            head += 1
        _RREC.pack_into(_area, r[3] + (head & r[4]) * 32, time.monotonic_ns(), WAKE, _getcpu(), release_ns)
        r[0] = head + 1
        _U64.pack_into(_area, r[2], head + 1)
        return
    if _fd == -1:
        return
    r = r or _ring()
    if r and series is not None:  # the name and its wake both, or neither (a name alone would go to the next wake)
        r[1] = _U64.unpack_from(_area, r[2] + 64)[0]
        if r[0] - r[1] >= r[4]:  # no room for two: both counted lost, never waited for
            _U64.pack_into(_area, r[2] + 8, _U64.unpack_from(_area, r[2] + 8)[0] + 2)
            return
        _put(r, SERIES, 0, series.encode()[:15])
    elif series is not None:
        _named(SERIES, series)
    if r:
        _put(r, WAKE, release_ns, None)
    elif r is None:
        _write(_fd, _REC.pack(PROBE_ID, WAKE, release_ns), _REC.size)


def end():
    """The cycle's work ended."""
    r = _me.ring
    if r and r[0] - r[1] <= r[4]:
        head = r[0]
        _RREC.pack_into(_area, r[3] + (head & r[4]) * 32, time.monotonic_ns(), END, _getcpu(), 0)
        r[0] = head + 1
        _U64.pack_into(_area, r[2], head + 1)
        return
    if _fd == -1:
        return
    r = r or _ring()
    if r:
        _put(r, END, 0, None)
    elif r is None:
        _write(_fd, _REC.pack(PROBE_ID, END, 0), _REC.size)


def _named(kind, text):
    if _fd == -1:
        return
    r = _ring()
    b = text.encode()[:15]
    if r:
        _put(r, kind, 0, b)
    elif r is None:
        _write(_fd, _NAMED.pack(PROBE_ID, kind, 0, b), _NAMED.size)


def name(text):
    """Name this thread's series (at most 15 characters of [a-z0-9_-])."""
    _named(NAME, text)
