/* Run-time faults and the ERROR probe (spec §4.10). */
BEGIN { myid = id; z = 0; }
BEGIN /1 / (arg0 - arg0)/ { trace(1); }
BEGIN { x = 7 % z; printf("not reached\n"); }
BEGIN { p = (int *)0x4000; y = *p; trace(y); }
BEGIN { trace(((struct task_struct *)NULL)->pid); }
BEGIN { trace(curthread->comm[arg0 + 20]); }
syscall::openat:entry /execname == "cat"/ { printf("%s\n", copyinstr(arg1 + 0x100000000000)); }
ERROR { @errors[arg1, arg2, arg4] = count(); printf("%d %d %d %d %s\n", arg1, arg2, arg4, arg5 == NULL, probename); }
ERROR /arg4 == DTRACEFLT_DIVZERO/ { q = 1 / arg0; }
BEGIN { exit(0); }
