/* DTrace's other subroutines: a search on the numeric iterator, strtok's state, the
   counted loops, a byte swap, an address as text. strsize is small to keep it short. */
#pragma D option strsize=16
syscall::openat:entry { self->p = copyinstr(arg1); }
syscall::openat:entry /index(self->p, "etc") >= 0/ { printf("%s %s %s\n", strtok(self->p, "/"), strtok(NULL, "/"), strrchr(self->p, 'o')); }
tracepoint:raw_syscalls:sys_enter /args->id == 39/ { printf("%s %d %s\n", lltostr(htons(arg0)), rand() & 1, inet_ntoa(&args->args[2])); }
