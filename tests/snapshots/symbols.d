#pragma D option stackframes=4
syscall::read:entry { @f[func(caller)] = count(); @m[mod(arg0)] = count(); @s[stack(3)] = count(); }
syscall::read:entry /pid == $target/ { printf("%a %p %-20a %d %k\n", caller, arg1, sym(arg0), stackdepth, stack(2)); func(arg0); trace(mod(caller)); stack(); }
