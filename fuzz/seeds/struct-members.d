/* Declared structs, member stores, struct keys (spec §4.11, §5.6, §5.7). */
#pragma D option quiet
struct coords { int x; int y; };
struct particle { struct coords position; struct coords velocity; };
struct bits { unsigned int a : 3; int b : 5; unsigned int c : 8; };
struct particle P;
this struct coords q;
self struct particle s;
struct bits B;
struct coords pts[int];
int seen[struct coords];

BEGIN
{
    P.position.x = 1; P.velocity = P.position; P.velocity.y += 2;
    this->q.x = 15; self->s.velocity = this->q; pts[3].y = 9;
    B.a = 5; B.b = -3; B.c++;
    seen[P.position] = 1; seen[this->q]++;
    @a[P.velocity] = count(); @b[B, "k"] = sum(B.c); @c[curthread->fs->pwd] = count();
    printf("%d %d %d %d\n", P.velocity.y, self->s.velocity.x, pts[3].y, seen[P.position]);
    exit(0);
}
