syscall:::entry { @[execname] = count(); }
