/* Destructive actions (spec §7.15): raise() and stop() signal, system() runs a command
   from its record, chill() spins in a bpf_loop callback (the ELF's .text and BTF),
   copyout() and copyoutstr() write user memory. */
#pragma D option destructive
syscall::wait4:entry /pid == 1 && !sent/ { raise(10); sent = 1; }
syscall::clock_nanosleep:entry /execname == "never"/ { stop(); }
BEGIN { system("echo %s-%d", execname, pid); chill(1000); n = 20000; chill(n * 2); exit(0); }
syscall::write:entry /(int)arg0 == -1/ { copyout(copyin(arg1 + 8, 4), arg1, 4); copyoutstr(execname, arg1, arg2); }
END { freopen("/tmp/crumbs-%d.out", pid); printf("moved\n"); freopen(""); ftruncate(); }
