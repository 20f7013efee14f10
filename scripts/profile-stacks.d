#!/usr/bin/env -S crumbs -s
/*
 * Where the kernel spends CPU time: kernel stacks sampled 997 times a second on every
 * CPU, counted, printed every 5 seconds (and at Ctrl-C), busiest last.
 *   crumbs -s scripts/profile-stacks.d
 */
#pragma D option quiet

profile-997
/arg0 != 0/
{
    @stacks[stack()] = count();
}

tick-5s
{
    printf("\n%Y ----\n", walltimestamp);
    trunc(@stacks, 10);
    printa(@stacks);
    trunc(@stacks);
}
