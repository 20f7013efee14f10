BEGIN { printf("%d %d %d %d\n", ppid, uid, cpu, walltimestamp > 0); exit(0); }
