/* Probe arguments with C types (spec §5.1, §6.3, §6.5): a system call's args[] typed by its
   prototype (an unsigned int cut from its register, a user char * read with copyinstr), a
   syscalls tracepoint's 8-byte slot read at its C type, a __data_loc array indexed, a
   parenthesised kernel typedef cast (spec §4.6), a struct defined inside a struct, and
   exit(), after which no clause runs (spec §7.4). */
struct outer { int a; struct { char d; long e; } in; union { int i; char c[8]; }; int x, *y; };
syscall::read:entry /args[0] == 0/ { @[args[2], (pid_t)-1] = count(); printf("%s\n", copyinstr(args[1])); }
tracepoint:syscalls:sys_enter_read { @fd[args->fd] = count(); }
tracepoint:dma:dma_map_sg { @len = sum(args->lengths[1]); }
BEGIN { printf("%d %d\n", sizeof(struct outer), offsetof(struct outer, in.e)); exit(0); }
