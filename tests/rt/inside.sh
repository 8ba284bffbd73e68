#!/bin/sh
# PID 1 of the RT lane's guest after switch_root: a machine as it is after boot (cgroup v2 alone, as on
# Ubuntu 24.04; tracefs, debugfs), then the command the host left in OUT/cmd, run in REPO as root. Its
# output goes to the console; its exit status to OUT/rc. Then power off.
repo=$1 out=$2
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb
mount -t proc proc /proc
mount -t sysfs sys /sys
[ -e /dev/null ] || mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
# a fresh /tmp, unless the repository or the output folder lives there (CI may clone into /tmp): then the
# overlay's /tmp (the host's, writes kept in the guest's memory); /run always fresh (journals, the lock)
case "$repo/ $out/" in
    /tmp/*|*" /tmp/"*) ;;
    *) mount -t tmpfs -o mode=1777 tmpfs /tmp ;;
esac
mount -t tmpfs -o mode=755 tmpfs /run
mount -t tmpfs -o mode=755 tmpfs /sys/fs/cgroup
umount /sys/fs/cgroup
mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
hostname rt-guest
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null
echo "rt-guest: $(uname -r) $(cat /sys/kernel/realtime 2>/dev/null | sed 's/1/PREEMPT_RT/'), $(nproc) CPUs, cgroup2 controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
# the kernel's text symbols, for a stall's RIPs (tests/rt/stall-evidence.py; the package's System.map is a
# placeholder), and sysrq for its dumps
awk '$2 ~ /^[tT]$/' /proc/kallsyms > "$out/kallsyms" 2>/dev/null
echo 1 > /proc/sys/kernel/sysrq
# a program that crashes in the lane leaves its core in the output folder (the guest forgets the rest)
ulimit -c unlimited
echo "$out/core.%e.%p" > /proc/sys/kernel/core_pattern
cd "$repo" || { echo 125 > "$out/rc"; sync; echo o > /proc/sysrq-trigger; while :; do :; done; }
# JITTERLAB_GUEST_OUT: the writable share (9p without a cache: each write is an interrupt of its virtio IRQ)
export JITTERLAB_LANE=rt JITTERLAB_GUEST_OUT=$out \
    JITTERLAB_GUEST_ACCEL=$(sed -n 's/.*jl\.accel=\([a-z]*\).*/\1/p' /proc/cmdline)
# A heartbeat every 30 s, and every 2 minutes the tasks that run or wait uninterruptibly (what a stuck lane
# was doing is in its log). The loop runs at FIFO 1 on CPU 0: an RT sleeper's timer expires in the hard
# interrupt on PREEMPT_RT (an ordinary task's waits for ktimers/N, which a test's RT spinner starves), and
# the tests put their spinners on CPU 1. So a console silent for minutes is the guest, not a test
# (tests/rt/guest.sh ends it after RT_STALL_S); ps itself runs as an ordinary task.
( n=0
  while sleep 30; do
      n=$((n + 1))
      echo "rt-guest: $(cut -d' ' -f1 /proc/uptime) s up"
      [ $((n % 4)) -eq 0 ] || continue
      echo "rt-guest: running or in D:"
      chrt -o 0 ps -eo stat,pid,cls,rtprio,psr,wchan:24,args 2>/dev/null | awk '$1 ~ /^[RD]/' | grep -v " ps -eo" | head -20
  done ) &
watch=$!
taskset -pc 0 "$watch" >/dev/null 2>&1 && chrt -f -p 1 "$watch" 2>/dev/null
sh -c "$(cat "$out/cmd")" < /dev/null
echo $? > "$out/rc.tmp" && mv "$out/rc.tmp" "$out/rc"
kill "$watch" 2>/dev/null
sync
echo o > /proc/sysrq-trigger
while :; do :; done  # until the power-off lands
