/* llquantize, printa() of several aggregations joined by key, and the sort and packing options. */
#pragma D option aggsortpos=1
#pragma D option aggsortkeypos=1
#pragma D option aggpack
syscall:::entry
/pid != 0/
{
    @lat[probefunc] = llquantize(arg2, 10, 0, 6, 20);
    @small = llquantize(arg0, 2, 0, 10, 4);
    @big[cpu] = llquantize(arg1, 10, 0, 18, 10);
    @steps[execname, arg0] = llquantize(arg2, 3, 3, 5, 27);
    @calls[probefunc] = count();
    @bytes[probefunc] = sum(arg2);
    @most[probefunc] = max(arg2);
    @dist[probefunc] = quantize(arg2);
    @lin[probefunc] = lquantize(arg2, 0, 100, 10);
}

tick-1s
{
    printa(@calls, @bytes, @most);
    printa("%-16s %@8d %@8d %@8d %@d\n", @calls, @bytes, @most);
    printa("%s\n", @calls, @bytes);
    printa(@calls, @calls);
    printa(@dist, @lin, @lat);
    printa(@dist);
    printa(@lin);
    printa("%d %@d\n", @big);
    normalize(@lat, 10);
    clear(@small);
    trunc(@steps, 3);
}

END
{
    denormalize(@lat);
    printa(@lat, @calls);
    printa(@small);
}
