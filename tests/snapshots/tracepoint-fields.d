/* Tracepoint fields with C types (spec §6.5): an array of integers indexed as a C array,
   and a __data_loc string read from the record. */
tracepoint:raw_syscalls:sys_enter /args->id == 0/ { @[args->args[2]] = count(); }
tracepoint:sched:sched_process_exec { printf("%s %d\n", args->filename, args->filename == "/bin/true"); }
