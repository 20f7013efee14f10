/* sysloop: the per-syscall overhead workload (copy of /work/shared/bench/sysloop.c).
 * Calls getppid through syscall(2) N times (default 2000000) and prints the mean cost
 * as "<ns> ns/syscall". Built by benches/run with gcc -O2. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
	printf("%.1f ns/syscall\n", ns);
	return 0;
}
