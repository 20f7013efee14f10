/* Stable providers (§6.11): probes on raw tracepoints with a guard before the predicate,
   translated arguments read a member at a time, names of their own. */
sched:::off-cpu
/pid != 0/
{
	@next[stringof(args[1]->pr_fname)] = count();
}

sched:::preempt
{
	@preempted[probeprov, probename] = count();
}

proc:::exec-success
{
	@execs[execname] = count();
}
