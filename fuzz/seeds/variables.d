#!/usr/bin/env -S crumbs -s
/* Globals, thread-locals, clause-locals, macro variables and every builtin variable. */
#pragma D option quiet
#pragma D option bufsize=16k

syscall::read:entry
{
    self->start = timestamp;
    self->fd = arg0;
    this->x = arg2 * 2;
    this->x += 1;
    this->x <<= 3;
    total++;
    total += this->x;
    --total;
    @[execname, $1] = count();
}

syscall::read:return
/self->start && pid == $target/
{
    printf("%s %d %d %d %d %d %d %d %d\n", execname, pid, tid, ppid, uid, gid, cpu, errno, timestamp - self->start);
    printf("%s:%s:%s:%s %s %s\n", probeprov, probemod, probefunc, probename, $0, $$1);
    trace(walltimestamp);
    trace(nsecs);
    trace(comm);
    trace(func);
    arg0; arg1; arg3; arg4; arg5;
    self->start = 0;
    self->fd = 0;
}

END { printf("%d %d %s %d\n", total, $1, $2, $3 + $4); }
