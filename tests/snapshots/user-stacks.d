#pragma D option ustackframes=4
syscall::write:entry { @f[usym(ucaller)] = count(); @m[umod(arg1)] = count(); @s[ustack(3)] = count(); @a[uaddr(arg1), ufunc(arg1)] = count(); }
syscall::write:entry /pid == $target/ { printf("%A %p %-20A %d %k %A\n", ucaller, arg1, usym(arg1), ustackdepth, ustack(2, 100), arg1); ufunc(arg1); trace(umod(ucaller)); ustack(); }
