/* uregs[] (stdlib/regs.d: a constant word of the user registers, 0 past pt_regs), curcpu and
   its inlines (stdlib/sched.d, translated from the CPU number), bpftrace's interval, profile
   and begin spellings. */
syscall::read:entry
{
	@pc[uregs[R_PC]] = count();
	@cpu[curcpu->cpu_id, chip] = count();
}

interval:s:1
{
	trace(uregs[R_GS]);
}

profile:hz:99
{
	@p = count();
}

begin
{
	trace(pset);
}
