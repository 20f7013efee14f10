/* C types (spec §4.8): struct chasing from curthread, a kernel string, casts, a bitfield,
   indexing, pointer arithmetic, sizeof and offsetof, print() of a struct, against the fixed kernel types of
   tests/snapshots.rs; and a struct and an enum of the script's own. */
struct pair { short a; long b; unsigned flag : 1; };
enum level { LOW, HIGH = 10 };
BEGIN {
	printf("%d %d %s\n", curthread->real_parent->tgid, curthread->pid, curthread->comm);
	printf("%d %d %d\n", (char)arg0, (unsigned short)arg1, (int)arg2);
	printf("%d %c\n", curthread->in_execve, curthread->comm[1]);
	printf("%d %d %d\n", sizeof(struct task_struct), offsetof(struct task_struct, tasks.prev), (long)(curthread + 1));
	printf("%d %d %d\n", ((struct pair *)arg0)->b, ((struct pair *)arg0)->flag, HIGH);
	@[curthread->comm] = count();
	print(curthread->tasks);
	exit(0);
}
