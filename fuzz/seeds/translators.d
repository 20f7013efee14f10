/* Translators and stdlib's procfs.d (spec §5.9). */
struct ids { int me; int parent; long twice; char name[16]; };
translator struct ids < struct task_struct *T > { me = T->tgid; parent = T->real_parent->tgid; twice = 2 * T->tgid; name = T->comm; };
inline struct ids *mine = xlate <struct ids *> (curthread);
syscall::read:entry /curpsinfo->pr_pid == pid && mine->me == pid/ { @[curpsinfo->pr_fname, curlwpsinfo->pr_sname] = count(); }
BEGIN { printf("%d %d %s %d %c\n", curpsinfo->pr_ppid, curpsinfo->pr_uid, mine->name, curlwpsinfo->pr_pri, curlwpsinfo->pr_sname); }
tick-10ms { exit(0); }
syscall::read:entry { self->v = vtimestamp; } syscall::read:return /self->v/ { @v = quantize(vtimestamp - self->v); self->v = 0; }
BEGIN { printf("%s %s\n", curpsinfo->pr_psargs, __psargs(curthread)); }
syscall::openat:entry { @[cwd] = count(); }
