// fbt probes in every spelling: DTrace's (module, globs, both names), bpftrace's kprobe:
// and kretprobe:, typed args[] through struct chains, the return value, stack arguments.
fbt:vmlinux:vfs_read:entry, fbt::vfs_w*:entry, kprobe:ksys_read, kprobe::vfs_open:, kprobe:vmlinux:vfs_fsync
/pid != 0 && arg0/
{ @[probefunc, probename] = count(); trace(arg5); trace(arg7); self->t[probefunc] = timestamp; }
fbt::vfs_read:entry { printf("%s %d %d\n", stringof(args[0]->f_path.dentry->d_name.name), args[2], args[0]->f_pos); @s = quantize(args[2]); }
fbt::vfs_*:return, kretprobe:ksys_read, kretprobe::fput:
/self->t[probefunc]/
{ @lat[probefunc] = avg(timestamp - self->t[probefunc]); @r = sum(arg1); trace(args[0]); self->t[probefunc] = 0; }
fbt::vfs_read:return, fbt::ksys_read:return { @b = lquantize(args[1], 0, 4096, 512); }
fbt::*read*: { @k[stack(), probeprov, probemod] = count(); }
fbt:::entry /probefunc == "vfs_fsync"/ { trace(arg1); } fbt::vfs_fsync:entry { trace(args[1]); }
kretprobe:vfs_write { @w = sum(retval); } syscall::read:return { @r[retval > 0] = count(); }
