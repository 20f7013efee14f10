tracepoint:sched:sched_switch /args->prev_pid != 0/ { @[args->prev_comm] = count(); @pids = max(args->next_pid); }
