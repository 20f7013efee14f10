/* Programs crumbs must reject with a diagnostic, never a crash. */
BEGIN { printf("%d %d\n", 1); x = "s"; y = execname + 1; @a = count(); @a = sum(1); this->never; self->none; }
syscall::nosuchcall:entry, nosuchprovider:::, tracepoint:nosuch:thing, profile-0, tick-1ns
/execname/
{ trace(args->nosuchfield); printf("%s", 1); printf(x); exit("s"); lquantize(1, 10, 0, 0); trunc(@nope); $9; $target; 08; '\x41\x42'; "\q"; }
#pragma D option nosuchoption
#pragma D option bufsize=1t
#pragma once
