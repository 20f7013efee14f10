/* User stacks and symbols: ustack(n), jstack(n) and the jstackframes option, the ustackframes option, usym/ufunc/uaddr/umod, ucaller, ustackdepth, %A and %k. */
#pragma D option ustackframes=4
#pragma D option jstackframes=3
#pragma D option jstackstrsize=1k
syscall::write:entry { @f[usym(ucaller)] = count(); @m[umod(arg1), ustack(2)] = sum(arg2); @d[ustackdepth, ucaller] = count(); @a[uaddr(arg1), ufunc(arg1)] = count(); }
profile-997 /arg1/ { @p[ufunc(arg1)] = count(); @s[ustack()] = count(); }
syscall::write:entry /pid == $target/ { printf("%A %-30A %p %d %k|%-4k\n", ucaller, arg1, usym(arg0), ustackdepth, ustack(1), ustack(100, 0)); umod(arg0); trace(uaddr(ucaller)); ustack(5); }
tick-1s { printa("%A %k %@d\n", @m); printa("%-40A %@d\n", @f); exit(0); }
syscall::read:entry /pid == $target/ { @j[jstack()] = count(); jstack(2, 64); printf("%k|%-3k\n", jstack(), jstack(1)); }
syscall::write:entry /ustackdepth > 1 && ucaller != 0/ { self->u = ucaller; @u[usym(self->u), ustackdepth / 2] = sum(ustackdepth + 1); printf("%A\n", self->u + 0); }
