// Probe descriptions added with kernel functions and user space: fbt on a module's
// functions, pid and uprobe places, USDT, raw tracepoints; forward struct declarations.
struct fwd;
struct holder { struct fwd *p; int n; };
struct fwd { long v; };
// (fbt:ext4::entry and fbt:tcp_bbr:bbr_main:entry name modules this host has not loaded: guest lane)
fbt:vmlinux:vfs_read:entry, fbt::vfs_write:return { @[probemod, probefunc] = count(); }
pid$target:libc.so.6:read:entry, pid$target:a.out:main:return, pid$target::malloc:1 { @u[probefunc] = count(); trace(arg0); }
uprobe:libc:read { trace(arg0); } uretprobe:libc:getpid { trace(retval); } uprobe:libc:write { trace(arg2); }
usdt:/usr/bin/python3:python:function__entry { trace(arg0); trace(copyinstr(arg1)); }
rawtracepoint:sched_switch { trace(args->prev->pid); trace(arg1); } rt:vmlinux:sched_wakeup { trace(args[0]->pid); }
rawtracepoint:vmlinux::sys_enter /args->id == 0/ { this->h = (struct holder *)arg1; trace(this->h->p->v); }
syscall::read:entry { trace(uregs[R_PC]); trace(uregs[R_ERR]); trace(uregs[R_GS]); @c[curcpu->cpu_id, chip, lgrp, pset] = count(); }
io:::wait-start { trace(args[0]->b_bcount); } io:::wait-done { trace(args[1]->dev_statname); }
sched:::enqueue { @q[args[2]->cpu_id, args[3]] = count(); } sched:::dequeue, sched:::tick { @d[probename] = count(); }
