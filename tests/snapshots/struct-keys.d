/* spec §4.11, §5.6, §5.7: declared struct variables, member stores (an integer, a
   bitfield, a struct copied), a thread-local created by its first member store, and
   structs as array and aggregation keys. */
struct rec { int pos; char c; unsigned int f : 3; };
struct rec r;
self struct rec s;
int seen[struct rec];

syscall::read:entry
{
    r.pos = arg2;
    r.f = 5;
    self->s.c = 'x';
    self->s = r;
    seen[r] += 1;
    @[r, execname] = count();
}
