// DTrace's stable providers (spec §6.11): proc, sched and io probes, their guards and
// translated arguments read a member at a time, argN as the native values.
proc:::create /pid == $target/ { @c[stringof(args[0]->pr_fname), args[0]->pr_ppid] = count(); trace(arg0); }
proc:::exec { printf("%s %s\n", execname, args[0]); } proc:::exec-failure { @f[args[0]] = count(); }
proc:::exec-success, proc:::start, proc:::lwp-start, proc:::lwp-exit { @[probename, curpsinfo->pr_pid] = count(); }
proc:::exit /args[0] != 1/ { printf("%d %d %d\n", pid, args[0], arg0); }
proc:::lwp-create { trace(args[0]->pr_lwpid); trace(args[1]->pr_nlwp); }
proc:::signal-send, proc:::signal-discard { @s[args[2], args[1]->pr_pid == pid] = count(); trace(args[0]->pr_state); }
proc:::signal-handle { trace(args[0]); trace(args[2]); trace((uint64_t)args[1]); } proc:::signal-clear { trace(args[0]); }
sched:::on-cpu { self->on = timestamp; } sched:::off-cpu /self->on/ { @on[execname] = sum(timestamp - self->on); self->on = 0; }
sched:::off-cpu { @next[stringof(args[1]->pr_fname), args[0]->pr_pri] = count(); }
sched:::sleep, sched:::preempt { @sp[probename] = count(); } sched:::wakeup { @w[args[1]->pr_pid] = count(); }
sched:::surrender { trace(args[0]->pr_lwpid); }
io:::start { @b[args[1]->dev_statname, args[0]->b_flags & B_READ ? "R" : "W"] = sum(args[0]->b_bcount); }
io:::done { trace(args[0]->b_blkno); trace(args[1]->dev_major); trace(args[2]->fi_pathname); trace(args[0]->b_edev); }
proc:vmlinux::exit, sched:vmlinux::preempt { trace(probeprov); trace(probemod); trace(probename); }
proc:::exit, rawtracepoint:sched_process_exit { @e[probeprov] = count(); }
