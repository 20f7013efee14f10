/* System call arguments typed by their prototypes (spec §6.3, §4.8): integers at their
   width, pointers into the process read with copyinstr; arg6..arg9. */
syscall::openat:entry /args[2] & 3/ { printf("%s %d %u\n", copyinstr(args[1]), args[0], args[3]); }
syscall::read:entry, syscall::write:entry { @[probefunc, args[0]] = sum(args[2]); trace(arg9); }
syscall::read:return { @r[args[0] == args[1]] = count(); }
tracepoint:syscalls:sys_enter_openat { printf("%s\n", copyinstr(args->filename)); }
