# Figures for fbt's attach modes, not part of CI (every run prints, nothing is asserted but
# that crumbs ran): CRUMBS_GUEST_TESTS=tests/guest/bench.sh tests/guest/run
# Times are the guest's /proc/uptime (10 ms steps) under software emulation: compare the
# modes with each other, not with a real machine.

die() { echo "$*"; exit 1; }

now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# Attach + detach (crumbs' whole run around `true`) of 1, 6, ~70 and ~250 functions (and
# ~1000 with kprobe.multi).
test_bench_fbt_attach() {
    for mode in multi kprobe fentry; do
        pats="fbt::vfs_read:entry fbt::vfs_re*:entry fbt::vfs_*:entry fbt::security_*:entry"
        # A thousand functions only where one link takes them all.
        [ $mode = multi ] && pats="$pats fbt::*_read*:entry"
        for pat in $pats; do
            t0=$(now)
            out=$(crumbs -x fbtmode=$mode -e "$pat { @ = count(); }" -c true 2>&1) || { echo "figure: attach $mode $pat failed: $(echo "$out" | tail -n1)"; continue; }
            t=$(since "$t0")
            n=$(echo "$out" | sed -n "s/^crumbs: description .* matched \([0-9]*\) probes\{0,1\}$/\1/p")
            skipped=$(echo "$out" | sed -n 's/^crumbs: \([0-9]*\) of .* skipped.*/\1/p')
            echo "figure: attach $mode $pat functions=$n skipped=${skipped:-0} seconds=$t"
        done
    done
}

# ns per vfs_read call counted at entry (and at return), per mode: io-benchmark's own time
# for 256K one-byte reads with and without the probe, the best of $ROUNDS runs each (the
# host's other work makes single runs under emulation vary by 15%).
ROUNDS=5
reads=262144
bench_time() { sed -n 's/.*"time_ns":\([0-9]*\).*/\1/p'; }
# The least of ROUNDS runs of the command "$@" (its output holds io-benchmark's JSON).
best() {
    b=
    for _ in $(seq $ROUNDS); do
        t=$("$@" 2>/dev/null | bench_time)
        [ -n "$t" ] || return 1
        { [ -z "$b" ] || [ "$t" -lt "$b" ]; } && b=$t
    done
    echo "$b"
}
per_call() { awk -v t="$1" -v b="$2" -v n=$reads 'BEGIN { printf "%.0f", (t - b) / n }'; }
baseline() { best io-benchmark -c -r -b 1 -s 256K -j /tmp/f; }

test_bench_fbt_overhead() {
    b=$(baseline)
    echo "figure: overhead none ns_total=$b (best of $ROUNDS)"
    for mode in multi kprobe fentry; do
        for probe in 'fbt::vfs_read:entry' 'fbt::vfs_read:return'; do
            t=$(best crumbs -q -x fbtmode=$mode -e "$probe { @ = count(); }" -c "io-benchmark -c -r -b 1 -s 256K -j /tmp/f") \
                || { echo "figure: overhead $mode unavailable"; continue; }
            echo "figure: overhead $mode $probe ns_per_call=$(per_call "$t" "$b") (total $t)"
        done
    done
}

# bpftrace on the same kernel, where the guest has it (CRUMBS_GUEST_EXTRA_BINS=/usr/bin/bpftrace):
# its start-up alone, then attach+detach and the per-call cost as above.
test_bench_bpftrace() {
    command -v bpftrace >/dev/null || { echo "figure: no bpftrace in this guest"; return 0; }
    t0=$(now)
    bpftrace -e 'BEGIN { exit(); }' >/dev/null 2>&1 || die "bpftrace does not run here"
    echo "figure: bpftrace BEGIN-exit seconds=$(since "$t0")"
    for pat in 'kprobe:vfs_read' 'kprobe:vfs_*' 'kprobe:security_*' 'kprobe:*_read*' 'kfunc:vfs_read' 'kfunc:vfs_*'; do
        t0=$(now)
        out=$(bpftrace -e "$pat { @ = count(); }" -c true 2>&1) || { echo "figure: bpftrace $pat failed: $(echo "$out" | tail -n1)"; continue; }
        echo "figure: bpftrace attach $pat $(echo "$out" | grep -o 'Attaching [0-9]* probes*') seconds=$(since "$t0")"
    done
    b=$(baseline)
    for probe in 'kprobe:vfs_read' 'kretprobe:vfs_read' 'kfunc:vfs_read' 'kretfunc:vfs_read'; do
        t=$(best bpftrace -e "$probe { @ = count(); }" -c "io-benchmark -c -r -b 1 -s 256K -j /tmp/f") \
            || { echo "figure: bpftrace overhead $probe failed"; continue; }
        echo "figure: bpftrace overhead $probe ns_per_call=$(per_call "$t" "$b") (total $t, none $b)"
    done
}
