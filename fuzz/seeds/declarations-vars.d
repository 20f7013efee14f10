#!/usr/bin/env -S crumbs -s
/* Declared variables and inlines (spec §5.7). */
#pragma D option quiet

inline int LIMIT = 4096;
inline string ME = "cat";
inline long BIG = LIMIT * 1024L;
int calls;
self unsigned long start;
this short small;
unsigned int bytes[int, long];
struct task_struct *task;

syscall::read:entry
/execname == ME/
{
    self->start = timestamp;
    this->small = arg2 > LIMIT;
    calls++;
    bytes[pid, arg0] += arg2;
    task = curthread;
}

syscall::read:return
/self->start/
{
    @[this->small] = quantize(timestamp - self->start);
    self->start = 0;
}

END
{
    printf("%d %d %d %d\n", calls, bytes[$target, 0], BIG, task != 0);
}
