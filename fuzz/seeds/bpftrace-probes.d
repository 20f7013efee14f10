// bpftrace's spellings of timed probes and of BEGIN/END, which D programs take too.
interval:s:1, interval:100ms, i:ms:250 { @ticks = count(); } profile:hz:99, p:us:500 { @p[cpu] = count(); }
begin { printf("begin\n"); } end { printa(@ticks); }
