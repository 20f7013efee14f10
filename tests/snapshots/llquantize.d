syscall::read:return /arg0 > 0/ { @sizes[execname] = llquantize(arg0, 10, 0, 4, 20); @clamped = llquantize(arg0, 10, 16, 18, 10); @bytes[execname] = sum(arg0); }
END { printa("%s %@d %@d\n", @bytes, @sizes); printa(@bytes, @sizes); }
