/* pid and uprobe probes (the sample process 42 and its libc): arguments from the user
   registers and stack, return values, the pid filter, an instruction offset. */
pid42:a.out:work:entry { @calls[probemod, probefunc] = count(); @args = sum(arg0 + arg7); }
pid42:a.out:work:return { @ret = quantize(retval); }
pid42:a.out:main:1a { trace(probename); }
uretprobe:libc:read { @bytes = sum(arg1); }
/* USDT: arguments from a register, memory and a constant; a semaphore. */
sample42:::start { @usdt = sum(arg0 + arg1 + arg2); }
usdt:/usr/bin/sample:sample:tick { @ticks = sum(arg0); }
