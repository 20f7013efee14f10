#!/usr/bin/env -S crumbs -s
/*
 * Every file opened, by whom, and the result (fd or -errno).
 *   crumbs -s scripts/opensnoop.d            (Ctrl-C to stop)
 *   crumbs -s scripts/opensnoop.d -c 'cat /etc/hostname'
 */
#pragma D option quiet

BEGIN
{
    printf("%-16s %6s %4s %s\n", "COMM", "PID", "FD", "PATH");
}

syscall::openat:entry
{
    self->path = arg1;
}

syscall::openat:return
/self->path/
{
    printf("%-16s %6d %4d %s\n", execname, pid, arg0, copyinstr(self->path));
    self->path = 0;
}
