#pragma D option strsize=64
syscall::openat:entry { self->path = copyinstr(arg1); this->i = index(self->path, "/", 1); this->r = rindex(self->path, "/"); }
syscall::openat:entry /index(self->path, "etc") >= 0 && rindex(self->path, "o", -1) < 0/ { printf("%s|%S|%s\n", strstr(self->path, "etc"), strchr(self->path, '/'), strrchr(self->path, 'h')); }
syscall::openat:entry { printf("[%s]", strtok(self->path, "/")); printf("[%s][%s]\n", strtok(NULL, "/"), strtok(NULL, "")); @[lltostr(htons(arg2)), strtok(NULL, ".")] = count(); }
syscall::openat:return /progenyof($target) && rand() != 0/ { trace(lltostr(arg1)); trace(ntohl(htonl(arg1)) + ntohs(1) + htonll(2) + ntohll(3)); self->path = ""; }
tracepoint:raw_syscalls:sys_enter /args->id == 39/ { printf("%s %s %s %s\n", inet_ntoa(&args->args[2]), inet_ntoa6(&args->args[2]), inet_ntoa6(&args->args[2], 1), inet_ntop(arg0 == 0 ? 2 : 10, &args->args[2])); }
syscall::openat:return { tracemem(curthread, 40); tracemem(curthread, 16, arg1); }
syscall::read:return /arg1 > 0/ { printf("%s %s %s\n", lltostr(arg1, 16), lltostr(arg0, 2), lltostr(arg1, arg0 % 40)); @[lltostr(arg2, 36), lltostr(arg0, 8)] = count(); }
