/* Speculations (spec §7.13). */
#pragma D option nspec=4
#pragma D option specsize=1k
syscall::openat:entry { self->spec = speculation(); speculate(self->spec); printf("%s %s\n", execname, copyinstr(arg1)); }
syscall::openat:return /self->spec && (int)arg1 < 0/ { commit(self->spec); self->spec = 0; }
syscall::openat:return /self->spec/ { discard(self->spec); self->spec = 0; }
BEGIN { s = speculation(); } BEGIN { speculate(s); trace(pid); stack(); } BEGIN { commit(s); commit(7); }
tick-10ms { exit(0); }
