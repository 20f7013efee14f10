/* Kernel stacks and symbols: stack(n), the stackframes option, func/sym/mod, caller, stackdepth (integers computed in the kernel), %a and %k. */
#pragma D option stackframes=3
syscall::read:entry { @f[func(caller)] = count(); @m[mod(caller), stack(2)] = sum(arg2); @d[stackdepth, caller] = count(); }
profile-997 /arg0/ { @p[sym(arg0)] = count(); @s[stack()] = count(); }
syscall::write:entry /pid == $target/ { printf("%a %-30a %p %d %k|%-4k\n", caller, arg1, func(arg0), stackdepth, stack(1), stack(64)); mod(arg0); trace(sym(caller)); stack(5); }
tick-1s { printa("%a %k %@d\n", @m); printa("%-40a %@d\n", @f); exit(0); }
syscall::read:entry /stackdepth > 2 && caller != 0/ { self->c = caller; this->d = stackdepth + 1; @a[caller - self->c] = avg(stackdepth * 2); @x = max(caller); printf("%a %d\n", self->c, this->d - 1 == stackdepth); }
tracepoint:sched:sched_switch /stackdepth < 64/ { @t[mod(caller), stackdepth % 3] = count(); }
