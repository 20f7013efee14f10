/*
 * crumbs' library of bpftrace's process names and ids that its standard library defines
 * from the current task (bpftrace's docs/stdlib.md: pcomm, leader_comm, leader_tid): read by
 * bpftrace programs that name them. `ppid` is a builtin of both dialects.
 */
inline string pcomm = curthread->real_parent->comm;
inline string leader_comm = curthread->group_leader->comm;
inline pid_t leader_tid = curthread->group_leader->pid;
