/* C-typed forms crumbs must reject with a diagnostic, never a crash. */
BEGIN { trace(((struct no_such *)arg0)->x); trace(curthread->real_parnet); trace(curthread.pid); }
BEGIN { trace(arg0->pid); trace(*pid); trace((struct task_struct)arg0); trace(sizeof(struct nope)); }
BEGIN { trace(offsetof(struct list_head, nxt)); trace(&1); trace((void)x); trace(*(void *)arg0); }
BEGIN { trace((long char)x); trace((u64)x); trace((a) - b); trace(x[1][2]); trace(self->x->y); }
BEGIN { trace(args->f.g); trace(sizeof(x)->y); trace((int *****)arg0); trace(curthread->comm[100]); }
