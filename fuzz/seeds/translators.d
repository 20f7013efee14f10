/* Translators and stdlib's procfs.d (spec §5.9). */
struct ids { int me; int parent; long twice; char name[16]; };
translator struct ids < struct task_struct *T > { me = T->tgid; parent = T->real_parent->tgid; twice = 2 * T->tgid; name = T->comm; };
inline struct ids *mine = xlate <struct ids *> (curthread);
syscall::read:entry /curpsinfo->pr_pid == pid && mine->me == pid/ { @[curpsinfo->pr_fname, curlwpsinfo->pr_sname] = count(); }
BEGIN { printf("%d %d %s %d %c\n", curpsinfo->pr_ppid, curpsinfo->pr_uid, mine->name, curlwpsinfo->pr_pri, curlwpsinfo->pr_sname); }
tick-10ms { exit(0); }
syscall::read:entry { self->v = vtimestamp; } syscall::read:return /self->v/ { @v = quantize(vtimestamp - self->v); self->v = 0; }
BEGIN { printf("%s %s\n", curpsinfo->pr_psargs, __psargs(curthread)); }
syscall::openat:entry { @c[cwd] = count(); }
syscall::write:entry /curpsinfo->pr_nlwp > 1 || curpsinfo->pr_size > 1024/ { @t[curlwpsinfo->pr_clname, curpsinfo->pr_ttydev == (struct tty_struct *)-1] = sum(curpsinfo->pr_size + curpsinfo->pr_wstat + curpsinfo->pr_zoneid + curlwpsinfo->pr_stype); printf("%s\n", curpsinfo->pr_ttydev != (struct tty_struct *)-1 ? stringof(curpsinfo->pr_ttydev->name) : "-"); }
syscall::getppid:entry, tracepoint:sched:sched_process_exit, profile-997 /curlwpsinfo->pr_syscall != -1 || __syscall(curthread) == -1/ { @s[curlwpsinfo->pr_syscall, __syscall(arg0)] = count(); printf("%d %d\n", curlwpsinfo->pr_nice, __syscall(curthread) + 1); }
