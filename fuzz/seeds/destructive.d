/* Destructive actions (spec §7.15). */
#pragma D option destructive
syscall::wait4:entry /pid == 1 && !sent/ { raise(10); sent = 1; }
syscall::clock_nanosleep:entry /execname == "never"/ { stop(); }
BEGIN { system("echo %s-%d", execname, pid); exit(0); }
BEGIN { chill(1000); n = 20000; chill(n * 2); }
syscall::write:entry /(int)arg0 == -1/ { copyout(copyin(arg1 + 8, 4), arg1, 4); copyoutstr("hi", arg1, 3); }
END { freopen("/tmp/crumbs-%d.out", pid); printf("moved\n"); freopen(""); ftruncate(); }
tracepoint:net:net_dev_queue { pcap(args->skbaddr, PCAP_ETHER); } BEGIN { freopen("/tmp/x.pcap"); pcap(NULL, PCAP_IP); }
