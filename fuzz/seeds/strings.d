#pragma D option strsize=40
string g;
self string name[int];
syscall::openat:entry { self->path = copyinstr(arg1); g = basename(self->path); self->name[0] = dirname(self->path); }
syscall::openat:entry /self->path > g && strlen(g) < 30/ { this->s = strjoin(toupper(g), substr(self->path, -3)); @[this->s, probefunc] = count(); }
syscall::openat:return /self->path != "" ? 1 : 0/ { printf("%s %s %d\n", self->path == "" ? "none" : tolower(self->path), self->name[0], strlen(execname)); self->path = ""; }
syscall::read:entry { a[execname] = probefunc; x = y = "both"; }
syscall::read:return /a[execname] == probefunc/ { trace(a[execname]); trace(x < y); }
