BEGIN { i = 0; i = 0x1ffffffff; self->s = (short)0; self->s += 40000; this->c = (unsigned char)0; this->c--; }
BEGIN { printf("%d %u %x %p %d\n", -1ul, (short)-1, (char)-1, 0xffff0000, -1ul > 0); trace(-1ul); trace((short)-2); }
END { printf("%d\n", n); } BEGIN { n = (short)-3; @[pid] = count(); @[(short)-1] = count(); exit(0); }
syscall:::entry /timestamp / 3 > arg0 >> 2/ { this->t = curthread; self->p = this->t->real_parent; @[self->p->tgid % 7u] = sum(this->t->pid); }
