struct d { char d; };
struct c { char a; unsigned b : 3; short s; struct d in; char rest[11]; int v[2]; };
BEGIN { print(*(struct c *)curthread->comm); print(curthread->comm); print(1 + 1); print("s"); trace(*curthread); exit(0); }
syscall::read:entry { print(curthread->real_parent); print((unsigned char)arg0); trace(curthread->tasks); }
