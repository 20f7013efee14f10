BEGIN { x = 3; printf("%d %s %5.2x|%-4c|\n", x * 2 + 1, execname, 255, 65); trace(pid); trace("text"); }
syscall::getppid:entry /x > 0 ? 1 : 0/ { x--; self->n++; this->t = timestamp; printf("%d %d\n", self->n, this->t % 7); }
END { printf("%u\n", x ^^ 1); exit(3); }
