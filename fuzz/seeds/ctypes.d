/* C types (spec §4.8): casts, members, indexing, * and &, sizeof and offsetof, with the
   kernel types the fuzzer's fixed kernel knows (struct task_struct, struct list_head, pid_t). */
BEGIN
{
    printf("%d %d %s\n", curthread->real_parent->tgid, curthread->pid, curthread->comm);
    printf("%d %d %d %d\n", (char)arg0, (unsigned char)arg1, (short int)arg2, (long long)-1);
    printf("%d %d %d\n", (unsigned)0x1ffffffff, (const volatile int)7, (_Bool)2);
    printf("%d %d %d\n", (int8_t)200, (uint64_t)-1, (size_t)*&curthread->pid);
    printf("%d %c %c\n", curthread->in_execve, curthread->comm[1], *curthread->comm);
    printf("%d %d\n", ((struct task_struct *)curthread)->real_parent->pid, (*curthread).tgid);
    printf("%d\n", ((struct list_head *)&curthread->tasks)->next->prev == &curthread->tasks);
    printf("%d %d %d\n", sizeof(struct task_struct), sizeof(int), sizeof(char *));
    printf("%d %d %d\n", sizeof curthread->comm, sizeof(*curthread), sizeof -1 + 1);
    printf("%d %d\n", offsetof(struct task_struct, tasks.prev), offsetof(struct list_head, next));
    printf("%d %d\n", (long)(curthread + 1) - (long)curthread, (long)&curthread->comm[3]);
    printf("%d %d\n", (pid_t)curthread->pid, (pid_t)(curthread->tgid + 1));
    this->t = (long)curthread->real_parent;
    self->p = curthread->pid;
    @[curthread->comm] = count();
    @p[(int)curthread->pid, curthread->comm] = sum(sizeof(struct list_head));
    trace(curthread->comm);
    exit(0);
}
