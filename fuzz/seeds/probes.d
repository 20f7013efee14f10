// Probe descriptions of every form: right alignment, globs, lists, each provider.
dtrace:::BEGIN, BEGIN {}
dtrace:::END
syscall:vmlinux:read:entry, syscall::write:entry, read:return, ::openat:, syscall::*read*:entry
{ @[probefunc, probename] = count(); }
syscall::[a-c]*:return, syscall::?ead:entry, syscall::[!x]ead:entry, syscall:::
/arg0 == -1/
<@e[errno] = count()>
profile-997 /arg0/ { @k[stack()] = count(); }
profile:::profile-4001hz, profile-1ms, tick-1s, tick-100ms, tick-10us, tick-1m, profile-1h, tick-1d, profile-100000ns, tick-5sec
{ trace(arg1); }
tracepoint:sched:sched_switch
/args->prev_pid != 0 && args->prev_comm != "swapper/0"/
{ @n[args->next_comm] = count(); printf("%s %d %d\n", args->prev_comm, args->prev_state, args->next_prio); }
tp:syscalls:sys_enter_* { @t[probename] = count(); }
tracepoint:syscalls:sys_enter_openat { printf("%s\n", copyinstr(args->filename)); trace(str(arg0)); }
tracepoint:sched::sched_wakeup, tracepoint:sched:sched_process_exec { trace(probemod); trace(probename); }
tracepoint:raw_syscalls:sys_enter { trace(args->id); }
