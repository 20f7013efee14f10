/* Kernel stacks and symbols: stack(n), the stackframes option, func/sym/mod, caller, stackdepth, %a and %k. */
#pragma D option stackframes=3
syscall::read:entry { @f[func(caller)] = count(); @m[mod(caller), stack(2)] = sum(arg2); @d[stackdepth, caller] = count(); }
profile-997 /arg0/ { @p[sym(arg0)] = count(); @s[stack()] = count(); }
syscall::write:entry /pid == $target/ { printf("%a %-30a %p %d %k|%-4k\n", caller, arg1, func(arg0), stackdepth, stack(1), stack(64)); mod(arg0); trace(sym(caller)); stack(5); }
tick-1s { printa("%a %k %@d\n", @m); printa("%-40a %@d\n", @f); exit(0); }
