/* if/else with output in a branch (a guarded record), assignments and ++ as values,
   global and thread-local associative arrays, a string-literal key padded as a name,
   declarations and an inline. */
inline int LIMIT = 4096;
int calls;
self long ts[int];

syscall::read:entry
/(n = arg2) > 0/
{
    self->ts[arg0] = timestamp;
    sizes[execname, arg0] += n;
    @[calls++] = count();
    if (arg2 > LIMIT) {
        printf("big %d\n", arg2);
    } else if (arg2 == 0) {
        trace(0);
    } else {
        x = y = 1;
    }
}

syscall::read:return
/self->ts[0]/
{
    self->ts[0] = 0;
    printf("%d %d\n", sizes["cat", 0], ++calls);
}
