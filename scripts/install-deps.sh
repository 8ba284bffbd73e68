#!/usr/bin/env bash
# Install everything jitterlab needs to build, test and be used, from Debian/Ubuntu packages.
# Idempotent: packages already present are not fetched again. Must run as root (or via sudo).
set -euo pipefail

# libclang-rt-dev: clang's fuzzer runtime (make check runs the scenario parser's fuzz target)
build_pkgs=(build-essential pkg-config clang libclang-rt-dev
            libtracefs-dev libtraceevent-dev libtracecmd-dev libnuma-dev libinih-dev
            libjson-c-dev libgsl-dev libcmocka-dev zlib1g-dev)
# man-db and groff-base: `man jitterlab`, and tests/integration/test_man.py renders the generated pages
# python3-grpcio: the published gRPC chain for real (examples/grpc_chain, scripts/grpc-chain.sh)
run_pkgs=(python3 python3-pytest rt-tests stress-ng trace-cmd gnuplot-nox kernelshark xvfb xauth procps util-linux
          man-db groff-base python3-grpcio)
# make check's RT lane: a PREEMPT_RT guest under qemu (tests/rt/guest.sh; the kernel package itself is
# fetched with apt-get download and unpacked into build/rt, never installed), and rtla of the same kernel
# python3-pytest-timeout: a test stuck in the guest fails with its stack instead of eating the lane's time
lane_pkgs=(qemu-system-x86 busybox-static rtla python3-pytest-timeout)

want=("${build_pkgs[@]}" "${run_pkgs[@]}" "${lane_pkgs[@]}")
missing=()
for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#want[@]} packages present"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing packages: ${missing[*]}" >&2
    echo "install-deps: run as root: sudo $0" >&2
    exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# kernelshark and xvfb pull in Qt/X; they are optional at build time, so a failure there is not fatal.
apt-get install -y -qq --no-install-recommends "${build_pkgs[@]}" python3 python3-pytest rt-tests stress-ng trace-cmd procps util-linux \
    man-db groff-base
apt-get install -y -qq --no-install-recommends "${lane_pkgs[@]}"
apt-get install -y -qq --no-install-recommends gnuplot-nox kernelshark xvfb xauth ||
    echo "install-deps: warning: optional viewer/plot packages could not be installed" >&2
