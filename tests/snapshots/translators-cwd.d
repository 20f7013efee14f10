/* A script's translator and xlate (spec §5.9), cwd (§5.1) and a scalar array (§5.7). */
struct ids { int me; int parent; long twice; char name[16]; };
translator struct ids < struct task_struct *T > { me = T->tgid; parent = T->real_parent->tgid; twice = 2 * T->tgid; name = T->comm; };
inline struct ids *mine = xlate <struct ids *> (curthread);
int counts[4];
syscall::openat:entry /mine->me == pid/ { counts[arg2 & 3]++; @[mine->name] = count(); printf("%s\n", cwd); }
END { printf("%d %d %d %d\n", counts[0], counts[1], counts[2], counts[3]); }
