#!/usr/bin/env python3
"""What a stalled RT-lane guest was doing, seen from outside it (tests/rt/guest.sh calls this at a stall).

    stall-evidence.py --qpid PID --monitor SOCK --kallsyms FILE --console LOG

Prints, in order: qemu's threads (state, CPU time used over 2 s: a busy vCPU thread spins, an idle one
waits), the monitor's `info cpus`, `info registers -a` (the general registers, each RIP named from the
guest's text symbols, copied out of its /proc/kallsyms at boot) and `info lapic` of each vCPU (the
timer's mode, initial and current count; the interrupts requested and in service), eight samples of
each vCPU's RIP half a second apart (a spin stays in one place; IF says whether it may take an
interrupt), the kernel text addresses on each vCPU's stack (a rough backtrace), then asks the guest
for sysrq 9 (the console's loglevel), l, w and t through the emulated keyboard and says how much the
console grew in the 30 s after. A guest whose timer interrupts stopped answers nothing; one that runs
answers with every CPU's stack. A monitor that does not answer is qemu's main loop stuck (it runs the
monitor and the emulated timers).
"""
import argparse
import bisect
import os
import re
import socket
import sys
import time

PROMPT = b"(qemu) "
CLK_TCK = os.sysconf("SC_CLK_TCK")


def threads(qpid):
    """tid -> (comm, state, utime+stime ticks) for each qemu thread."""
    out = {}
    base = f"/proc/{qpid}/task"
    for tid in sorted(os.listdir(base), key=int):
        try:
            with open(f"{base}/{tid}/stat") as f:
                s = f.read()
        except OSError:
            continue
        comm = s[s.index("(") + 1:s.rindex(")")]
        rest = s[s.rindex(")") + 2:].split()
        out[int(tid)] = (comm, rest[0], int(rest[11]) + int(rest[12]))
    return out


def print_threads(qpid):
    a = threads(qpid)
    time.sleep(2)
    b = threads(qpid)
    print("== qemu threads over 2 s (state now, CPU used)")
    for tid, (comm, state, ticks) in b.items():
        used = ticks - a.get(tid, (comm, state, ticks))[2]
        print(f"  {tid:>7} {comm:<16} {state}  {used * 1000 // CLK_TCK:>5} ms of 2000")


class Monitor:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(20)
        self.s.connect(path)
        self.read()

    def read(self):
        buf = b""
        while not buf.endswith(PROMPT):
            chunk = self.s.recv(65536)
            if not chunk:
                break
            buf += chunk
        return buf

    def cmd(self, line):
        self.s.sendall(line.encode() + b"\n")
        text = self.read().decode(errors="replace")
        text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text).replace("\r", "")
        lines = text.split("\n")
        # the echo of the command first, the prompt last
        return "\n".join(l for l in lines[1:] if l.strip() and not l.startswith("(qemu)"))


class Symbols:
    def __init__(self, kallsyms):
        pairs = []
        if kallsyms and os.path.exists(kallsyms):
            with open(kallsyms) as f:
                for line in f:
                    p = line.split()
                    if len(p) >= 3:
                        pairs.append((int(p[0], 16), " ".join(p[2:])))
        pairs.sort()
        self.addr = [a for a, _ in pairs]
        self.name = [n for _, n in pairs]

    def near(self, a):
        """(the text symbol at or below A, A's offset from it), or (None, 0)."""
        i = bisect.bisect_right(self.addr, a) - 1
        return (self.name[i], a - self.addr[i]) if i >= 0 else (None, 0)

    def __call__(self, rip):
        name, off = self.near(rip)
        return f"{name}+0x{off:x}" if name else "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qpid", type=int, required=True)
    ap.add_argument("--monitor", required=True)
    ap.add_argument("--kallsyms")
    ap.add_argument("--console", required=True)
    a = ap.parse_args()
    try:
        print_threads(a.qpid)
    except OSError as e:
        print(f"== qemu threads: {e}")
    sym = Symbols(a.kallsyms)
    try:
        return ask_monitor(a, sym)
    except OSError as e:  # socket.timeout is one
        print(f"== monitor {a.monitor}: no answer ({e or 'timed out'}): qemu's main loop is stuck "
              "(it runs the monitor and the emulated timers)")
        print_threads(a.qpid)
        return 1


def rips(mon):
    """Each vCPU's (RIP, RFL, HLT) now."""
    out = []
    for line in mon.cmd("info registers -a").split("\n"):
        m = re.search(r"RIP=([0-9a-f]{16}) RFL=([0-9a-f]{8}).*HLT=(\d)", line)
        if m:
            out.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
    return out


def rip_samples(mon, sym, n=8):
    """Where each vCPU is, N times 0.5 s apart: one place (a spin) or many (still running code). IF: may
    it take an interrupt (RFL bit 9)."""
    print(f"== RIP of each vCPU, {n} samples 0.5 s apart")
    for _ in range(n):
        print("  " + " | ".join(f"CPU{i} {sym(r)} IF={f >> 9 & 1} HLT={h}" for i, (r, f, h) in enumerate(rips(mon))))
        time.sleep(0.5)


def stack_scan(mon, sym, cpu, words=96):
    """The kernel text addresses on vCPU CPU's stack, from its RSP up (a rough backtrace: stale frames
    show too)."""
    mon.cmd(f"cpu {cpu}")
    regs = mon.cmd("info registers")
    m = re.search(r"RSP=([0-9a-f]{16})", regs)
    if not m:
        return
    dump = mon.cmd(f"x /{words}gx 0x{m.group(1)}")
    found = []
    for v in re.findall(r"0x([0-9a-f]{16})", dump):
        a = int(v, 16)
        name, off = sym.near(a)
        if a >> 40 == 0xffffff and name and off < 0x4000:
            found.append(f"{name}+0x{off:x}")
    print(f"== CPU{cpu}'s stack from RSP {m.group(1)}: kernel text addresses, innermost first")
    print("  " + (" < ".join(found[:24]) if found else "(none)"))


def ask_monitor(a, sym):
    mon = Monitor(a.monitor)
    print("== info cpus")
    print(mon.cmd("info cpus"))
    regs = mon.cmd("info registers -a")
    print("== info registers -a (the general registers; RIP named)")
    for line in regs.split("\n"):
        m = re.search(r"RIP=([0-9a-f]{16})", line)
        if m:
            line += f"   <{sym(int(m.group(1), 16))}>"
        if re.match(r"(CPU#|R[A-Z0-9 ]{2}=|CR0=|EFER=)", line):
            print(line)
    ncpu = len(re.findall(r"^CPU#\d+", regs, re.M)) or 1
    for cpu in range(ncpu):
        print(f"== info lapic {cpu}")
        print(mon.cmd(f"info lapic {cpu}"))
    rip_samples(mon, sym)
    for cpu in range(ncpu):
        stack_scan(mon, sym, cpu)
    size0 = os.path.getsize(a.console)
    for key in ("9", "l", "w", "t"):  # 9: the console's loglevel up, so that the dumps reach it
        mon.cmd(f"sendkey alt-sysrq-{key}")
        time.sleep(1)
    time.sleep(26)
    grew = os.path.getsize(a.console) - size0
    print(f"== sysrq 9, l, w, t sent through the keyboard: the console grew {grew} bytes in 30 s"
          + (" (the guest answers: not a whole-guest freeze)" if grew else " (no answer)"))
    print("== info cpus, 30 s later")
    print(mon.cmd("info cpus"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
