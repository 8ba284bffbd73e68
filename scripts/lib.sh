# scripts/lib.sh: how every experiment script begins (sourced, never run): from the repository root,
# with the binary ($JITTERLAB, or build/jitterlab, built when missing), as root.
here=$(cd "$(dirname "${BASH_SOURCE[1]}")/.." && pwd)
cd "$here"
bin=${JITTERLAB:-$here/build/jitterlab}
[ -x "$bin" ] || make --no-print-directory build/jitterlab
[ "$(id -u)" -eq 0 ] || { echo "$(basename "${BASH_SOURCE[1]}"): needs root (sudo)" >&2; exit 2; }
