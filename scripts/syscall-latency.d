#!/usr/bin/env -S crumbs -s
/*
 * Latency of every system call a process makes, as power-of-two distributions (ns).
 *   crumbs -s scripts/syscall-latency.d -c 'io-benchmark -r -b 4096 /tmp/iofile'
 */
#pragma D option quiet

syscall:::entry
/pid == $target/
{
    self->start = timestamp;
}

syscall:::return
/self->start/
{
    @latency[probefunc] = quantize(timestamp - self->start);
    @total[probefunc] = sum(timestamp - self->start);
    self->start = 0;
}

END
{
    printf("\nTime in each system call (ns):\n");
    printa("  %-20s %@12d\n", @total);
    printf("\nDistributions:\n");
    printa(@latency);
}
