# Shared helpers for navd's scripts. Sourced, never run.
# NAVD_CACHE holds everything downloaded or built from downloads (wheels, engines, map data); it survives runs.
NAVD_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NAVD_CACHE="${NAVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/navd}"
# Where running engines keep their pid files, ports and logs.
NAVD_RUN_DIR="${NAVD_RUN_DIR:-/tmp/navd-engines-$(id -u)}"

say() { printf '\033[1m==>\033[0m %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# A free TCP port on 127.0.0.1, chosen by the kernel.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Waits until URL answers HTTP 200, or fails after $2 seconds (default 30).
wait_for_http() {
    local url="$1" limit="${2:-30}" i=0
    while [ "$i" -lt $((limit * 10)) ]; do
        if curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null; then return 0; fi
        sleep 0.1; i=$((i + 1))
    done
    return 1
}

# How navd is built for the vehicle (scripts/package) and measured (scripts/bench): release, the Swift runtime
# linked in, every function and datum in its own section so that the linker drops what nothing calls, identical
# code folded once, and no symbol table for dynamic linking (nothing loads navd's symbols). Linked by the
# toolchain's lld: relative relocations packed (DT_RELR, glibc 2.36: 1.7 MB of .rela.dyn become 14 KB), and the
# functions navd runs placed together first (packaging/navd.order, written by scripts/order-functions), so that
# the pages the kernel maps around them are few. No unwind tables (packaging/discard-unwind-tables.ld says why
# nothing needs them: crash backtraces follow frame pointers). docs/performance.md gives the sizes.
NAVD_RELEASE_FLAGS=(
    -c release --static-swift-stdlib
    -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xcc -fdata-sections
    -Xswiftc -use-ld=lld
    -Xlinker --no-export-dynamic -Xlinker --icf=all -Xlinker -z -Xlinker pack-relative-relocs
    -Xlinker "--symbol-ordering-file=$NAVD_ROOT/packaging/navd.order" -Xlinker --no-warn-symbol-ordering
    -Xlinker --no-eh-frame-hdr -Xlinker "$NAVD_ROOT/packaging/discard-unwind-tables.ld"
)
