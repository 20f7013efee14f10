#!/usr/bin/env -S crumbs -s
/*
 * One line per vfs_read()/vfs_write() call of the processes named COMM: when it returned
 * (ns since boot, and local time), who, R or W, its latency (ns), the bytes asked for, the
 * bytes it returned (or -errno) and the file's name.
 *   crumbs -s scripts/ml-storage/vfs_rw.d python              (Ctrl-C to stop)
 *   crumbs -s scripts/ml-storage/vfs_rw.d io-benchmark -c 'io-benchmark -c -r -b 512 /tmp/f'
 *
 * A D rendering of the ML-storage researchers' bpftrace script trace_vfs_rw.bt (repository
 * jovonho/mlperf-traces, branch dgx1_v2), with its columns. What differs:
 * - the processes traced are those whose name is the first argument (COMM, `$$1`): dgx1_v2
 *   skips a list of system daemons by name, later versions keep only `comm == "python"`;
 * - kprobe/kretprobe become fbt entry/return probes (any fbt attach mode: `-x fbtmode=...`),
 *   and the per-thread maps @start[tid]... thread-locals, freed at return (so END has
 *   nothing to clear); the unused file offset (@off, arg3) is not kept;
 * - the arguments are typed from the kernel's BTF: the name comes from
 *   args[0]->f_path.dentry->d_name.name without a cast or #include, the requested bytes
 *   (args[2], a size_t) and the latency (unsigned 64-bit) print unsigned, the returned bytes
 *   (args[1] at return, a ssize_t) signed;
 * - TIME is walltimestamp when the call returned, printed with %Y (date and local time, so the
 *   column is 20 wide), where bpftrace's time() printed HH:MM:SS when its reader saw the event.
 */
#pragma D option quiet

BEGIN
{
    printf("Capturing VFS Read and Write calls\n");
    printf("%-17s %-20s %-6s %-14s %-4s %-7s ", "TIMESTAMP", "TIME", "PID", "COMM", "R/W", "LAT(ns)");
    printf("%-10s %-10s %s\n", "REQUESTED", "RETURNED", "FILE");
}

fbt::vfs_read:entry
/execname == $$1/
{
    self->rstart = timestamp;
    self->rreq = args[2];
    self->rfile = stringof(args[0]->f_path.dentry->d_name.name);
}

fbt::vfs_read:return
/self->rstart/
{
    this->now = timestamp;
    printf("%-17u %-20Y %-6d %-14s %-4s %-7u %-10u %-10d %s\n", this->now, walltimestamp,
        pid, execname, "R", this->now - self->rstart, self->rreq, args[1], self->rfile);
    self->rstart = 0;
    self->rreq = 0;
    self->rfile = "";
}

fbt::vfs_write:entry
/execname == $$1/
{
    self->wstart = timestamp;
    self->wreq = args[2];
    self->wfile = stringof(args[0]->f_path.dentry->d_name.name);
}

fbt::vfs_write:return
/self->wstart/
{
    this->now = timestamp;
    printf("%-17u %-20Y %-6d %-14s %-4s %-7u %-10u %-10d %s\n", this->now, walltimestamp,
        pid, execname, "W", this->now - self->wstart, self->wreq, args[1], self->wfile);
    self->wstart = 0;
    self->wreq = 0;
    self->wfile = "";
}
