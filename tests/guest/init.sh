#!/bin/sh
# /init of the crumbs guest lane. tests/guest/run packs this file, busybox, crumbs,
# io-benchmark, tests.sh and scripts/ into an initramfs and boots a stock Debian kernel on it.
#
# Kernel command line knobs (set by tests/guest/run, so the initramfs stays cacheable):
#   crumbs.only=a,b      run only these tests (names without the test_ prefix)
#   crumbs.timeout=N     per-test timeout in seconds (default 60; a test's
#                        `# guest-timeout NAME N` line in tests.sh raises its own)
# Output protocol on the serial console, parsed by tests/guest/run:
#   GUEST-BOOT <uptime>
#   GUEST-RUN <name>                        before each test
#   GUEST-TEST <name> PASS|FAIL [note]      followed, for a FAIL, by its output as "  | ...",
#                                           for a PASS by its lines that begin "figure: "
#   GUEST-DONE <uptime>
export PATH=/bin HOME=/root TERM=dumb CRUMBS_GUEST=1

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t bpf bpf /sys/fs/bpf
ulimit -l unlimited 2>/dev/null

up() { cut -d' ' -f1 /proc/uptime; }
echo "GUEST-BOOT $(up)"

only='' timeout=60
for arg in $(cat /proc/cmdline); do
    case "$arg" in
        crumbs.only=*) only=$(echo "${arg#crumbs.only=}" | tr ',' ' ') ;;
        crumbs.timeout=*) timeout=${arg#crumbs.timeout=} ;;
    esac
done

cd /
names=$(sed -n 's/^test_\([A-Za-z0-9_]*\)[[:space:]]*().*$/\1/p' /tests.sh)
for name in $names; do
    if [ -n "$only" ]; then
        case " $only " in *" $name "*) ;; *) continue ;; esac
    fi
    rm -rf /tmp/* 2>/dev/null
    echo "GUEST-RUN $name"
    # A test that needs longer says so in tests.sh: `# guest-timeout NAME SECONDS`.
    t=$(sed -n "s/^# guest-timeout $name \([0-9]*\)\$/\1/p" /tests.sh)
    [ -n "$t" ] && [ "$t" -gt "$timeout" ] || t=$timeout
    timeout "$t" sh -c ". /tests.sh && test_$name" >/run/out 2>&1 </dev/null
    rc=$?
    if [ "$rc" = 0 ]; then
        echo "GUEST-TEST $name PASS"
        grep '^figure: ' /run/out | sed 's/^/  | /'
    else
        note="(exit $rc)"
        { [ "$rc" = 143 ] || [ "$rc" = 124 ]; } && note="(timed out after ${t}s)"
        echo "GUEST-TEST $name FAIL $note"
        head -n 200 /run/out | sed 's/^/  | /'
    fi
done

echo "GUEST-DONE $(up)"
sync
poweroff -f
# poweroff -f should not return; if it does, make the kernel stop (panic=-1 + -no-reboot).
exit 1
