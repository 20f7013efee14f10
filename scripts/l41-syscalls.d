/*
 * Count the system calls io-benchmark makes inside its timed loop (the L41 lab script).
 * The benchmark calls clock_gettime(2) right before and right after the loop: the return
 * of the first opens the bracket, the entry of the second closes it.
 *
 *   crumbs -s scripts/l41-syscalls.d -c 'io-benchmark -r -b 512 iofile'
 */

syscall::clock_gettime:return
/execname == "io-benchmark" && !in_benchmark/
{
    in_benchmark = 1;
}

syscall::clock_gettime:entry
/execname == "io-benchmark" && in_benchmark/
{
    in_benchmark = 0;
}

syscall:::entry
/execname == "io-benchmark" && in_benchmark && probefunc != "clock_gettime"/
{
    @a[probefunc] = count();
}
