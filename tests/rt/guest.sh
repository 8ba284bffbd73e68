#!/usr/bin/env bash
# The PREEMPT_RT lane's guest: Debian's real-time kernel (linux-image-rt-amd64) booted fresh under qemu, with
# cgroup v2 alone mounted, the host's root shared read-only over 9p under a tmpfs overlay, one command run
# inside as root, its output and exit status brought back. Nothing is installed into the host's /boot: the
# kernel package is unpacked into the build tree and the initramfs is made from busybox-static and the
# kernel's own modules.
#
#   tests/rt/guest.sh prepare                    fetch + unpack the kernel, build the initramfs (idempotent)
#   tests/rt/guest.sh run [--out DIR] [--timeout S] -- CMD...
#                                                boot a fresh guest, run CMD (a shell line) in this repository,
#                                                power off; exit with CMD's status (125: the guest failed)
#   tests/rt/guest.sh info                       the kernel version and the accelerator a run would use
#
# Environment: RT_BUILD (default build/rt), RT_MEM (2048 MB), RT_SMP (2), RT_ACCEL (kvm|tcg, default: kvm
# where /dev/kvm works, else tcg), RT_STALL_S (150: a guest silent this long has stalled), RT_CPU (the
# -cpu model: host under kvm, max under tcg), RT_TCG (the TCG threading), RT_APPEND (more of the guest
# kernel's command line). What the guest sees: the host's whole / (read-only, writes go to tmpfs),
# a fresh /sys/fs/cgroup (cgroup2 only), tracefs, debugfs; DIR (default RT_BUILD/out) is shared writable.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${RT_BUILD:-$repo/build/rt}
case $build in /*) ;; *) build=$repo/$build ;; esac
meta=linux-image-rt-amd64
# the modules the initramfs loads to reach the host's root: their dependencies are read from each module
want_modules=(virtio_pci 9pnet_virtio 9p overlay)

die() { echo "rt-guest: $*" >&2; exit 125; }

# The kernel package the meta-package depends on now (Debian removes superseded versions: follow it).
kernel_package() {
    apt-cache depends "$meta" 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}'
}

# Load order of the wanted modules and their dependencies (each module's .modinfo "depends=" field; there is
# no modules.dep in the package and no modinfo/kmod on a new machine).
module_order() {
    local moddir=$1; shift
    local -A path=() done=()
    local f
    while IFS= read -r f; do path[$(basename "$f" .ko)]=$f; done < <(find "$moddir/kernel" -name '*.ko')
    visit() {
        local m=$1 d
        [ -n "${done[$m]:-}" ] && return 0
        [ -n "${path[$m]:-}" ] || die "module $m not in the kernel package"
        done[$m]=1
        for d in $(strings -a "${path[$m]}" | sed -n 's/^depends=//p' | tr ',' ' '); do visit "$d"; done
        echo "${path[$m]}"
    }
    for f in "$@"; do visit "$f"; done
}

prepare() {
    command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing (scripts/install-deps.sh installs qemu-system-x86)"
    [ -x /bin/busybox ] || [ -x /usr/bin/busybox ] || die "busybox is missing (install busybox-static)"
    local pkg
    pkg=$(kernel_package)
    [ -n "$pkg" ] || { apt-get update -qq >/dev/null 2>&1 || true; pkg=$(kernel_package); }
    [ -n "$pkg" ] || die "apt knows no $meta (is the Debian archive in the sources?)"
    local kdir=$build/kernel
    if [ "$(cat "$kdir/PACKAGE" 2>/dev/null)" != "$pkg" ] || [ ! -f "$build/initramfs.gz" ]; then
        rm -rf "$build/dl" "$kdir" "$build/initramfs" "$build/initramfs.gz"
        mkdir -p "$build/dl" "$kdir"
        echo "rt-guest: fetching $pkg (unpacked into $kdir, never installed)"
        # lists older than the archive name a superseded version: refresh them once and follow the meta-package
        if ! (cd "$build/dl" && apt-get download "$pkg" >/dev/null 2>&1); then
            apt-get update -qq >/dev/null 2>&1 || true
            pkg=$(kernel_package)
            (cd "$build/dl" && apt-get download "$pkg" >/dev/null 2>&1) || die "apt-get download $pkg failed"
        fi
        dpkg-deb -x "$build"/dl/"$pkg"_*.deb "$kdir"
        rm -rf "$build/dl"
        echo "$pkg" > "$kdir/PACKAGE"
        build_initramfs "$kdir"
    fi
}

build_initramfs() {
    local kdir=$1 moddir ir=$build/initramfs bb
    moddir=$(echo "$kdir"/lib/modules/*)
    [ -d "$moddir" ] || die "no modules in $kdir"
    bb=$(command -v busybox)
    ldd "$bb" >/dev/null 2>&1 && die "$bb is not static (install busybox-static)"
    mkdir -p "$ir"/{bin,dev,proc,sys,mnt/lower,mnt/rw,newroot,modules}
    cp "$bb" "$ir/bin/busybox"
    for a in sh mount umount insmod switch_root mkdir cat echo sleep poweroff; do ln -sf busybox "$ir/bin/$a"; done
    local order=() m
    module_order "$moddir" "${want_modules[@]}" > "$build/modules.order" || die "cannot resolve the modules"
    mapfile -t order < "$build/modules.order"
    rm -f "$build/modules.order"
    : > "$ir/modules/order"
    for m in "${order[@]}"; do cp "$m" "$ir/modules/"; basename "$m" >> "$ir/modules/order"; done
    cp "$repo/tests/rt/initramfs-init" "$ir/init"
    chmod 0755 "$ir/init"
    (cd "$ir" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1 > "$build/initramfs.gz.tmp")
    mv "$build/initramfs.gz.tmp" "$build/initramfs.gz"
    rm -rf "$ir"
}

# kvm where /dev/kvm really runs this guest, tcg elsewhere. A /dev/kvm node can exist where KVM runs no
# guest (seen here: qemu aborts on an MSR with -cpu host, hangs in the BIOS with other models), so the
# first run boots the guest under kvm with `true` for up to 40 s; the verdict is kept in the build tree.
accel() {
    if [ -n "${RT_ACCEL:-}" ]; then echo "$RT_ACCEL"; return; fi
    if [ -f "$build/accel" ]; then cat "$build/accel"; return; fi
    local verdict=tcg
    if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
        if (RT_ACCEL=kvm run_guest --out "$build/kvm-probe" --timeout 40 -- true) >/dev/null 2>&1; then
            verdict=kvm
        else
            echo "rt-guest: /dev/kvm runs no guest here ($(grep -m1 -iE 'error|assert' "$build/kvm-probe/console.log" 2>/dev/null || echo 'no boot within 40 s')): TCG" >&2
        fi
        rm -rf "$build/kvm-probe"
    fi
    echo "$verdict" > "$build/accel"
    echo "$verdict"
}

info() {
    prepare >&2
    echo "kernel: $(cat "$build/kernel/PACKAGE") ($(ls "$build"/kernel/boot/vmlinuz-* | sed 's/.*vmlinuz-//'))"
    echo "accel: $(accel)"
}

run_guest() {
    local out=$build/out timeout_s=900
    while [ $# -gt 0 ]; do
        case $1 in
            --out) out=$2; shift 2 ;;
            --timeout) timeout_s=$2; shift 2 ;;
            --) shift; break ;;
            *) die "unknown option $1" ;;
        esac
    done
    [ $# -gt 0 ] || die "run: no command"
    # the paths travel on the kernel's command line and in qemu's -virtfs options
    case "$repo$out" in *[[:space:],]*) die "the repository and output paths must hold no space or comma: $repo, $out" ;; esac
    # the guest mounts its own /run, /proc, /sys and /dev over the host's
    case "$repo/ $out/" in
        /run/*|/proc/*|/sys/*|/dev/*|*" /run/"*|*" /proc/"*|*" /sys/"*|*" /dev/"*)
            die "the repository and output folder cannot be under /run, /proc, /sys or /dev: $repo, $out" ;;
    esac
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    rm -rf "$out/rc" "$out/console.log" "$out/failed-tmp" "$out/stall" "$out/stall-evidence.txt" \
        "$out/qemu-threads.log" "$out/kallsyms" "$out/monitor.sock" "$out"/core.*
    prepare
    # the command reaches the guest as a file in the writable share, never through the kernel's command line
    printf '%s\n' "$*" > "$out/cmd"
    local ac kernel cpu
    ac=$(accel)
    kernel=$(ls "$build"/kernel/boot/vmlinuz-*)
    case $ac in
        kvm) cpu=${RT_CPU:-host} ;;
        *) ac="tcg,thread=${RT_TCG:-multi}"; cpu=${RT_CPU:-max} ;;
    esac
    echo "rt-guest: booting $(cat "$build/kernel/PACKAGE") under ${ac%%,*}, ${RT_SMP:-2} vCPUs, ${RT_MEM:-2048} MB"
    local rc=0 qpid size last=-1 quiet=0
    # qemu in the background, its serial console into console.log (and onto this terminal); a monitor
    # socket for the evidence of a stall
    timeout -k 10 "$timeout_s" qemu-system-x86_64 -accel "$ac" -cpu "$cpu" \
        -smp "${RT_SMP:-2}" -m "${RT_MEM:-2048}" -nographic -no-reboot -nodefaults -serial stdio \
        -monitor "unix:$out/monitor.sock,server=on,wait=off" \
        -kernel "$kernel" -initrd "$build/initramfs.gz" \
        -append "console=ttyS0 panic=-1 oops=panic rw loglevel=4 ${RT_APPEND:-} jl.repo=$repo jl.out=$out jl.accel=${ac%%,*}" \
        -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
        -virtfs "local,path=$out,mount_tag=out,security_model=none,multidevs=remap" \
        -device virtio-rng-pci < /dev/null > "$out/console.log" 2>&1 &
    qpid=$!
    tail -n +1 -f --pid="$qpid" "$out/console.log" 2>/dev/null &
    # a guest that says nothing for RT_STALL_S (the guest beats every 30 s: tests/rt/inside.sh) has stalled:
    # seen under multi-threaded TCG at random points, the whole guest silent. End it and say so (exit 124).
    # Every 5 s the qemu threads' states and CPU times go to qemu-threads.log; at a stall, what the vCPUs
    # were doing, from the monitor, goes to stall-evidence.txt (tests/rt/stall-evidence.py).
    local qemu tick=0
    sleep 1
    qemu=$(pgrep -P "$qpid" -x qemu-system-x86 || echo "$qpid")
    while kill -0 "$qpid" 2>/dev/null; do
        sleep 5
        tick=$((tick + 5))
        size=$(stat -c %s "$out/console.log" 2>/dev/null || echo 0)
        if [ "$size" = "$last" ]; then quiet=$((quiet + 5)); else quiet=0; last=$size; fi
        { echo "t=$tick quiet=$quiet"
          for t in /proc/"$qemu"/task/*/stat; do cut -d' ' -f1-3,14,15 "$t" 2>/dev/null || true; done
        } >> "$out/qemu-threads.log"
        if [ "$quiet" -ge "${RT_STALL_S:-150}" ] && [ ! -f "$out/rc" ]; then
            echo "rt-guest: the guest stalled: no output for ${quiet}s; the evidence: $out/stall-evidence.txt" |
                tee -a "$out/stall"
            python3 "$repo/tests/rt/stall-evidence.py" --qpid "$qemu" --monitor "$out/monitor.sock" \
                --kallsyms "$out/kallsyms" --console "$out/console.log" > "$out/stall-evidence.txt" 2>&1 || true
            # the gist on the lane's own output (a CI log shows that much): qemu's threads, the vCPUs'
            # RIPs, their timers, whether sysrq was answered
            grep -E '^ +[0-9]+ qemu|^(\* )? *CPU #|^RIP=|^LVTT\s|^Timer|^IRR|^ISR|^== (info lapic|sysrq|CPU)|^== monitor|^  CPU0 |^  [a-z_].*\+0x' \
                "$out/stall-evidence.txt" 2>/dev/null | sed 's/^/rt-guest: evidence: /' | cut -c1-240 >&2 || true
            echo "rt-guest: ending the stalled guest" | tee -a "$out/stall"
            kill "$qpid" 2>/dev/null || true
            break
        fi
    done
    wait "$qpid" || rc=$?
    sleep 0.5
    if [ ! -f "$out/rc" ]; then
        [ -f "$out/stall" ] && { echo "rt-guest: the guest stalled (console: $out/console.log)" >&2; exit 124; }
        [ "$rc" -eq 124 ] && die "the guest did not finish within ${timeout_s}s (console: $out/console.log)"
        die "the guest stopped before the command ended (qemu exit $rc; console: $out/console.log)"
    fi
    return "$(cat "$out/rc")"
}

case ${1:-} in
    prepare) prepare ;;
    info) info ;;
    run) shift; run_guest "$@" ;;
    *) sed -n '2,20s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
