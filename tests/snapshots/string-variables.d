/* String variables of every kind, comparisons of two buffers, ?: of strings, subroutines. */
string last;
syscall::openat:entry { self->path = copyinstr(arg1); }
syscall::openat:entry /basename(self->path) != last && probefunc < "z"/ { this->base = basename(self->path); last = this->base; files[pid] = strjoin(dirname(self->path), "/"); }
syscall::openat:return { printf("%s %d %s\n", pid ? toupper(last) : execname, strlen(files[pid]), substr(self->path, -4, 3)); self->path = ""; }
