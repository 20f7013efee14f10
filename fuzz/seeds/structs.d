/* Structs and unions by value (spec §4.11): copied into every kind of variable and an
   array's element, members read back with `.`, printed whole, deleted by 0. */
struct pair { int a; char b; long c[2]; };
union word { int i; char c[4]; };

BEGIN
{
    this->t = *curthread;
    self->t = *curthread;
    t = *curthread;
    a[pid] = *curthread;
    l = *(struct list_head *)&curthread->tasks;
    printf("%d %d %d %d\n", this->t.pid, self->t.tgid, t.real_parent->pid, a[pid].pid);
    printf("%d %d\n", l.next == curthread->tasks.next, this->t.tasks.prev == l.prev);
    this->p = *(struct pair *)arg0;
    self->w = *(union word *)arg1;
    printf("%d %c %d %d\n", this->p.a, this->p.b, this->p.c[1], self->w.c[2]);
    b[this->p.a, "k"] = *(struct pair *)arg2;
    trace(b[1, "k"].c[0]);
    print(this->p);
    trace(self->w);
    a[pid] = a[pid];
    a[pid] = 0;
    self->w = 0;
    trace(&this->p.c[1]);
    exit(0);
}
