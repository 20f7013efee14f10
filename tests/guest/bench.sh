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
# for 256K one-byte reads with and without the probe.
test_bench_fbt_overhead() {
    reads=262144
    base() { io-benchmark -c -r -b 1 -s 256K -j /tmp/f | sed -n 's/.*"time_ns":\([0-9]*\).*/\1/p'; }
    b0=$(base)
    b1=$(base)
    echo "figure: overhead none ns_total=$b0 $b1"
    for mode in kprobe fentry multi; do
        for probe in 'fbt::vfs_read:entry' 'fbt::vfs_read:return'; do
            out=$(crumbs -q -x fbtmode=$mode -e "$probe { @ = count(); }" -c "io-benchmark -c -r -b 1 -s 256K -j /tmp/f" 2>&1) || { echo "figure: overhead $mode failed: $(echo "$out" | tail -n1)"; continue; }
            t=$(echo "$out" | sed -n 's/.*"time_ns":\([0-9]*\).*/\1/p')
            echo "figure: overhead $mode $probe ns_per_call=$(awk -v t="$t" -v b="$b1" -v n=$reads 'BEGIN { printf "%.0f", (t - b) / n }') (total $t)"
        done
    done
}
