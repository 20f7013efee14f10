/* Raw tracepoints (tp_btf): arguments by index and by name, typed from BTF; a pointer is
   copied out of the context, an integer loaded; argN past the last is 0. */
rawtracepoint:sched_switch
{
	@[stringof(args->prev->comm), args.preempt] = count();
	@state = sum(args[3]);
	@past = sum(arg7);
}

rt:sys_enter
/args->id == 0/
{
	@reads[probename] = count();
}
