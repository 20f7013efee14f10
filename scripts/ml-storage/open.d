#!/usr/bin/env -S crumbs -s
/*
 * One line per openat() system call and per vfs_open() call of the processes named COMM:
 * when it returned (ns since boot, and local time), who, which (openat or vfs_open), its
 * latency (ns), and the file: the path the program passed to openat(), the name of the
 * dentry vfs_open() opened.
 *   crumbs -s scripts/ml-storage/open.d python                (Ctrl-C to stop)
 *   crumbs -s scripts/ml-storage/open.d io-benchmark -c 'io-benchmark -c -r /tmp/f'
 *
 * A D rendering of the ML-storage researchers' bpftrace script trace_open.bt (repository
 * jovonho/mlperf-traces, branch dgx1_v2), with its columns. What differs:
 * - the processes traced are those whose name is the first argument (COMM, `$$1`): dgx1_v2
 *   skips a list of system daemons by name, later versions keep only `comm == "python"`;
 * - tracepoint:syscalls:sys_enter_openat/sys_exit_openat become syscall::openat:entry and
 *   return (args[1] is the user's path, read with copyinstr() at return, when the kernel
 *   has read it too); kprobe/kretprobe:vfs_open become fbt entry/return probes, whose
 *   args[0] is typed from the kernel's BTF (a struct path *, no cast or #include); the
 *   per-thread maps become thread-locals, freed at return (so END has nothing to clear);
 * - vfs_open()'s name is copied at entry (bpftrace kept the pointer and read it at
 *   return); the latency prints unsigned; the constant @func map is the literal "openat";
 * - TIME is walltimestamp when the call returned, printed with %Y (date and local time, so the
 *   column is 20 wide), where bpftrace's time() printed HH:MM:SS when its reader saw the event.
 * A vfs_open() row comes before the row of the openat() that called it.
 */
#pragma D option quiet

BEGIN
{
    printf("%-17s %-20s %-8s %-14s %-12s %-6s ", "TIMESTAMP", "TIME", "PID", "COMM", "FUNC", "LAT(ns)");
    printf("%s\n", "FILENAME");
}

syscall::openat:entry
/execname == $$1/
{
    self->ostart = timestamp;
    self->opath = args[1];
}

syscall::openat:return
/self->ostart/
{
    this->now = timestamp;
    printf("%-17u %-20Y %-8d %-14s %-12s %-6u %s\n", this->now, walltimestamp, pid, execname,
        "openat", this->now - self->ostart, copyinstr(self->opath));
    self->ostart = 0;
    self->opath = 0;
}

fbt::vfs_open:entry
/execname == $$1/
{
    self->vstart = timestamp;
    self->vname = stringof(args[0]->dentry->d_name.name);
}

fbt::vfs_open:return
/self->vstart/
{
    this->now = timestamp;
    printf("%-17u %-20Y %-8d %-14s %-12s %-6u %s\n", this->now, walltimestamp, pid, execname,
        "vfs_open", this->now - self->vstart, self->vname);
    self->vstart = 0;
    self->vname = "";
}
