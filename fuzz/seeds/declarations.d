#include <linux/sched.h>
struct point { int x; int y; char tag[3]; long z; struct point *next; };
union both { unsigned char b; int i; };
struct flags { unsigned a:3; unsigned b:5; int c:2; };
enum color { RED, GREEN = 5, BLUE };
typedef struct point point_t;
BEGIN { printf("%d %d %d\n", sizeof(point_t), offsetof(struct point, z), BLUE); trace(((struct flags *)curthread)->b); exit(0); }
struct nest { int a; struct { char d; long e; } in; union { int i; char c[8]; }; struct inner { int x, *y, z[3]; } p; struct tagonly { short t; }; };
BEGIN { trace(sizeof(struct nest)); trace(offsetof(struct nest, in.e)); trace(offsetof(struct nest, c)); trace(sizeof(struct tagonly)); print(*(struct nest *)curthread); }
int sa[4]; long sbig[1000];
BEGIN { sa[1] = 2; sa[3] = sa[1] + 5; sa[2]++; sbig[999] = sa[i % 4]; trace(sa[i + 4]); }
int k1, *k2, k3[4]; self int s1, s2; struct pt { int x; int y; } p1, p2; BEGIN { k1 = 1; k3[2] = k1; self->s2 = k3[2]; p1.x = 3; p2.y = p1.x; exit(0); }
