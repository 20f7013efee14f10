syscall::openat:entry { printf("%s %s\n", execname, copyinstr(arg1)); @[str(arg1)] = count(); }
