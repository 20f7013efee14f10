#!/usr/bin/env -S crumbs -s
/*
 * Sizes requested from read(2) and returned, per process name (the tracepoint provider).
 *   crumbs -s scripts/readsize.d -c 'io-benchmark -r -b 512 /tmp/iofile'
 */
#pragma D option quiet

tracepoint:syscalls:sys_enter_read
{
    @requested[execname] = quantize(args->count);
}

tracepoint:syscalls:sys_exit_read
/args->ret > 0/
{
    @returned[execname] = sum(args->ret);
}
