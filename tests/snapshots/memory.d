/* Scratch memory (spec §7.14). */
syscall::write:entry { this->b = (char *)copyin(arg1, arg2); printf("%s %c\n", stringof(this->b), this->b[0]); }
struct ts { long tv_sec; long tv_nsec; };
syscall::clock_nanosleep:entry { t = (struct ts *)copyin(arg2, sizeof(struct ts)); trace(t->tv_nsec); }
BEGIN { p = (int *)alloca(8); bcopy(&curthread->pid, p + 1, 4); printf("%d %d\n", p[0], p[1]); }
syscall::read:entry { q = (char *)alloca(16); copyinto(arg1, 3, q + 2); trace(stringof(q + 2)); }
tick-10ms { exit(0); }
