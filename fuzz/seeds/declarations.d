#include <linux/sched.h>
struct point { int x; int y; char tag[3]; long z; struct point *next; };
union both { unsigned char b; int i; };
struct flags { unsigned a:3; unsigned b:5; int c:2; };
enum color { RED, GREEN = 5, BLUE };
typedef struct point point_t;
BEGIN { printf("%d %d %d\n", sizeof(point_t), offsetof(struct point, z), BLUE); trace(((struct flags *)curthread)->b); exit(0); }
