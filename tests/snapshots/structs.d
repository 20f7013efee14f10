/* spec §4.11: structs by value in each kind of variable, a member read back, a copy
   printed, an element deleted by 0. */
struct pair { int a; char b; long c[2]; };

syscall::read:entry
{
    this->t = *curthread;
    self->p = *(struct pair *)arg1;
    g = self->p;
    a[tid] = *(struct pair *)arg1;
    printf("%d %d %d %d\n", this->t.pid, self->p.b, g.c[1], a[tid].a);
    print(g);
    a[tid] = 0;
}
