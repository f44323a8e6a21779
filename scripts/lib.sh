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
# the pages the kernel maps around them are few, and a fix's code, run cold every 100 ms, is on few pages. No
# unwind tables (packaging/discard-unwind-tables.ld says why nothing needs them: crash backtraces follow frame
# pointers). docs/performance.md gives the sizes.
NAVD_RELEASE_FLAGS=(
    -c release --static-swift-stdlib
    -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xcc -fdata-sections
    -Xswiftc -use-ld=lld
    -Xlinker --no-export-dynamic -Xlinker --icf=all -Xlinker -z -Xlinker pack-relative-relocs
    -Xlinker "--symbol-ordering-file=$NAVD_ROOT/packaging/navd.order" -Xlinker --no-warn-symbol-ordering
    -Xlinker --no-eh-frame-hdr -Xlinker "$NAVD_ROOT/packaging/discard-unwind-tables.ld"
)

# Runs `navbench field --epochs N` with navd under valgrind's callgrind, which counts every instruction navd executes
# (exact, where a clock on a shared machine is not), and leaves one callgrind.PID.out per navd the drive started in
# WORK. Builds the release binaries as the package does; needs valgrind (installed if missing) and the engines'
# set-up (scripts/setup). The caller stops the engines (NAVD_RUN_DIR=WORK/engines) when done.
navd_field_under_callgrind() {
    local work="$1" epochs="$2"
    if ! command -v valgrind >/dev/null; then
        say "Installing valgrind"
        local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq valgrind >/dev/null
    fi
    say "Building (release, as the package builds it)"
    swift build "${NAVD_RELEASE_FLAGS[@]}" --product navd
    swift build "${NAVD_RELEASE_FLAGS[@]}" --product navbench
    local bin
    bin="$(swift build "${NAVD_RELEASE_FLAGS[@]}" --show-bin-path)"
    export NAVD_RUN_DIR="$work/engines"
    eval "$(scripts/engines start valhalla)"
    # valgrind 3.19 cannot read the DWARF 5 the toolchain writes; the symbol table is all it needs.
    strip --strip-debug -o "$work/navd.symbols" "$bin/navd"
    # navbench runs the navd found next to itself: here, navd under callgrind.
    cp "$bin/navbench" "$work/navbench"
    cat > "$work/navd" <<EOS
#!/bin/sh
exec valgrind --tool=callgrind --callgrind-out-file=$work/callgrind.%p.out --dump-instr=no --collect-jumps=no \
    --demangle=no "$work/navd.symbols" "\$@"
EOS
    chmod +x "$work/navd"
    say "Running navbench field with navd under callgrind (a few minutes; its timings mean nothing here)"
    # The drive's figures are not the point (navd runs 20-50x slower); its exit status is not either.
    "$work/navbench" field --epochs "$epochs" > "$work/navbench.log" 2>&1 || true
    ls "$work"/callgrind.*.out >/dev/null 2>&1 || { tail -20 "$work/navbench.log" >&2; die "callgrind wrote no profile"; }
}
