/*
 * crumbs' standard D library: the process model of DTrace's proc(4) view (the Dynamic
 * Tracing Guide's psinfo_t and lwpsinfo_t), translated from the running kernel's
 * task_struct. Read by programs that name psinfo or lwpsinfo (spec §5.9).
 */

typedef id_t taskid_t;
typedef id_t dprojid_t;
typedef id_t poolid_t;
typedef id_t zoneid_t;

struct psinfo {
	int	pr_nlwp;	/* threads in the process */
	pid_t	pr_pid;
	pid_t	pr_ppid;
	pid_t	pr_pgid;
	pid_t	pr_sid;
	uid_t	pr_uid;
	uid_t	pr_euid;
	gid_t	pr_gid;
	gid_t	pr_egid;
	uintptr_t pr_addr;	/* the task_struct */
	size_t	pr_size;	/* the address space in KB (0 for a kernel thread) */
	struct tty_struct *pr_ttydev;	/* the controlling terminal, or (struct tty_struct *)-1 */
	char	pr_fname[16];	/* the process name (comm) */
	char	pr_psargs[80];	/* its arguments, spaces between them (the current process's only) */
	int	pr_wstat;	/* 0, as in dtrace-utils */
	int	pr_dmodel;	/* PR_MODEL_LP64 */
	taskid_t pr_taskid;	/* Solaris' task, project, pool, zone and contract: 0 */
	dprojid_t pr_projid;
	int	pr_nzomb;	/* 0, as in dtrace-utils */
	poolid_t pr_poolid;
	zoneid_t pr_zoneid;
	id_t	pr_contract;
};
typedef struct psinfo psinfo_t;

struct lwpsinfo {
	int	pr_flag;	/* PR_STOPPED if stopped */
	int	pr_lwpid;	/* the thread id */
	uintptr_t pr_addr;	/* the task_struct */
	uintptr_t pr_wchan;	/* 0, as in dtrace-utils */
	char	pr_stype;	/* 0, as in dtrace-utils */
	char	pr_state;	/* SSLEEP, SRUN, SSTOP, SZOMB, SWAIT */
	char	pr_sname;	/* 'S', 'R', 'T', 'Z', 'W' */
	char	pr_nice;	/* the nice value plus 20 (Solaris' NZERO): 0 to 39 */
	short	pr_syscall;	/* the system call the thread is in, -1 if none (the current thread's only) */
	int	pr_pri;		/* the kernel's priority (prio) */
	char	pr_clname[8];	/* the scheduling policy as ps -o cls names it: TS, FF, RR, B, ISO, IDL, DLN */
	char	pr_name[16];	/* the thread name (comm) */
	int	pr_onpro;	/* the CPU it last ran on */
};
typedef struct lwpsinfo lwpsinfo_t;

inline int PR_MODEL_ILP32 = 1;
inline int PR_MODEL_LP64 = 2;
inline int PR_STOPPED = 0x00000001;
inline char SSLEEP = 1;
inline char SRUN = 2;
inline char SZOMB = 3;
inline char SSTOP = 4;
inline char SIDL = 5;
inline char SONPROC = 6;
inline char SWAIT = 7;

translator psinfo_t < struct task_struct *T > {
	pr_nlwp = T->signal->nr_threads;
	pr_pid = T->tgid;
	pr_ppid = T->real_parent->tgid;
	pr_pgid = T->signal->pids[2]->numbers[0].nr;	/* PIDTYPE_PGID */
	pr_sid = T->signal->pids[3]->numbers[0].nr;	/* PIDTYPE_SID */
	pr_uid = T->cred->uid.val;
	pr_euid = T->cred->euid.val;
	pr_gid = T->cred->gid.val;
	pr_egid = T->cred->egid.val;
	pr_addr = (uintptr_t)T;
	pr_size = T->mm ? T->mm->total_vm << 2 : 0;	/* 4 KB pages */
	pr_ttydev = T->signal->tty ? T->signal->tty : (struct tty_struct *)-1;
	pr_fname = T->comm;
	pr_psargs = __psargs(T);
	pr_wstat = 0;
	pr_dmodel = PR_MODEL_LP64;
	pr_taskid = 0;
	pr_projid = 0;
	pr_nzomb = 0;
	pr_poolid = 0;
	pr_zoneid = 0;
	pr_contract = 0;
};

/* __state bits: TASK_INTERRUPTIBLE 1, TASK_UNINTERRUPTIBLE 2, __TASK_STOPPED 4,
   __TASK_TRACED 8, EXIT_DEAD 0x10, EXIT_ZOMBIE 0x20, TASK_DEAD 0x80, TASK_WAKEKILL 0x100,
   TASK_WAKING 0x200; 0 is running. */
translator lwpsinfo_t < struct task_struct *T > {
	pr_flag = (T->__state & 0x4) ? PR_STOPPED : 0;
	pr_lwpid = T->pid;
	pr_addr = (uintptr_t)T;
	pr_wchan = 0;
	pr_stype = 0;
	pr_state = (T->__state & 0x3) ? SSLEEP : (T->__state & 0xc) ? SSTOP : (T->__state & 0xb0) ? SZOMB : (T->__state & 0x300) ? SWAIT : SRUN;
	pr_sname = (T->__state & 0x3) ? 'S' : (T->__state & 0xc) ? 'T' : (T->__state & 0xb0) ? 'Z' : (T->__state & 0x300) ? 'W' : 'R';
	pr_nice = T->static_prio - 100;
	pr_syscall = __syscall(T);	/* static_prio is the nice value + 120 */
	pr_pri = T->prio;
	/* SCHED_OTHER 0, FIFO 1, RR 2, BATCH 3, ISO 4 (reserved), IDLE 5, DEADLINE 6 */
	pr_clname = T->policy == 0 ? "TS" : T->policy == 1 ? "FF" : T->policy == 2 ? "RR" : T->policy == 3 ? "B" :
	    T->policy == 4 ? "ISO" : T->policy == 5 ? "IDL" : T->policy == 6 ? "DLN" : "?";
	pr_name = T->comm;
	pr_onpro = T->thread_info.cpu;
};

inline psinfo_t *curpsinfo = xlate <psinfo_t *> (curthread);
inline lwpsinfo_t *curlwpsinfo = xlate <lwpsinfo_t *> (curthread);
