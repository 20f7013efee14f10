#!/usr/bin/env -S crumbs -s
/* if/else, blocks, assignments and ++/-- as values, associative arrays (spec §3.3, §4.6, §5.6). */
#pragma D option quiet

syscall::read:entry
/pid == $target && (n = arg2) > 0/
{
    self->ts[arg0] = timestamp;
    self->fd = arg0 + 1;
    sizes[execname, arg0] += n;
    @calls[i++] = count();
    if (arg2 > 4096) {
        @big = count();
    } else if (arg2 == 0) {
        @zero = count();
    } else {
        { this->small = 1; }
        @small = sum(this->small);
    }
}

syscall::read:return
/self->fd && self->ts[self->fd - 1]/
{
    @lat = quantize(timestamp - self->ts[self->fd - 1]);
    self->ts[self->fd - 1] = 0;
    if (arg1 < 0) printf("error %d\n", errno); else if (arg1 == 0) trace(0);
    self->fd = 0
}

END
{
    printf("%d %d %d\n", sizes["cat", 0], ++i, i--);
    x = y = 3;
    a[x, "k"] = y++;
    printf("%d %d\n", a[3, "k"], --a[3, "k"]);
}

syscall:::return
/self->fd/
{
    @ids[id] = count();
}
