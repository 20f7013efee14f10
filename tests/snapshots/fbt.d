/*
 * fbt probes (kprobes and kretprobes): args[] typed by the function's BTF prototype
 * through a struct chain, the return value (arg1, args[1]), the probe's names, arguments
 * past the sixth from the stack, latency through a thread-local, bpftrace's spellings and
 * a glob over functions.
 */
fbt::vfs_read:entry
{
	self->ts = timestamp;
	@files[stringof(args[0]->f_path.dentry->d_name.name)] = count();
	@sizes = quantize(args[2]);
}

fbt::vfs_read:return
/self->ts/
{
	@lat[probefunc] = avg(timestamp - self->ts);
	@ret = sum(arg1);
	@bytes = sum(args[1]);
	self->ts = 0;
}

kprobe:ksys_read
{
	printf("%s:%s:%s:%s %d %d %d %d\n", probeprov, probemod, probefunc, probename, arg0, arg6, args[0], id);
}

kretprobe::ksys_read:
{
	trace(arg0);
}

fbt::vfs_*:entry
{
	@calls[probefunc] = count();
}
kretprobe:vfs_write { @w = sum(retval); }
