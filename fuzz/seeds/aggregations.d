/* Every aggregating function, keys of each kind, and the actions on aggregations. */
#pragma D option aggsortkey
syscall:::entry
/pid != 0/
{
    @calls[probefunc] = count();
    @bytes[execname, arg2] = sum(arg2);
    @lo = min(arg0);
    @hi[cpu] = max(arg1);
    @mean[uid, gid] = avg(arg2);
    @sd = stddev(arg2);
    @dist[probefunc] = quantize(arg2);
    @lin = lquantize(arg2, 0, 1000, 10);
    @stacks[stack()] = count();
}

tick-1s
{
    printa(@calls);
    printa("%-20s %@10d\n", @calls);
    printa("%s %d %@d\n", @bytes);
    normalize(@bytes, 1024);
    denormalize(@bytes);
    clear(@hi);
    trunc(@calls, 5);
    trunc(@dist, -2);
    trunc(@lin);
}

END
{
    printa(@sd);
    printa(@dist);
    printa("%@d\n", @lo);
}
