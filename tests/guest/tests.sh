# Tests of the crumbs guest lane (tests/guest/run). Sourced by the guest's /init (busybox sh,
# not bash: keep to POSIX sh). Each `test_NAME() { ... }` is one test, run in order, each in
# its own shell, cwd /, with a fresh /tmp and a timeout; exit status 0 means PASS, and
# anything it prints is shown when it fails (its lines beginning `figure: ` also when it
# passes: timings, never asserted). Run one alone with `tests/guest/run NAME`.
#
# In the guest: /bin/crumbs, /bin/io-benchmark, busybox applets, /scripts (the repo's
# scripts/, if any), tracefs at /sys/kernel/tracing, bpffs at /sys/fs/bpf, debugfs.
#
# Keep this list to what the host kernel cannot run (kprobe/fbt/fentry paths) plus a few
# end-to-end smoke tests: every test costs guest time under software emulation.

# Print a message and fail.
die() { echo "$*"; exit 1; }

# Fail unless "$2" (the output) has a line "NAME ... COUNT" where NAME is $3 and COUNT is $4
# (an aggregation row as DTrace prints it: key, then right-aligned value).
expect_row() {
    echo "$1" | awk -v k="$2" -v v="$3" '$1 == k && $NF == v { found = 1 } END { exit !found }' \
        || die "expected a row '$2 ... $3' in:
$1"
}

# ---- the kernel itself ---------------------------------------------------------------------

# kprobes exist (the host kernel has none) and BTF is there (fentry/fexit need it).
test_kprobes_available() {
    ev=/sys/kernel/tracing/kprobe_events
    [ -w "$ev" ] || die "no $ev: kernel without CONFIG_KPROBE_EVENTS, or tracefs not mounted"
    echo 'p:crumbs_guest_probe vfs_read' >> "$ev" || die "cannot add a kprobe on vfs_read"
    grep -q crumbs_guest_probe "$ev" || die "kprobe not listed in $ev"
    [ -d /sys/kernel/tracing/events/kprobes/crumbs_guest_probe ] || die "kprobe event dir missing"
    echo '-:crumbs_guest_probe' >> "$ev" || die "cannot remove the kprobe"
    ! grep -q crumbs_guest_probe "$ev" || die "kprobe still listed after removal"
    [ -s /sys/kernel/btf/vmlinux ] || die "no /sys/kernel/btf/vmlinux: fentry needs BTF"
    grep -qw vfs_read /proc/kallsyms || die "vfs_read not in /proc/kallsyms"
}

# The workload alone: 64K read in 512-byte read()s is 128 reads.
# Needs: io-benchmark's -c/-r/-b/-s/-j CLI.
test_iobench_reads() {
    out=$(io-benchmark -c -r -b 512 -s 64K -j /tmp/f) || die "io-benchmark failed: $out"
    echo "$out" | grep -Eq '"reads": *128([^0-9]|$)' || die "expected \"reads\": 128 in: $out"
}

# ---- crumbs end to end ---------------------------------------------------------------------

# BEGIN runs once and printf reaches stdout; -q drops the default headers.
test_crumbs_begin_printf() {
    out=$(crumbs -q -e 'BEGIN { printf("hello\n"); exit(0); }' 2>&1) || die "crumbs failed: $out"
    [ "$out" = hello ] || die "expected exactly 'hello', got: $out"
}

# END runs after exit() in BEGIN.
test_crumbs_end() {
    out=$(crumbs -q -e 'BEGIN { exit(0); } END { printf("end\n"); }' 2>&1) \
        || die "crumbs failed: $out"
    echo "$out" | grep -qx end || die "expected a line 'end', got: $out"
}

# syscall provider + predicate on comm + count() aggregation keyed by probefunc, with -c
# starting the workload after the probes are attached: exactly 128 read()s. This is the
# card one-liner exactly as users type it (`< >` action block, `comm`).
test_crumbs_syscall_count() {
    out=$(crumbs -e 'syscall:::entry /comm=="io-benchmark"/ <@[probefunc]=count()>' \
        -c 'io-benchmark -c -r -b 512 -s 64K /tmp/f' 2>&1) || die "crumbs failed: $out"
    expect_row "$out" read 128
}

# The students' L41 script (scripts/l41-syscalls.d) brackets the benchmark's work loop with
# its raw clock_gettime calls and counts syscalls inside it: the read loop is 128 reads.
test_crumbs_l41_script() {
    [ -f scripts/l41-syscalls.d ] || die "scripts/l41-syscalls.d is not in the repo (yet)"
    out=$(crumbs -s scripts/l41-syscalls.d -c 'io-benchmark -c -r -b 512 -s 64K /tmp/f' 2>&1) \
        || die "crumbs failed: $out"
    expect_row "$out" read 128
}

# Thread-local variables, quantize() printing and ppid (task_struct offsets from this
# kernel's BTF) on a kernel older than the host's: every read is timed exactly once.
test_crumbs_thread_locals_quantize() {
    out=$(crumbs -q -e 'syscall::read:entry /pid == $target/ { self->ts = timestamp; }
        syscall::read:return /self->ts/ { @n = count(); @q = quantize(timestamp - self->ts); self->ts = 0; }
        END { printf("ppid-ok %d\n", ppid > 0); }' \
        -c 'io-benchmark -c -r -b 512 -s 64K /tmp/f' 2>&1) || die "crumbs failed: $out"
    echo "$out" | grep -qx 'ppid-ok 1' || die "expected 'ppid-ok 1' in: $out"
    echo "$out" | grep -Eqx ' +128' || die "expected a count of 128 in: $out"
    echo "$out" | grep -q -- '------------- Distribution ------------- count' || die "no quantize table in: $out"
}

# The profile provider (cpu-clock perf events) on the older kernel: three ticks, in order.
test_crumbs_profile_tick() {
    out=$(crumbs -q -e 'tick-100ms { n++; printf("tick %d\n", n); } tick-100ms /n == 3/ { exit(0); }' 2>&1) \
        || die "crumbs failed: $out"
    [ "$out" = "$(printf 'tick 1\ntick 2\ntick 3\n')" ] || die "expected three ticks, got: $out"
}

# stack() from a syscall probe on the older kernel: symbolized kernel frames.
test_crumbs_stack() {
    out=$(crumbs -q -e 'syscall::read:entry /pid == $target/ { @[stack()] = count(); }' \
        -c 'io-benchmark -c -r -b 4096 -s 64K /tmp/f' 2>&1) || die "crumbs failed: $out"
    echo "$out" | grep -q '^              vmlinux`.*+0x' || die "no symbolized kernel frame in: $out"
    echo "$out" | grep -Eqx ' +16' || die "expected the 16 reads counted in: $out"
}

# The tracepoint provider on the older kernel: exact fields of io-benchmark's reads.
# DTrace's stable providers on the stock kernel's raw tracepoints: exact process counts of a
# shell that runs io-benchmark twice (fork and exec each time), the exit reason, off-cpu
# in the target; sched:::on-cpu is a clear error where the kernel lacks sched_exit_tp (6.1).
test_crumbs_stable_providers() {
    out=$(crumbs -q -e 'proc:::create /pid == $target/ { creates++; }
        proc:::exec-success /curpsinfo->pr_ppid == $target/ { execs++; }
        proc:::exit /curpsinfo->pr_ppid == $target/ { @reason[args[0]] = count(); }
        sched:::off-cpu /pid == $target/ { off++; }
        END { printf("create %d exec %d off %d\n", creates, execs, off > 0); }' \
        -c 'sh -c "io-benchmark -c -r -b 512 -s 4K /tmp/f; io-benchmark -r -b 512 -s 4K /tmp/f; true"' 2>&1) \
        || die "crumbs failed: $out"
    echo "$out" | grep -qx 'create 2 exec 2 off 1' || die "expected 2 creates and execs in: $out"
    expect_row "$out" 1 2
    # sched's probes on kernel functions (on-cpu too before 6.16: finish_task_switch), in
    # the threads they name: on-cpu always in a running thread.
    out=$(crumbs -q -e 'sched:::on-cpu /pid == $target/ { on++; running += curlwpsinfo->pr_state == SRUN; }
        sched:::off-cpu /pid == $target/ { off++; }
        sched:::enqueue /args[1]->pr_pid == $target/ { enq++; cpus += args[2]->cpu_id >= 0; }
        sched:::dequeue /args[1]->pr_pid == $target/ { deq++; }
        sched:::tick { ticks++; }
        END { printf("on %d %d off %d enqueue %d %d dequeue %d tick %d\n", on > 0, on == running, off > 0, enq > 0, enq == cpus, deq > 0, ticks > 0); }' \
        -c 'sleep 0.3' 2>&1) || die "crumbs failed: $out"
    echo "$out" | grep -qx 'on 1 1 off 1 enqueue 1 1 dequeue 1 tick 1' || die "expected every sched probe to fire in: $out"
}

# io's probes on a loop device only the test writes to: every byte of eight direct 4 KiB
# writes at start and done; the fsync's flush waited for (wait-start and wait-done, on
# submit_bio_wait, in the writer).
test_crumbs_io_provider() {
    insmod /lib/modules/loop.ko 2>/dev/null
    [ -e /dev/loop-control ] || die "no loop devices (insmod loop.ko failed?)"
    dd if=/dev/zero of=/tmp/disk bs=1024 count=2048 2>/dev/null
    dev=$(losetup -f) || die "no free loop device"
    losetup "$dev" /tmp/disk || die "losetup $dev failed"
    name=${dev#/dev/}
    out=$(crumbs -q -e "io:::start /args[1]->dev_statname == \"$name\"/ { w += (args[0]->b_flags & B_WRITE) ? args[0]->b_bcount : 0; }
        io:::done /args[1]->dev_statname == \"$name\"/ { d += args[0]->b_bcount; }
        io:::wait-start /args[1]->dev_statname == \"$name\" && pid == \$target/ { ws++; }
        io:::wait-done /args[1]->dev_statname == \"$name\" && pid == \$target/ { wd++; path = args[1]->dev_pathname; }
        END { printf(\"%d %d %d %d %s\\n\", w, d, ws > 0, ws == wd, path); }" \
        -c "dd if=/dev/zero of=$dev bs=4096 count=8 oflag=direct conv=fsync" 2>&1)
    rc=$?
    losetup -d "$dev"
    [ $rc -eq 0 ] || die "crumbs failed: $out"
    echo "$out" | grep -qx "32768 32768 1 1 $dev" || die "expected 32768 bytes written and done, the flush waited for, in: $out"
}

test_crumbs_tracepoint() {
    out=$(crumbs -q -e 'tracepoint:syscalls:sys_enter_read /pid == $target/ { @[args->count] = count(); }
        tracepoint:syscalls:sys_exit_read /pid == $target/ { @bytes = sum(args->ret); }' \
        -c 'io-benchmark -c -r -b 4096 -s 64K /tmp/f' 2>&1) || die "crumbs failed: $out"
    expect_row "$out" 4096 16
    echo "$out" | grep -Eqx ' +65536' || die "expected 65536 bytes read in: $out"
}

# copyinstr() of a system call argument on the older kernel.
test_crumbs_copyinstr() {
    out=$(crumbs -q -e 'syscall::openat:entry /pid == $target/ { @[copyinstr(arg1)] = count(); }' \
        -c 'io-benchmark -c -r -b 4096 -s 64K /tmp/copyin-file' 2>&1) || die "crumbs failed: $out"
    echo "$out" | grep -q '^  /tmp/copyin-file ' || die "expected /tmp/copyin-file as a key in: $out"
}

# C types on the older kernel: task_struct's layout differs from the host's, so equal
# values prove the offsets come from the running kernel's BTF (read from a copy in memory:
# 6.1 cannot mmap /sys/kernel/btf/vmlinux).
test_crumbs_struct_walk() {
    out=$(crumbs -q -e 'syscall::read:entry /pid == $target/ {
            printf("walk %d %d %d %d %s %s\n", curthread->real_parent->tgid, ppid, curthread->tgid, pid,
                curthread->comm, curthread->mm->exe_file->f_path.dentry->d_name.name); exit(0); }' \
        -c 'io-benchmark -c -r -b 4096 -s 64K /tmp/f' 2>&1) || die "crumbs failed: $out"
    line=$(echo "$out" | grep '^walk ') || die "no walk line in: $out"
    set -- $line
    [ "$2" = "$3" ] || die "curthread->real_parent->tgid $2 is not ppid $3: $out"
    [ "$4" = "$5" ] || die "curthread->tgid $4 is not pid $5: $out"
    [ "$6" = "io-benchmark" ] || die "curthread->comm is '$6': $out"
    [ "$7" = "io-benchmark" ] || die "the exe's name is '$7': $out"
}

# The premise of the struct walks: this kernel's task_struct is laid out unlike the host's
# (the host's offset and size come on the kernel command line from tests/guest/run), and
# the walk through the guest's offset finds the right parent.
test_crumbs_layout_differs() {
    host=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^crumbs.host_layout=//p')
    [ -n "$host" ] || die "no crumbs.host_layout= on the kernel command line: $(cat /proc/cmdline)"
    out=$(crumbs -q -e 'BEGIN { printf("%d,%d %d\n", offsetof(struct task_struct, real_parent), sizeof(struct task_struct),
            curthread->real_parent->tgid == ppid); exit(0); }' 2>&1) || die "crumbs failed: $out"
    set -- $out
    [ "$1" != "$host" ] || die "task_struct's layout here ($1) is the host's ($host): the walks prove nothing"
    [ "$2" = 1 ] || die "curthread->real_parent->tgid is not ppid: $out"
    echo "figure: task_struct real_parent offset,size: guest $1, host $host"
}

# Struct chasing from a tracepoint's pointer field, and a __data_loc string, on this kernel:
# sleep arms one hrtimer whose struct holds what the record copied; sched_process_exec's
# filename is a __data_loc string (the shell's child execs io-benchmark once).
test_crumbs_tracepoint_structs() {
    out=$(crumbs -q -e 'tracepoint:timer:hrtimer_start /pid == $target/ {
            this->t = (struct hrtimer *)args->hrtimer;
            @[this->t->function == args->function, this->t->_softexpires == args->softexpires] = count(); }' \
        -c 'sleep 0.1' 2>&1) || die "crumbs failed: $out"
    echo "$out" | grep -Eq '^ +1 +1 +[1-9][0-9]*$' || die "expected the hrtimer's fields to equal the record's in: $out"
    out=$(crumbs -q -e 'tracepoint:sched:sched_process_exec /ppid == $target/ { @[stringof(args->filename)] = count(); }' \
        -c "sh -c '/bin/io-benchmark -c -r -b 4096 -s 4K /tmp/f; true'" 2>&1) || die "crumbs failed: $out"
    echo "$out" | grep -Eq '^  /bin/io-benchmark +1$' || die "expected /bin/io-benchmark exec'd once in: $out"
}

# print() of this kernel's task_struct (a different layout from the host's), and a pointer
# kept in a this-> variable.
test_crumbs_print_task_struct() {
    out=$(crumbs -q -e 'syscall::read:entry /pid == $target/ { this->t = curthread;
            printf("var %d %d\n", this->t->real_parent->tgid == ppid, this->t->pid == tid); print(*curthread); exit(0); }' \
        -c 'io-benchmark -c -r -b 4096 -s 64K /tmp/f' 2>&1) || die "crumbs failed: $out"
    echo "$out" | grep -qx 'var 1 1' || die "no 'var 1 1' line in: $out"
    echo "$out" | grep -qx 'struct task_struct {' || die "no task_struct heading in: $out"
    echo "$out" | grep -qx '    char \[16\] comm = \[ "io-benchmark" \]' || die "no comm member in: $out"
}

# ---- module BTF ----------------------------------------------------------------------------

# Load tcp_bbr (from the same kernel package: tests/guest/run puts it in /lib/modules; no
# module is loaded at boot), after checking that its types are unknown without it: struct bbr
# and enum bbr_mode are defined only in the module, so they come from /sys/kernel/btf/tcp_bbr.
load_tcp_bbr() {
    [ -e /sys/kernel/btf/tcp_bbr ] && return 0
    out=$(crumbs -q -e 'BEGIN { printf("%d\n", sizeof(struct bbr)); exit(0); }' 2>&1) \
        && die "struct bbr is known before tcp_bbr is loaded: $out"
    echo "$out" | grep -q 'unknown type `struct bbr`' || die "expected 'unknown type \`struct bbr\`', got: $out"
    [ -f /lib/modules/tcp_bbr.ko ] || die "no /lib/modules/tcp_bbr.ko in the initramfs"
    insmod /lib/modules/tcp_bbr.ko || die "insmod /lib/modules/tcp_bbr.ko failed"
    [ -s /sys/kernel/btf/tcp_bbr ] || die "no /sys/kernel/btf/tcp_bbr after insmod"
}

# A module's types: sizes and offsets, a member of a vmlinux type (bw is a struct minmax of
# three u32 pairs), a module enum constant and enum. The values are those of tcp_bbr's BTF in
# this package (Debian 6.1.0-56; `struct bbr` has not changed in 6.1's stable updates).
test_crumbs_module_btf() {
    load_tcp_bbr
    out=$(crumbs -q -e 'BEGIN { printf("bbr %d %d %d %d %d %d %d %d\n", sizeof(struct bbr),
            offsetof(struct bbr, min_rtt_us), offsetof(struct bbr, ack_epoch_mstamp), offsetof(struct bbr, bw),
            sizeof(((struct bbr *)0)->bw), sizeof(((struct bbr *)0)->bw.s[2].v), BBR_PROBE_RTT, sizeof(enum bbr_mode));
            exit(0); }' 2>&1) || die "crumbs failed: $out"
    [ "$out" = "bbr 104 0 88 12 24 4 3 4" ] || die "expected 'bbr 104 0 88 12 24 4 3 4', got: $out"
}

# A module type's members of vmlinux types (u32, u64, struct minmax, u16 [2]) and bitfields,
# through a pointer kept in a this-> variable: print() walks them all (the object is zeroed
# scratch memory of the type's size: unreadable memory would be a run-time error).
test_crumbs_module_btf_print() {
    load_tcp_bbr
    out=$(crumbs -q -e 'BEGIN { this->b = (struct bbr *)alloca(sizeof(struct bbr)); printf("v %d\n", this->b->bw.s[1].v); print(*this->b); exit(0); }' 2>&1) \
        || die "crumbs failed: $out"
    for line in 'v 0' 'struct bbr {' '    u32 min_rtt_us = 0' '    struct minmax bw = {' '                u32 v = 0' \
        '    u32 mode :3 = 0' '    u64 ack_epoch_mstamp = 0' '    u16 \[2\] extra_acked = \[ 0, 0 \]'; do
        echo "$out" | grep -qx "$line" || die "no line '$line' in: $out"
    done
}

# Issue 9's run-time machinery on this kernel: a fault fires ERROR and is reported, a
# speculation is committed, a scalar array, stdlib's translators (task_struct's fields on
# 6.1) and vtimestamp, copyin() of the workload's buffer.
test_crumbs_language_runtime() {
    out=$(crumbs -q -e 'int a[4];
        BEGIN { x = 1 / arg0; }
        ERROR { printf("error %d %d\n", arg1, arg4); }
        BEGIN { s = speculation(); } BEGIN { speculate(s); printf("spec\n"); } BEGIN { commit(s); }
        BEGIN { a[3] = 7; printf("a %d\n", a[3]); }
        BEGIN { printf("ps %d %s %d %c\n", curpsinfo->pr_pid == pid, curpsinfo->pr_fname, curlwpsinfo->pr_onpro == cpu, curlwpsinfo->pr_sname); }
        BEGIN { printf("vts %d\n", vtimestamp > 0); printf("cwd %s\n", cwd); exit(0); }' 2>&1) || die "crumbs failed: $out"
    for line in 'error 1 4' 'spec' 'a 7' 'ps 1 crumbs 1 R' 'vts 1' 'cwd /'; do
        echo "$out" | grep -qx "$line" || die "no line '$line' in: $out"
    done
    echo "$out" | grep -q 'crumbs: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): divide-by-zero in action #1' || die "no error message in: $out"
    out=$(crumbs -q -e 'syscall::write:entry /pid == $target/ { printf("[%s]\n", stringof(copyin(arg1, 5))); }' -c 'echo hello' 2>&1) \
        || die "crumbs failed: $out"
    echo "$out" | grep -qx '\[hello\]' || die "no line '[hello]' in: $out"
}

# The string subroutines on a kernel without the numeric iterator (bpf_iter_num is 6.4's):
# their loops fall back to counted ones, which this verifier must accept; a fault in one.
test_crumbs_subroutines() {
    out=$(crumbs -q -e 'BEGIN { x = "foobarbaz"; printf("%d %d %d [%s][%s][%s][%s][%s] %s %x %d %S\n", index(x, "bar"), rindex(x, "a"), index(x, "baz", 2), strstr(x, "ba"), strchr(x, 0x61), strrchr(x, 0x61), strtok(x, "a"), strtok(NULL, "a"), lltostr(-42), htons(0x1234), progenyof(1), "a\tb"); }
        BEGIN { trace(inet_ntoa(0)); }
        ERROR { printf("error %d %d\n", arg1, arg4); exit(0); }' 2>&1) || die "crumbs failed: $out"
    for line in '3 7 6 [barbaz][arbaz][az][foob][rb] -42 3412 1 a\tb' 'error 2 1'; do
        echo "$out" | grep -qxF "$line" || die "no line '$line' in: $out"
    done
}

# The subroutines on the kernel's objects on 6.1: cleanpath()'s loops counted (no
# iterator), d_path()'s walk, the mutex and rwlock words found in this kernel's BTF.
test_crumbs_kernel_objects() {
    out=$(crumbs -q -e 'BEGIN { printf("[%s] [%s] [%s] [%s]\n", cleanpath("/a/./b/../c//"), cleanpath("../x/.."), d_path(&curthread->fs->pwd), d_path(&curthread->fs->pwd) == cwd ? "cwd" : cwd); }
        BEGIN { this->m = &curthread->signal->cred_guard_mutex; this->l = (rwlock_t *)alloca(8); printf("%d %d %d%d%d %x %x\n", mutex_owned(this->m), mutex_owner(this->m) == NULL, rw_read_held(this->l), rw_write_held(this->l), rw_iswriter(this->l), getmajor(0xabcdef0123456789ll), getminor(0xabcdef0123456789ll)); }
        BEGIN { printf("%s\n", link_ntop(ARPHRD_ETHER, alloca(6))); exit(0); }' 2>&1) || die "crumbs failed: $out"
    for line in '[/a/c] [..] [/] [cwd]' '0 1 000 234 56789' '00:00:00:00:00:00'; do
        echo "$out" | grep -qxF "$line" || die "no line '$line' in: $out"
    done
}

# chill() runs its spin as a bpf_loop callback: the program carries BTF func_info.
test_crumbs_chill() {
    out=$(crumbs -qw -e 'BEGIN { t = timestamp; chill(20000000); printf("%d\n", timestamp - t >= 20000000); }
        BEGIN { chill(490000000); }
        BEGIN { exit(0); }
        ERROR { printf("error %d %d\n", arg4, arg5); }' 2>&1) || die "crumbs failed: $out"
    for line in '1' 'error 3 490000000'; do
        echo "$out" | grep -qxF "$line" || die "no line '$line' in: $out"
    done
}

# copyout()/copyoutstr() (bpf_probe_write_user, refused by the host's lockdown): dd's
# buffer is rewritten after its read returns, so dd writes what crumbs put there.
test_crumbs_copyout() {
    echo hello > /tmp/in
    out=$(crumbs -qw -e 'syscall::read:entry /pid == $target/ { self->buf = arg1; }
        syscall::read:return /pid == $target && self->buf && arg0 == 6/ { copyoutstr("HELLO", self->buf, arg0 - 1); copyout(copyin(self->buf + 4, 1), self->buf, arg0 - 5); }
        syscall::read:return /pid == $target && self->buf && arg0 == 6/ { copyoutstr("x", 8, 2); }
        ERROR { printf("error %d %d\n", arg4, arg5); }' -c 'dd if=/tmp/in bs=6 count=1' 2>&1) || die "crumbs failed: $out"
    for line in 'OELLO' 'error 1 8'; do
        echo "$out" | grep -qxF "$line" || die "no line '$line' in: $out"
    done
}

# current bpftrace's write_user() (bpf_probe_write_user, refused by the host's lockdown):
# dd's buffer is rewritten after its read returns, so dd writes what crumbs put there; a
# write to an address that cannot be written gives 0.
test_crumbs_bt_write_user() {
    echo hello > /tmp/in
    out=$(crumbs --dialect bpftrace -w -q -e 'tracepoint:syscalls:sys_enter_read /pid == cpid/ { @buf[tid] = (uint64)args.buf; }
        tracepoint:syscalls:sys_exit_read /pid == cpid && @buf[tid] && args.ret == 6/ { printf("wrote %d %d\n", write_user(@buf[tid], "HELLO", 5), write_user(8, "x", 2)); }' -c 'dd if=/tmp/in bs=6 count=1' 2>&1) || die "crumbs failed: $out"
    for line in 'HELLO' 'wrote 1 0'; do
        echo "$out" | grep -qxF "$line" || die "no line '$line' in: $out"
    done
    # A computed length (current bpftrace's): 3 bytes of "HELLO"; 0 writes none (0).
    out=$(crumbs --dialect bpftrace -w -q -e 'tracepoint:syscalls:sys_enter_read /pid == cpid/ { @buf[tid] = (uint64)args.buf; }
        tracepoint:syscalls:sys_exit_read /pid == cpid && @buf[tid] && args.ret == 6/ { printf("wrote %d %d\n", write_user(@buf[tid], "HELLO", args.ret - 3), write_user(@buf[tid], "x", args.ret - 6)); }' -c 'dd if=/tmp/in bs=6 count=1' 2>&1) || die "crumbs failed: $out"
    for line in 'HELlo' 'wrote 1 0'; do
        echo "$out" | grep -qxF "$line" || die "no line '$line' in: $out"
    done
}

# current bpftrace's percpu_kaddr() (a ksym: the verifier finds its address in kallsyms, which
# the host's kernel, without CONFIG_KALLSYMS_ALL, lists no variables in): CPU 0's runqueue
# names its CPU; this CPU's (the guest has one) is the same; a CPU past the last is NULL.
test_crumbs_bt_percpu_kaddr() {
    out=$(crumbs --dialect bpftrace -q -e 'interval:ms:100 { $rq = (struct rq *)percpu_kaddr("runqueues", 0); $p = percpu_kaddr("process_counts");
        printf("percpu %d %d %d %d\n", $rq->cpu, *$p > 0, percpu_kaddr("runqueues", 4096) == 0, (uint64)percpu_kaddr("runqueues") == (uint64)$rq); exit(); }' 2>&1) || die "crumbs failed: $out"
    echo "$out" | grep -qxF 'percpu 0 1 1 1' || die "no line 'percpu 0 1 1 1' in: $out"
}

# current bpftrace's socket_cookie() at fentry (the host refuses fentry): the client socket's
# cookie as it connects is not 0 and is the same when it closes.
test_crumbs_bt_socket_cookie() {
    ip link set lo up
    out=$(crumbs --dialect bpftrace -q -e 'kfunc:tcp_connect { @c[(uint64)args.sk] = socket_cookie(args.sk); }
        kfunc:tcp_close /@c[(uint64)args.sk]/ { printf("cookie %d %d\n", @c[(uint64)args.sk] > 0, @c[(uint64)args.sk] == socket_cookie(args.sk)); delete(@c[(uint64)args.sk]); }' \
        -c "sh -c 'nc -l -p 5997 >/dev/null & sleep 0.3; echo hi | nc -w 1 127.0.0.1 5997; wait'" 2>&1) || die "crumbs failed: $out"
    echo "$out" | grep -qxF 'cookie 1 1' || die "no line 'cookie 1 1' in: $out"
}

# ---- fbt (kprobes) -------------------------------------------------------------------------

# Whether this kernel has kprobe.multi links (CONFIG_FPROBE: Debian's 6.12 has it, its 6.1
# not; `CRUMBS_GUEST_KERNEL=linux-image-6.12-amd64 tests/guest/run` boots 6.12).
has_kprobe_multi() { grep -qw register_fprobe_ips /proc/kallsyms; }

# Where kprobe.multi is missing, forcing it is a clear error, exit 2, before BEGIN runs.
expect_no_kprobe_multi() {
    out=$(crumbs -x fbtmode=multi -e 'BEGIN { printf("began\n"); } fbt::vfs_read:entry { exit(0); }' 2>&1)
    [ $? = 2 ] || die "forced kprobe.multi did not exit 2 on a kernel without it: $out"
    echo "$out" | grep -q 'need kprobe.multi links' || die "no clear error for a forced kprobe.multi in: $out"
    ! echo "$out" | grep -qx began || die "BEGIN ran though nothing could attach: $out"
    echo "no kprobe.multi on this kernel: its error checked"
}

# fbt on vfs_read, in every attach mode (a kprobe per function; an fentry/fexit trampoline
# per function; one kprobe.multi link, where the kernel has them): exact entry and return counts of io-benchmark's 128 reads of its
# file, found through the typed struct chain args[0]->f_path.dentry->d_name.name; the
# return values (arg1 and the typed args[1]) add up to the file's 64K; probefunc/probename
# (a kprobe.multi program reads probefunc from its attach cookie).
test_crumbs_fbt_vfs_read() {
    modes="kprobe fentry"
    if has_kprobe_multi; then modes="$modes multi"; else expect_no_kprobe_multi; fi
    for mode in $modes; do
        out=$(crumbs -q -x fbtmode=$mode -e 'fbt::vfs_read:entry /pid == $target && stringof(args[0]->f_path.dentry->d_name.name) == "fbtfile"/ {
                @entry = count(); self->in = 1; @count = sum(args[2]); }
            fbt::vfs_read:return /self->in/ { @return = count(); @bytes = sum(arg1); @typed = sum(args[1]); @retval = sum(retval); self->in = 0; }
            fbt::vfs_read:return /self->in == 0 && pid == $target && !done/ { printf("names %s:%s:%s:%s %d\n", probeprov, probemod, probefunc, probename, id); done = 1; }
            END { printa("entry %@d\n", @entry); printa("return %@d\n", @return); printa("bytes %@d\n", @bytes); printa("typed %@d\n", @typed); printa("retval %@d\n", @retval); printa("asked %@d\n", @count); }' \
            -c 'io-benchmark -c -r -b 512 -s 64K /tmp/fbtfile' 2>&1) || die "crumbs ($mode) failed: $out"
        # vfs_read is the program's first function: its return probe's id is 2^17 + 1.
        for line in 'entry 128' 'return 128' 'bytes 65536' 'typed 65536' 'retval 65536' 'asked 65536' 'names fbt:vmlinux:vfs_read:return 131073'; do
            echo "$out" | grep -qxF "$line" || die "no line '$line' with fbtmode=$mode in: $out"
        done
    done
}

# -F into a Chrome trace (spec §9.12): each of io-benchmark's 128 vfs_read calls on its file
# is one complete event, entry and return paired, with what each clause traced as args; and
# nested calls pair with their own returns (vfs_read calls rw_verify_area inside).
test_crumbs_fbt_chrome_spans() {
    out=$(crumbs -F -o /tmp/spans.pfw.gz -e 'fbt::vfs_read:entry /pid == $target && stringof(args[0]->f_path.dentry->d_name.name) == "spanfile"/ { self->in = 1; trace(args[2]); }
        fbt::rw_verify_area:entry, fbt::rw_verify_area:return /self->in/ { }
        fbt::vfs_read:return /self->in/ { trace(arg1); self->in = 0; }' \
        -c 'io-benchmark -c -r -b 512 -s 64K /tmp/spanfile' 2>&1) || die "crumbs failed: $out"
    zcat /tmp/spans.pfw.gz > /tmp/spans.pfw || die "not gzip: $out"
    [ "$(head -n 1 /tmp/spans.pfw)" = "[" ] && [ "$(tail -n 1 /tmp/spans.pfw)" = "]" ] || die "no [ ] lines: $(head -n 3 /tmp/spans.pfw)"
    reads=$(grep -c '^{"name":"vfs_read","cat":"fbt",.*"ph":"X","args":{"args\[2\]":512,"arg1":512}}$' /tmp/spans.pfw)
    [ "$reads" = 128 ] || die "$reads vfs_read spans, not 128: $(head -n 5 /tmp/spans.pfw)"
    inner=$(grep -c '^{"name":"rw_verify_area","cat":"fbt",.*"ph":"X"' /tmp/spans.pfw)
    [ "$inner" = 128 ] || die "$inner rw_verify_area spans, not 128: $(head -n 5 /tmp/spans.pfw)"
    grep -q '"name":"process_name","ph":"M".*"args":{"name":"io-benchmark"}' /tmp/spans.pfw || die "no process name: $(head -n 3 /tmp/spans.pfw)"
    echo "$out" | grep -q 'without a traced' && die "unpaired: $out"
    return 0
}

# The DataCrumbs one-liner exactly as issue 12 types it (spec §9.12): every vfs_* and ext4_*
# function's entry and return, paired into spans (-F), gzip'd Chrome trace events, no -c: it
# traces the whole system until SIGINT. io-benchmark runs on an ext4 file system (a loop
# device; busybox makes ext2, which the ext4 driver mounts) once every probe is attached
# (__BPFTRACE_NOTIFY_PROBES_ATTACHED's line); then SIGINT. Every line between `[` and `]` is
# a complete or metadata event; io-benchmark's vfs_read spans are exactly its reads (its -j
# count, 128), as are its ext4_file_read_iter spans, and each of those and of its
# ext4_file_write_iter spans lies within one of its vfs_read or vfs_write spans on the same
# thread. Nothing stays attached after SIGINT (no kprobe listed, no ftrace user of a vfs_ or
# ext4_ function). The attach and detach times are figures.
# Under emulation attaching the 1360 probes takes about 30 s and detaching them as long:
# guest-timeout crumbs_fbt_datacrumbs_oneliner 240
test_crumbs_fbt_datacrumbs_oneliner() {
    for m in loop crc16 mbcache jbd2 ext4 crc32c_generic; do
        insmod /lib/modules/$m.ko 2>/dev/null
    done
    grep -qw ext4_file_read_iter /proc/kallsyms || die "no ext4 functions (insmod crc16 mbcache jbd2 ext4 failed?)"
    dd if=/dev/zero of=/tmp/ext4.img bs=1024 count=4096 2>/dev/null
    dev=$(losetup -f) || die "no free loop device"
    losetup "$dev" /tmp/ext4.img || die "losetup $dev failed"
    mke2fs -q "$dev" >/dev/null 2>&1 || { losetup -d "$dev"; die "mke2fs $dev failed"; }
    mkdir -p /mnt/dc
    mount -t ext4 "$dev" /mnt/dc || { losetup -d "$dev"; die "cannot mount $dev as ext4"; }
    cd /tmp || die "no /tmp"
    t0=$(cut -d' ' -f1 /proc/uptime)
    __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 crumbs -F -o trace.pfw.gz -e 'fbt::vfs_*:entry,fbt::vfs_*:return,fbt::ext4_*:entry,fbt::ext4_*:return' 2>/tmp/dc.err &
    cpid=$!
    while ! grep -q __BPFTRACE_NOTIFY_PROBES_ATTACHED /tmp/dc.err; do
        kill -0 $cpid 2>/dev/null || { umount /mnt/dc; losetup -d "$dev"; die "crumbs ended before attaching: $(cat /tmp/dc.err)"; }
        usleep 100000
    done
    t1=$(cut -d' ' -f1 /proc/uptime)
    io-benchmark -c -r -b 512 -s 64K -j /mnt/dc/f >/tmp/ib.json &
    ib=$!
    wait $ib || { kill -INT $cpid; umount /mnt/dc; losetup -d "$dev"; die "io-benchmark failed: $(cat /tmp/ib.json)"; }
    t2=$(cut -d' ' -f1 /proc/uptime)
    kill -INT $cpid
    wait $cpid
    rc=$?
    t3=$(cut -d' ' -f1 /proc/uptime)
    umount /mnt/dc
    losetup -d "$dev"
    [ "$rc" = 0 ] || die "crumbs exited $rc after SIGINT: $(cat /tmp/dc.err)"
    n=$(sed -n "s/^crumbs: description .* matched \([0-9]*\) probes$/\1/p" /tmp/dc.err)
    [ -n "$n" ] && [ "$n" -ge 500 ] || die "expected 500 or more probes matched in: $(cat /tmp/dc.err)"
    echo "figure: DataCrumbs one-liner: $n probes, attached in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s, detached and written in $(awk -v a="$t2" -v b="$t3" 'BEGIN { printf "%.2f", b - a }') s"
    # Nothing left attached: no kprobe, no ftrace user (fentry trampolines, kprobe.multi) of
    # a traced function.
    left=$(grep -cE ' (vfs|ext4)_' /sys/kernel/debug/kprobes/list)
    [ "$left" = 0 ] || die "$left kprobes left after SIGINT: $(grep -E ' (vfs|ext4)_' /sys/kernel/debug/kprobes/list | head -n 5)"
    left=$(grep -cE '^(vfs|ext4)_' /sys/kernel/tracing/enabled_functions)
    [ "$left" = 0 ] || die "$left functions still traced after SIGINT: $(grep -E '^(vfs|ext4)_' /sys/kernel/tracing/enabled_functions | head -n 5)"
    zcat trace.pfw.gz > trace.pfw || die "not a whole gzip stream: $(cat /tmp/dc.err)"
    [ "$(head -n 1 trace.pfw)" = "[" ] && [ "$(tail -n 1 trace.pfw)" = "]" ] || die "no [ ] lines: $(head -n 3 trace.pfw) ... $(tail -n 2 trace.pfw)"
    [ "$(sed -n 's/.*"reads":\([0-9]*\).*/\1/p' /tmp/ib.json)" = 128 ] || die "io-benchmark did not do 128 reads: $(cat /tmp/ib.json)"
    # Each event line is a span (no args: the clauses trace nothing) or a metadata event.
    bad=$(sed '1d;$d' trace.pfw | grep -cvE '^\{"name":"[a-z0-9_.]+","cat":"fbt","pid":[0-9]+,"tid":[0-9]+,"ts":[0-9]+\.[0-9]{3},"dur":[0-9]+\.[0-9]{3},"ph":"X","args":\{\}\}$|^\{"name":"(process|thread)_name","ph":"M","pid":[0-9]+,"tid":[0-9]+,"args":\{"name":".*"\}\}$')
    [ "$bad" = 0 ] || die "$bad lines are no span or metadata event: $(sed '1d;$d' trace.pfw | grep -vE '^\{"name":"[a-z0-9_.]+","cat":"fbt","pid":[0-9]+,"tid":[0-9]+,"ts":[0-9]+\.[0-9]{3},"dur":[0-9]+\.[0-9]{3},"ph":"X","args":\{\}\}$|^\{"name":"(process|thread)_name","ph":"M","pid":[0-9]+,"tid":[0-9]+,"args":\{"name":".*"\}\}$' | head -n 5)"
    # io-benchmark's spans (its pid and its one thread): vfs_read, ext4_file_read_iter and
    # those of them within a vfs_read; ext4_file_write_iter (its file's fill) and those within
    # a vfs_write.
    out=$(awk -v pid=$ib -F'[:,]' '
        /"ph":"X"/ && $6 == pid && $8 == pid {
            name = $2; gsub(/"/, "", name); ts = $10 + 0; end = ts + $12
            if (name == "vfs_read" || name == "vfs_write") { n[name]++; k = nv++; vs[k] = ts; ve[k] = end; vn[k] = name }
            if (name == "ext4_file_read_iter" || name == "ext4_file_write_iter") { n[name]++; k = ne++; es[k] = ts; ee[k] = end; en[k] = name }
        }
        END {
            for (i = 0; i < ne; i++) {
                want = en[i] == "ext4_file_read_iter" ? "vfs_read" : "vfs_write"
                for (j = 0; j < nv; j++) if (vn[j] == want && vs[j] <= es[i] && ee[i] <= ve[j]) { nested[en[i]]++; break }
            }
            printf "%d %d %d %d %d\n", n["vfs_read"], n["ext4_file_read_iter"], nested["ext4_file_read_iter"], n["ext4_file_write_iter"], nested["ext4_file_write_iter"]
        }' trace.pfw)
    set -- $out
    [ "$1 $2 $3" = "128 128 128" ] && [ "$4" -ge 1 ] && [ "$4" = "$5" ] \
        || die "io-benchmark's (pid $ib) vfs_read, ext4_file_read_iter, nested ones, ext4_file_write_iter, nested ones: $out, not 128 128 128 N N; crumbs said: $(cat /tmp/dc.err); its spans: $(grep -c "\"pid\":$ib," trace.pfw), $(grep "\"pid\":$ib," trace.pfw | sed 's/.*"name":"\([^"]*\)".*/\1/' | sort | uniq -c | sort -rn | head -n 20)"
    echo "figure: DataCrumbs one-liner: $(sed '1d;$d' trace.pfw | grep -c '"ph":"X"') spans, io-benchmark's $out; crumbs said: $(grep -E 'drops|without a traced' /tmp/dc.err | tr '\n' ' ')"
}

# bpftrace's loops at kernel functions: a `for` over a map walked in the kernel
# (bpf_for_each_map_elem calling the body, which reads the kprobe's registers and prints),
# a range loop and a tuple, in each fbt mode: io-benchmark's 128 reads of 512 bytes.
test_crumbs_bt_loops() {
    modes="kprobe fentry"
    if has_kprobe_multi; then modes="$modes multi"; else expect_no_kprobe_multi; fi
    for mode in $modes; do
        out=$(crumbs -q -x fbtmode=$mode -e 'BEGIN { @one[1] = 1; }
            kprobe:vfs_read /pid == cpid/ { for ($kv : @one) { @size[arg2, $kv.0] = @size[arg2, $kv.0] + 1; } $t = (comm, 2); @by[$t] = @by[$t] + 1; }
            END { for ($kv : @size) { printf("size %d %d %d\n", $kv.0.0, $kv.0.1, $kv.1); } for ($i : 0..2) { printf("r%d\n", $i); }
                  for ($kv : @by) { print($kv); } clear(@size); clear(@by); clear(@one); }' \
            -c 'io-benchmark -c -r -b 512 -s 64K /tmp/loopfile' 2>&1) || die "crumbs ($mode) failed: $out"
        for line in 'size 512 1 128' 'r0' 'r1' '((io-benchmark, 2), 128)'; do
            echo "$out" | grep -qxF "$line" || die "no line '$line' with fbtmode=$mode in: $out"
        done
    done
}

# bpftrace's kfunc:/fentry: and kretfunc:/fexit: names of a kernel function's entry and
# return: io-benchmark's one write of 64 KiB and 128 reads of 512 bytes, the count by name at
# entry and the return value at return, in each attach mode; an argument by name at the
# return too.
test_crumbs_bt_kfunc() {
    modes="kprobe fentry"
    if has_kprobe_multi; then modes="$modes multi"; else expect_no_kprobe_multi; fi
    for mode in $modes; do
        out=$(crumbs -q -x fbtmode=$mode -e 'kfunc:vfs_read /pid == cpid/ { @count[tid] = args.count; }
            kretfunc:vfs_read /pid == cpid && has_key(@count, tid)/ { @ret[@count[tid], retval] = count(); delete(@count, tid); }
            fentry:vfs_write /pid == cpid/ { @writes = count(); } fexit:vfs_write /pid == cpid/ { @written[retval] = count(); }' \
            -c 'io-benchmark -c -r -b 512 -s 64K /tmp/kfuncfile' 2>&1) || die "crumbs ($mode) failed: $out"
        for line in '@ret[512, 512]: 128' '@writes: 1' '@written[65536]: 1'; do
            echo "$out" | grep -qxF "$line" || die "no line '$line' with fbtmode=$mode in: $out"
        done
    done
    # An argument by name at the return: read from the trampoline's context (fentry/fexit
    # chosen for it), as bpftrace's kretfunc reads it; a forced kprobe mode says why not.
    out=$(crumbs -q -e 'kretfunc:vfs_read /pid == cpid/ { @ret[args.count, retval] = count(); }' \
        -c 'io-benchmark -c -r -b 512 -s 64K /tmp/kfuncfile' 2>&1) || die "crumbs (args at kretfunc) failed: $out"
    echo "$out" | grep -qxF '@ret[512, 512]: 128' || die "no args.count at kretfunc in: $out"
    out=$(crumbs -x fbtmode=kprobe -e 'fexit:vfs_read { @[args.count] = count(); }' 2>&1); rc=$?
    [ "$rc" = 2 ] && echo "$out" | grep -qF "are read only in fentry/fexit programs" || die "args at fexit with kprobes not refused ($rc): $out"
}

# bpftrace's kprobe at an offset in a function (current bpftrace's `kprobe:FUNCTION+N`): on
# Debian's 6.1 (no IBT) vfs_read starts with the 5-byte ftrace call, so +5 starts the next
# instruction: the kprobe fires there for io-benchmark's 128 reads of 512 bytes (the
# registers still hold the arguments), and `probe` names it; +4 is inside that call, which the
# kernel refuses (EILSEQ), said so.
test_crumbs_bt_kprobe_offset() {
    out=$(crumbs -q --dialect bpftrace -e 'kprobe:vfs_read+5 /pid == cpid && arg2 == 512/ { @[probe] = count(); }' \
        -c 'io-benchmark -c -r -b 512 -s 64K /tmp/offsetfile' 2>&1) || die "crumbs (kprobe:vfs_read+5) failed: $out"
    echo "$out" | grep -qxF '@[kprobe:vfs_read+5]: 128' || die "no 128 firings at vfs_read+5 in: $out"
    out=$(crumbs -q --dialect bpftrace -e 'kprobe:vfs_read+4 { @ = count(); }' -c true 2>&1); rc=$?
    [ "$rc" != 0 ] && echo "$out" | grep -qF "offset 4 is in the middle of an instruction" || die "kprobe:vfs_read+4 not refused ($rc): $out"
}

# Current bpftrace's kprobe at an address (`kprobe:0xADDRESS`, unsafe): vfs_read's address
# from the guest's /proc/kallsyms, 5 past it (the instruction after the ftrace call, as in
# the test above) is found to be vfs_read+5 and fires for io-benchmark's 128 reads, `probe`
# naming it by the address in decimal, as current bpftrace does; kretprobe at vfs_read's own
# address is its return; without --unsafe it is refused in bpftrace's words.
test_crumbs_bt_kprobe_address() {
    addr=$(awk '$3 == "vfs_read" { print $1; exit }' /proc/kallsyms)
    [ -n "$addr" ] || die "no vfs_read in /proc/kallsyms"
    at=$(printf '0x%x' $((0x$addr + 5)))
    out=$(crumbs -q -w --dialect bpftrace -e "kprobe:$at /pid == cpid && arg2 == 512/ { @[probe] = count(); } kretprobe:0x$addr /pid == cpid && retval == 512/ { @ret = count(); }" \
        -c 'io-benchmark -c -r -b 512 -s 64K /tmp/addressfile' 2>&1) || die "crumbs (kprobe:$at) failed: $out"
    echo "$out" | grep -qE '^@\[kprobe:[0-9]+\]: 128$' || die "no 128 firings at $at (vfs_read+5) in: $out"
    echo "$out" | grep -qxF '@ret: 128' || die "no 128 returns at kretprobe:0x$addr in: $out"
    out=$(crumbs -q --dialect bpftrace -e "kprobe:$at { @ = count(); }" -c true 2>&1); rc=$?
    [ "$rc" = 2 ] && echo "$out" | grep -qF "Probing by address requires --unsafe" || die "kprobe:$at without --unsafe not refused ($rc): $out"
}

# bpftrace's `func` at kprobes and kfuncs: the function's address (bpf_get_func_ip), a kernel
# symbol, as tools/xfsdist.bt keeps it (a map typed by ksym(0) first, the name kept at entry
# and read at the return) in every attach mode; at a return itself only fexit and
# kprobe.multi know it, so a forced kprobe mode says why not.
# Four tracing runs, three attach modes: 66 s on 6.12 under emulation with debug binaries.
# guest-timeout crumbs_bt_func 180
test_crumbs_bt_func() {
    modes="kprobe fentry"
    if has_kprobe_multi; then modes="$modes multi"; else expect_no_kprobe_multi; fi
    for mode in $modes; do
        out=$(crumbs -q --dialect bpftrace -x fbtmode=$mode -e 'BEGIN { @name[0] = ksym(0); @start[0] = 0; }
            kprobe:vfs_read,kprobe:vfs_write /pid == cpid && (arg2 == 512 || arg2 == 65536)/ { @start[tid] = nsecs; @name[tid] = func; @entry[func] = count(); }
            kretprobe:vfs_read,kretprobe:vfs_write /@start[tid]/ { @done[@name[tid]] = count(); delete(@start, tid); delete(@name, tid); }
            END { clear(@name); clear(@start); }' \
            -c 'io-benchmark -c -r -b 512 -s 64K /tmp/funcfile' 2>&1) || die "crumbs ($mode) failed: $out"
        for line in '@entry[vfs_read]: 128' '@entry[vfs_write]: 1' '@done[vfs_read]: 128' '@done[vfs_write]: 1'; do
            echo "$out" | grep -qxF "$line" || die "no line '$line' with fbtmode=$mode in: $out"
        done
    done
    out=$(crumbs -q --dialect bpftrace -e 'kretprobe:vfs_read /pid == cpid && retval == 512/ { @[func] = count(); }
        kretfunc:vfs_write /pid == cpid && retval == 65536/ { printf("%s returned\n", func); }' \
        -c 'io-benchmark -c -r -b 512 -s 64K /tmp/funcfile' 2>&1) || die "crumbs (func at returns) failed: $out"
    for line in '@[vfs_read]: 128' 'vfs_write returned'; do
        echo "$out" | grep -qxF "$line" || die "no line '$line' (func at returns) in: $out"
    done
    out=$(crumbs --dialect bpftrace -x fbtmode=kprobe -e 'kretprobe:vfs_read { @[func] = count(); }' 2>&1); rc=$?
    [ "$rc" = 2 ] && echo "$out" | grep -qF "known to fexit and kprobe.multi programs only" || die "func at a kretprobe of its own not refused ($rc): $out"
}

# bpftrace's reg() and sargN at kprobes, in the automatic attach mode (kprobes here, not the
# fentry it would choose for one function: a trampoline saves no registers; kprobe.multi on
# 6.12): vfs_read's registers at entry (di its struct file *, dx io-benchmark's 512-byte
# counts), ax at return (the 512 bytes each read), and do_mmap's stack arguments (its 7th, pgoff, is
# sarg0, as arg6 reads it; its 8th, populate, a kernel stack address). Forcing fentry is an
# error that says why.
test_crumbs_bt_registers() {
    out=$(crumbs -q --dialect bpftrace -e 'kprobe:vfs_read /pid == cpid/ { @entry[reg("dx"), reg("di") == arg0, reg("ip") != 0] = count(); }
        kretprobe:vfs_read /pid == cpid/ { @ret[reg("ax")] = count(); }
        kprobe:do_mmap /pid == cpid/ { @pgoff[sarg0 == arg6] = count(); @populate[sarg1 > 0xffff000000000000] = count(); }' \
        -c 'io-benchmark -c -r -b 512 -s 64K /tmp/regfile' 2>&1) || die "crumbs failed: $out"
    for line in '@entry[512, 1, 1]: 128' '@ret[512]: 128'; do
        echo "$out" | grep -qxF "$line" || die "no line '$line' in: $out"
    done
    echo "$out" | grep -qE '^@pgoff\[1\]: [1-9]' || die "no do_mmap call whose sarg0 is arg6 in: $out"
    ! echo "$out" | grep -qE '^@(pgoff|populate)\[0\]' || die "a stack argument read wrong in: $out"
    out=$(crumbs -x fbtmode=fentry -e 'kprobe:vfs_read { @ = reg("di"); }' 2>&1) && die "reg() at fentry was accepted: $out"
    echo "$out" | grep -qF 'reg() reads the registers saved where the probe fired, which an fentry/fexit trampoline does not save' || die "no reason in: $out"
}

# bpftrace's override(): Debian's kernels are built without CONFIG_BPF_KPROBE_OVERRIDE
# (nor CONFIG_FUNCTION_ERROR_INJECTION, whose list debugfs would show), so the kernel
# refuses bpf_override_return and crumbs says so, exit status 2, before anything runs;
# without -w it is a compile error. A kernel with error injection needs a real test here.
test_crumbs_bt_override_refused() {
    [ -e /sys/kernel/debug/error_injection/list ] && die "this kernel has error injection: test override() for real"
    out=$(crumbs -w -e 'kprobe:__x64_sys_getpgid { override(42); } BEGIN { printf("began\n"); }' 2>&1); rc=$?
    [ $rc -eq 2 ] || die "exit status $rc, not 2: $out"
    echo "$out" | grep -qF 'this kernel was built without CONFIG_BPF_KPROBE_OVERRIDE (bpf_override_return is not among its BPF helpers), so override() cannot run here' || die "no reason in: $out"
    ! echo "$out" | grep -q began || die "BEGIN ran: $out"
    out=$(crumbs -e 'kprobe:__x64_sys_getpgid { override(42); }' 2>&1); rc=$?
    [ $rc -eq 2 ] && echo "$out" | grep -qF 'override() is an unsafe function being used in safe mode' || die "without -w: exit status $rc: $out"
}

# bpftrace's path(): the kernel's bpf_d_path() of a struct path, at fentry programs on the
# functions it allows it in (chosen for path() whatever else the kernel has): the file
# io-benchmark opens twice (to write, to read) at security_file_open, whole and cut to 8
# bytes (the kernel keeps a long name's end); the file busybox
# stat(1) stats at security_inode_getattr (a `struct path *` argument; vfs_getattr itself
# is inlined into stat(2)'s path in Debian's kernels); forcing kprobes is an error.
test_crumbs_bt_path() {
    out=$(crumbs -q -e 'kfunc:security_file_open /pid == cpid/ { @open[path(args.file->f_path)] = count(); @cut[path(args.file->f_path, 8)] = count(); }' \
        -c 'io-benchmark -c -r -b 512 -s 64K /tmp/btpathfile' 2>&1) || die "crumbs failed: $out"
    for line in '@open[/tmp/btpathfile]: 2' '@cut[athfile]: 2'; do
        echo "$out" | grep -qxF "$line" || die "no line '$line' in: $out"
    done
    out=$(crumbs -q -e 'fentry:security_inode_getattr /pid == cpid/ { printf("stat %s\n", path(args.path)); }' -c 'stat -c %s /tmp/btpathfile' 2>&1) || die "crumbs (security_inode_getattr) failed: $out"
    echo "$out" | grep -qxF 'stat /tmp/btpathfile' || die "no stat line in: $out"
    # At the return (fexit) the arguments are the entry's: the opened file's path and the
    # result, 0 for both of io-benchmark's opens.
    out=$(crumbs -q -e 'kretfunc:security_file_open /pid == cpid/ { @ret[path(args.file->f_path), retval] = count(); }' \
        -c 'io-benchmark -c -r -b 512 -s 64K /tmp/btpathfile' 2>&1) || die "crumbs (kretfunc) failed: $out"
    echo "$out" | grep -qxF '@ret[/tmp/btpathfile, 0]: 2' || die "no path at kretfunc in: $out"
    out=$(crumbs -x fbtmode=kprobe -e 'kfunc:security_file_open { printf("%s\n", path(args.file->f_path)); }' 2>&1); rc=$?
    [ $rc -eq 2 ] && echo "$out" | grep -qF "are read only in fentry/fexit programs" || die "forced kprobes: exit status $rc: $out"
}

# kprobe.multi over a wide glob (hundreds of functions, one program and one link per
# direction; on a kernel without kprobe.multi, the error for forcing it): each function counted under its own name (the cookie's), io-benchmark's 128
# vfs_read calls exactly, at entry and at return; the attach+detach time is printed.
test_crumbs_fbt_multi_wide() {
    has_kprobe_multi || { expect_no_kprobe_multi; return 0; }
    t0=$(cut -d' ' -f1 /proc/uptime)
    out=$(crumbs -x fbtmode=multi -e 'fbt::*_read*:entry, fbt::vfs_*:return /pid == $target/ { @[probefunc, probename] = count(); }' \
        -c 'io-benchmark -c -r -b 512 -s 64K /tmp/f' 2>&1) || die "crumbs failed: $out"
    t1=$(cut -d' ' -f1 /proc/uptime)
    n=$(echo "$out" | sed -n "s/^crumbs: description .* matched \([0-9]*\) probes$/\1/p" | head -n1)
    [ -n "$n" ] && [ "$n" -ge 100 ] || die "expected 100 or more probes matched in: $out"
    echo "figure: fbt multi: $n probes, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s attach+run+detach"
    echo "$out" | awk '$1 == "vfs_read" && $2 == "entry" && $3 == 128 { e = 1 } $1 == "vfs_read" && $2 == "return" && $3 == 128 { r = 1 } END { exit !(e && r) }' \
        || die "expected vfs_read entry 128 and return 128 rows in: $out"
    out=$(crumbs -x fbtmode=multi -e 'fbt::no_such_fn*:entry { }' 2>&1)
    [ $? = 2 ] || die "a glob matching nothing did not exit 2: $out"
}

# Entry-to-return latency with a thread-local, in bpftrace's spellings (kprobe:/kretprobe:),
# and the default output's probe column (FUNCTION:NAME).
test_crumbs_fbt_latency() {
    out=$(crumbs -q -e 'kprobe:vfs_read /pid == $target/ { self->ts = timestamp; }
        kretprobe:vfs_read /self->ts/ { @n = count(); @ns = quantize(timestamp - self->ts); @slow = max(timestamp - self->ts); self->ts = 0; }
        END { printa("n %@d\n", @n); printa("positive %@d\n", @slow); }' \
        -c 'io-benchmark -c -r -b 4096 -s 64K /tmp/f' 2>&1) || die "crumbs failed: $out"
    echo "$out" | grep -q -- '------------- Distribution ------------- count' || die "no quantize table in: $out"
    n=$(echo "$out" | sed -n 's/^n //p')
    [ -n "$n" ] && [ "$n" -ge 16 ] || die "expected at least the 16 reads timed in: $out"
    out=$(crumbs -e 'fbt::vfs_read:entry /pid == $target/ { exit(0); }' -c 'io-benchmark -c -r -b 4096 -s 64K /tmp/f' 2>&1) \
        || die "crumbs failed: $out"
    echo "$out" | grep -q ' vfs_read:entry *$' || die "no vfs_read:entry probe column in: $out"
}

# A glob over the vfs_* functions: many kprobes at once, each counted under its name, with
# the attach time; a function the kprobe blacklist refuses a kprobe on is skipped with a
# count on stderr (the program still runs); nothing but refused functions is an error, exit
# 2 (kprobe mode: kprobe.multi links, through ftrace, do not consult that blacklist).
test_crumbs_fbt_glob() {
    t0=$(date +%s)
    out=$(crumbs -e 'fbt::vfs_*:entry /pid == $target/ { @[probefunc] = count(); }' \
        -c 'io-benchmark -c -r -b 512 -s 64K /tmp/f' 2>&1) || die "crumbs failed: $out"
    t1=$(date +%s)
    n=$(echo "$out" | sed -n "s/^crumbs: description .* matched \([0-9]*\) probes$/\1/p")
    [ -n "$n" ] && [ "$n" -ge 20 ] || die "expected 20 or more vfs_* probes matched in: $out"
    echo "figure: fbt glob: $n probes, $((t1 - t0)) s with the workload"
    expect_row "$out" vfs_read 128
    echo "$out" | grep -q '^  vfs_write ' || die "no vfs_write row in: $out"
    # A traceable function on the kprobe blacklist (present in BTF and ftrace's list).
    bl=/sys/kernel/debug/kprobes/blacklist
    [ -r "$bl" ] || die "no $bl"
    f=$(awk '{ print $2 }' "$bl" | sort -u | grep -xFf /sys/kernel/tracing/available_filter_functions | while read -r g; do
            crumbs -l -e "fbt::$g:entry" >/dev/null 2>&1 && { echo "$g"; break; }; done)
    [ -n "$f" ] || die "no blacklisted function that BTF and ftrace list"
    out=$(crumbs -q -x fbtmode=kprobe -e "fbt::vfs_read:entry, fbt::$f:entry /pid == \$target/ { @n = count(); } END { printa(\"n %@d\\n\", @n); }" \
        -c 'io-benchmark -c -r -b 512 -s 64K /tmp/f' 2>&1) || die "crumbs failed with $f: $out"
    echo "$out" | grep -q "crumbs: 1 of 2 fbt probes skipped.*$f" || die "no skip notice for $f in: $out"
    echo "$out" | grep -qx 'n 128' || die "expected n 128 in: $out"
    out=$(crumbs -x fbtmode=kprobe -e "fbt::$f:entry { @n = count(); }" 2>&1) && die "only a refused function ran: $out"
    echo "$out" | grep -q "cannot attach a kprobe to kernel function $f" || die "no clear error for $f alone in: $out"
}

# A loaded module's functions (tcp_bbr's, from its BTF) are fbt probes of the module: listed,
# typed, and fired by a loopback TCP connection that uses bbr (each of its two sockets is
# initialised by bbr_init).
test_crumbs_fbt_module() {
    load_tcp_bbr
    out=$(crumbs -l -n 'fbt:tcp_bbr:bbr_init:entry' 2>&1) || die "crumbs -l failed: $out"
    echo "$out" | grep -Eq 'fbt +tcp_bbr +bbr_init entry' || die "expected fbt:tcp_bbr:bbr_init:entry listed in: $out"
    out=$(crumbs -lv -n 'fbt:tcp_bbr:bbr_init:entry' 2>&1) || die "crumbs -lv failed: $out"
    echo "$out" | grep -q 'args\[0\]: struct sock \*' || die "expected bbr_init's struct sock * argument in: $out"
    ip link set lo up
    echo bbr >/proc/sys/net/ipv4/tcp_congestion_control || die "cannot choose bbr"
    out=$(crumbs -q -e 'fbt:tcp_bbr:bbr_init:entry { @[probemod, probefunc] = count();
            /* busybox nc listens on IPv6 (AF_INET6, 10) and connects over IPv4 (AF_INET, 2) */
            @inet = sum(args[0]->__sk_common.skc_family == 2 || args[0]->__sk_common.skc_family == 10); }' \
        -c "sh -c 'nc -l -p 5999 >/dev/null & sleep 0.3; echo hi | nc -w 1 127.0.0.1 5999; wait'" 2>&1) || die "crumbs failed: $out"
    echo "$out" | grep -Eq '^  tcp_bbr +bbr_init +2$' || die "expected bbr_init twice in: $out"
    echo "$out" | grep -Eqx ' +2' || die "expected both sockets' families (args[0] typed from tcp_bbr's BTF) in: $out"
    # fentry and fexit on the module's function: trampolines loaded against tcp_bbr's BTF
    # object, the argument read through bpf_get_func_arg.
    out=$(crumbs -q -x fbtmode=fentry -e 'fbt:tcp_bbr:bbr_init:entry { @e[probemod, probefunc] = count(); @inet = sum(args[0]->__sk_common.skc_family == 2 || args[0]->__sk_common.skc_family == 10); }
            fbt:tcp_bbr:bbr_init:return { @r = count(); }' \
        -c "sh -c 'nc -l -p 5998 >/dev/null & sleep 0.3; echo hi | nc -w 1 127.0.0.1 5998; wait'" 2>&1) || die "crumbs (fentry) failed: $out"
    echo cubic >/proc/sys/net/ipv4/tcp_congestion_control 2>/dev/null || true
    echo "$out" | grep -Eq '^  tcp_bbr +bbr_init +2$' || die "expected bbr_init twice at fentry in: $out"
    [ "$(echo "$out" | grep -Ecx ' +2')" -eq 2 ] || die "expected both families and two returns at fexit in: $out"
}

# bpftrace's tools/tcpconnect.bt as bpftrace has it now, unmodified (`let` declarations,
# `.` on a pointer, ntop() of skc_daddr and of u6_addr8 arrays, bswap(), time()), at
# kprobe:tcp_connect: busybox nc connecting over IPv4 to 127.0.0.1 and over IPv6 to ::1
# gives one row each, with the addresses and the destination port.
test_crumbs_bt_tcpconnect() {
    ip link set lo up
    cat >/tmp/tcpconnect.bt <<'EOF_TCPCONNECT'
#!/usr/bin/env bpftrace
// tcpconnect.bt  Trace TCP connect()s.
//                For Linux, uses bpftrace and eBPF.
//
// All connection attempts are traced, even if they ultimately fail.
//
// This uses dynamic tracing of kernel functions, and will need to be updated
// to match kernel changes.
//
// Example of usage:
//
// # ./tcpconnect.bt
// TIME     PID      COMM             SADDR          SPORT  DADDR          DPORT
// 00:36:45 1798396  agent            127.0.0.1      5001   10.229.20.82   56114
// 00:36:45 1798396  curl             127.0.0.1      10255  10.229.20.82   56606
// 00:36:45 3949059  nginx            127.0.0.1      8000   127.0.0.1      37780
//
//
// This output shows three connections, one from a "agent" process, one from
// "curl", and one from "nginx". The output details shows the IP version, source
// address, source socket port, destination address, and destination port. This traces attempted
// connections: these may have failed.
//
// The overhead of this tool should be negligible, since it is only tracing the
// kernel functions performing connect. It is not tracing every packet and then
// filtering.
//
// This is a bpftrace version of the bcc tool of the same name.
//
// Copyright (c) 2018 Dale Hamel.
//
// 23-Nov-2018	Dale Hamel	created this.

#ifndef BPFTRACE_HAVE_BTF
#include <linux/socket.h>
#include <net/sock.h>
#else
// BTF provides the types, we just need to define AF_INET and AF_INET6.
// These are Linux ABI defines, and are not architecture-specific.
// With BTF, this allows tcpconnect.bt to work without glibc headers:
#define AF_INET   2 /* IPv4 */
#define AF_INET6 10 /* IPv6 */
#endif

BEGIN
{
  printf("Tracing tcp connections. Hit Ctrl-C to end.\n");
  printf("%-8s %-8s %-16s ", "TIME", "PID", "COMM");
  printf("%-39s %-6s %-39s %-6s\n", "SADDR", "SPORT", "DADDR", "DPORT");
}

kprobe:tcp_connect
{
  let $daddr;
  let $saddr;
  $sk = (struct sock*)arg0;
  $inet_family = $sk.__sk_common.skc_family;

  if ($inet_family == AF_INET || $inet_family == AF_INET6) {
    if ($inet_family == AF_INET) {
      $daddr = ntop($sk.__sk_common.skc_daddr);
      $saddr = ntop($sk.__sk_common.skc_rcv_saddr);
    } else {
      $daddr = ntop($sk.__sk_common.skc_v6_daddr.in6_u.u6_addr8);
      $saddr = ntop($sk.__sk_common.skc_v6_rcv_saddr.in6_u.u6_addr8);
    }
    $lport = $sk.__sk_common.skc_num;
    $dport = $sk.__sk_common.skc_dport;

    // Destination port is big endian, it must be flipped
    $dport = bswap($dport);

    time("%H:%M:%S ");
    printf("%-8d %-16s ", pid, comm);
    printf("%-39s %-6d %-39s %-6d\n", $saddr, $lport, $daddr, $dport);
  }
}
EOF_TCPCONNECT
    out=$(crumbs /tmp/tcpconnect.bt -c "sh -c 'nc -l -p 5997 >/dev/null & nc -l -p 5996 >/dev/null & sleep 0.3; echo hi | nc -w 1 127.0.0.1 5997; echo hi | nc -w 1 ::1 5996; wait'" 2>&1) \
        || die "crumbs failed: $out"
    echo "$out" | grep -q '^TIME     PID      COMM             SADDR  ' || die "expected the header in: $out"
    echo "$out" | grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]+ +nc +127\.0\.0\.1 +[0-9]+ +127\.0\.0\.1 +5997 *$' || die "expected the IPv4 connection's row in: $out"
    echo "$out" | grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]+ +nc +::1 +[0-9]+ +::1 +5996 *$' || die "expected the IPv6 connection's row in: $out"
}

# pid probes on a kernel without uprobe.multi links (6.1: aya's perf-event uprobes): libc's
# read, linked into the static io-benchmark, entered and returned from once per read call.
test_crumbs_pid_probes() {
    io-benchmark -c -s 1M /tmp/pidfile >/dev/null || die "io-benchmark could not make its file"
    out=$(crumbs -q -e 'pid$target:a.out:read:entry { entries++; } pid$target:a.out:read:return { returns++; }
            syscall::read:entry /pid == $target/ { calls++; } END { printf("reads %d %d %d\n", entries, returns, calls); }' \
        -c 'io-benchmark -r -b 4K /tmp/pidfile' 2>&1) || die "crumbs failed: $out"
    echo "$out" | grep -qx 'reads 256 256 256' || die "expected 256 entries, returns and read calls in: $out"
}

# ---- the ML-storage scripts (scripts/ml-storage) ------------------------------------------

# Fail unless every row of "$1" (the lines that begin with a number: a script's TIMESTAMP)
# has the shape the ML-storage scripts print: $2 fields, the TIME column walltimestamp's
# `%Y` (four fields, `2026 Nov  7 09:53:47`), a TIMESTAMP (ns since boot) between the
# uptimes $3 and $4 (seconds, /proc/uptime's, read before and after the run, which has the
# same clock in this guest) and never going back, and a latency (field $5) above 0 and below
# 10 s (a negative one printed unsigned would be about 1.8e19).
expect_ml_rows() {
    echo "$1" | awk -v nf="$2" -v t0="$3" -v t1="$4" -v lat="$5" '
        $1 !~ /^[0-9]+$/ { next }
        { rows++ }
        NF != nf { print "row with " NF " fields, want " nf ": " $0; bad = 1; next }
        $2 !~ /^[0-9][0-9][0-9][0-9]$/ || $3 !~ /^[A-Z][a-z][a-z]$/ || $4 !~ /^[0-9]+$/ || $5 !~ /^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$/ {
            print "TIME is not %Y: " $0; bad = 1 }
        $1 / 1e9 < t0 - 0.02 || $1 / 1e9 > t1 + 0.02 { print "TIMESTAMP outside " t0 " .. " t1 " s since boot: " $0; bad = 1 }
        $1 + 0 < last { print "TIMESTAMP went back: " $0; bad = 1 }
        { last = $1 + 0 }
        !($lat + 0 > 0 && $lat + 0 < 1e10) { print "latency not in 0 .. 10 s: " $0; bad = 1 }
        END { if (rows == 0) { print "no rows"; bad = 1 } exit bad }' || die "in:
$1"
}

# scripts/ml-storage/vfs_rw.d, the ML-storage researchers' trace_vfs_rw.bt in D, in the
# kprobe and fentry attach modes (and kprobe.multi where the kernel has it), on io-benchmark (the script's argument: the process name)
# in two runs: -c writes the 64K file in one write, -r reads it in 128 reads of 512 bytes,
# then a second process writes it in 16 writes of 4K. Every row, in order: R or W, the bytes
# asked for (the block size), the bytes returned, the name from args[0]'s struct chain; the
# two processes' pids; latencies and timestamps as expect_ml_rows checks them.
test_crumbs_ml_vfs_rw() {
    [ -f scripts/ml-storage/vfs_rw.d ] || die "no scripts/ml-storage/vfs_rw.d in the guest"
    modes="kprobe fentry"
    if has_kprobe_multi; then modes="$modes multi"; fi
    for mode in $modes; do
        t0=$(cut -d' ' -f1 /proc/uptime)
        out=$(crumbs -x fbtmode=$mode \
            -c "sh -c 'io-benchmark -c -r -b 512 -s 64K /tmp/mlfile && io-benchmark -w -b 4K -s 64K /tmp/mlfile'" \
            -s scripts/ml-storage/vfs_rw.d io-benchmark 2>&1) || die "crumbs ($mode) failed: $out"
        t1=$(cut -d' ' -f1 /proc/uptime)
        echo "$out" | grep -q '^TIMESTAMP  *TIME  *PID  *COMM  *R/W  *LAT(ns)  *REQUESTED  *RETURNED  *FILE$' \
            || die "no header with fbtmode=$mode in: $out"
        expect_ml_rows "$out" 12 "$t0" "$t1" 9
        # Runs of equal (comm, R/W, requested, returned, file), each with its count, and
        # whether its pid is the previous run's.
        runs=$(echo "$out" | awk '$1 ~ /^[0-9]+$/ {
                k = $7 " " $8 " " $10 " " $11 " " $12
                if (k != prev) { if (n) printf "%s x%d, ", prev, n; printf "%s ", ($6 == pid ? "same" : "new"); prev = k; n = 0 }
                n++; pid = $6 }
            END { printf "%s x%d\n", prev, n }')
        want='new io-benchmark W 65536 65536 mlfile x1, same io-benchmark R 512 512 mlfile x128, new io-benchmark W 4096 4096 mlfile x16'
        [ "$runs" = "$want" ] || die "fbtmode=$mode: rows are
  $runs
want
  $want
in: $out"
    done
}

# The ML-storage researchers' bpftrace scripts (scripts/ml-storage/bpftrace/, their files
# byte for byte) trace processes named python: io-benchmark runs under that name.
python_benchmark() {
    mkdir -p /tmp/py && cp "$(command -v io-benchmark)" /tmp/py/python || die "cannot copy io-benchmark"
}

# Rows of a bpftrace script's output whose first field is a timestamp (nsecs): $2 is
# time()'s HH:MM:SS, $3 the pid, $4 the comm; the timestamps are within the run ($2, $3:
# seconds since boot before and after) and in order, and field $4's latency is in 0 .. 10 s.
expect_bt_rows() {
    echo "$1" | awk -v nf="$2" -v t0="$3" -v t1="$4" -v lat="$5" '
        $1 !~ /^[0-9]+$/ { next }
        { rows++ }
        NF != nf { print "row with " NF " fields, want " nf ": " $0; bad = 1; next }
        $2 !~ /^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$/ { print "TIME is not HH:MM:SS: " $0; bad = 1 }
        $4 != "python" { print "COMM is not python: " $0; bad = 1 }
        $1 / 1e9 < t0 - 0.02 || $1 / 1e9 > t1 + 0.02 { print "TIMESTAMP outside " t0 " .. " t1 " s since boot: " $0; bad = 1 }
        $1 + 0 < last { print "TIMESTAMP went back: " $0; bad = 1 }
        { last = $1 + 0 }
        !($lat + 0 > 0 && $lat + 0 < 1e10) { print "latency not in 0 .. 10 s: " $0; bad = 1 }
        END { if (rows == 0) { print "no rows"; bad = 1 } exit bad }' || die "in:
$1"
}

# trace_vfs_rw.bt as bpftrace runs it (kprobe/kretprobe on vfs_read and vfs_write, maps keyed
# by tid, str() of the struct file chain, time(), delete() and clear()), on the run of
# test_crumbs_ml_vfs_rw: every row in order with its columns, and nothing printed at the end
# but bpftrace's two newlines and the eight maps END cleared (one empty line each).
test_crumbs_bt_vfs_rw() {
    f=scripts/ml-storage/bpftrace/trace_vfs_rw.bt
    [ -f $f ] || die "no $f in the guest"
    python_benchmark
    t0=$(cut -d' ' -f1 /proc/uptime)
    crumbs -c "sh -c '/tmp/py/python -c -r -b 512 -s 64K /tmp/btfile && /tmp/py/python -w -b 4K -s 64K /tmp/btfile'" $f >/tmp/bt.out 2>&1 \
        || die "crumbs failed: $(cat /tmp/bt.out)"
    out=$(cat /tmp/bt.out)
    t1=$(cut -d' ' -f1 /proc/uptime)
    head=$(echo "$out" | head -3)
    want_head='Attaching 6 probes...
Capturing VFS Read and Write calls
TIMESTAMP         TIME      PID    COMM           R/W  LAT(ns) REQUESTED  RETURNED   FILE'
    [ "$head" = "$want_head" ] || die "the first lines are
$head
want
$want_head"
    expect_bt_rows "$out" 9 "$t0" "$t1" 6
    runs=$(echo "$out" | awk '$1 ~ /^[0-9]+$/ {
            k = $4 " " $5 " " $7 " " $8 " " $9
            if (k != prev) { if (n) printf "%s x%d, ", prev, n; printf "%s ", ($3 == pid ? "same" : "new"); prev = k; n = 0 }
            n++; pid = $3 }
        END { printf "%s x%d\n", prev, n }')
    want='new python W 65536 65536 btfile x1, same python R 512 512 btfile x128, new python W 4096 4096 btfile x16'
    [ "$runs" = "$want" ] || die "rows are
  $runs
want
  $want
in: $out"
    # After the rows: two newlines, then each of the 8 maps END cleared as one empty line.
    ends=$(awk '$1 ~ /^[0-9]+$/ { e = 0; next } { e = ($0 == "") ? e + 1 : -1000 } END { print e }' /tmp/bt.out)
    [ "$ends" = 10 ] || die "after the rows, not 10 empty lines ($ends): $out"
}

# trace_open.bt as bpftrace runs it: sys_enter_openat/sys_exit_openat (the path from
# args->filename, kept as a pointer and read with str() at exit) and kprobe/kretprobe on
# vfs_open (the dentry's name kept as a kernel pointer): io-benchmark's two opens of its file
# each give a vfs_open row, then the openat row whose path ends in that name.
test_crumbs_bt_open() {
    f=scripts/ml-storage/bpftrace/trace_open.bt
    [ -f $f ] || die "no $f in the guest"
    python_benchmark
    mkdir -p /tmp/bt
    t0=$(cut -d' ' -f1 /proc/uptime)
    out=$(crumbs -c '/tmp/py/python -c -r -b 4K -s 64K /tmp/bt/data.bin' $f 2>&1) || die "crumbs failed: $out"
    t1=$(cut -d' ' -f1 /proc/uptime)
    echo "$out" | grep -q '^TIMESTAMP  *TIME  *PID  *COMM  *FUNC  *LAT(ns)  *FILENAME$' || die "no header in: $out"
    expect_bt_rows "$out" 7 "$t0" "$t1" 6
    rows=$(echo "$out" | awk '$1 ~ /^[0-9]+$/ { printf "%s %s, ", $5, $7 }')
    want='vfs_open data.bin, openat /tmp/bt/data.bin, vfs_open data.bin, openat /tmp/bt/data.bin, '
    [ "$rows" = "$want" ] || die "rows are
  $rows
want
  $want
in: $out"
}

# trace_bio.bt as bpftrace runs it (kprobe:blk_account_io_start/_done, maps keyed by the
# request pointer, a string map compared to the disk's name, a ternary of strings): python
# (io-benchmark) reads a fresh 2 MiB loop device whole, so every byte is in one request it
# started, each matched with its completion. The disk it filters on, "sda", is replaced by
# the loop device's name (the file is otherwise as in the repository: README.md there).
test_crumbs_bt_bio() {
    f=scripts/ml-storage/bpftrace/trace_bio.bt
    [ -f $f ] || die "no $f in the guest"
    python_benchmark
    insmod /lib/modules/loop.ko 2>/dev/null
    [ -e /dev/loop-control ] || die "no loop devices (insmod loop.ko failed?)"
    dd if=/dev/zero of=/tmp/biodisk bs=1024 count=2048 2>/dev/null
    dev=$(losetup -f) || die "no free loop device"
    losetup "$dev" /tmp/biodisk || die "losetup $dev failed"
    name=${dev#/dev/}
    sed "s/\"sda\"/\"$name\"/" $f >/tmp/trace_bio.bt
    out=$(crumbs -c "/tmp/py/python -r -b 64K $dev" /tmp/trace_bio.bt 2>&1)
    rc=$?
    losetup -d "$dev"
    [ $rc -eq 0 ] || die "crumbs failed: $out"
    echo "$out" | grep -q '^TIMESTAMP  *PID  *COMM  *DONEPID  *DONECOMM  *DISK  *T  *SECTOR  *BYTES  *LAT(ns)$' || die "no header in: $out"
    echo "$out" | awk -v disk="$name" '
        $1 !~ /^[0-9]+$/ { next }
        { rows++ }
        NF != 10 || $3 != "python" || $6 != disk || $7 != "R" { print "bad row: " $0; bad = 1 }
        !($10 + 0 > 0) { print "latency not above 0: " $0; bad = 1 }
        { bytes += $9; if (seen[$8]++) { print "sector twice: " $0; bad = 1 } }
        END { if (bytes != 2097152) { print rows " rows of " bytes " bytes, not 2097152"; bad = 1 } exit bad }' || die "in: $out"
}

# scripts/ml-storage/open.d, trace_open.bt in D, on io-benchmark's two opens of its file
# (-c creates it, -r opens it to read): each vfs_open() row (the dentry's name, from the
# struct path * argument's chain) comes before the row of the openat() that made it (the
# path the program passed), the name is the path's last component, and the openat's
# latency holds the vfs_open's.
test_crumbs_ml_open() {
    [ -f scripts/ml-storage/open.d ] || die "no scripts/ml-storage/open.d in the guest"
    mkdir -p /tmp/ml
    t0=$(cut -d' ' -f1 /proc/uptime)
    out=$(crumbs -c 'io-benchmark -c -r -b 4K -s 64K /tmp/ml/data.bin' \
        -s scripts/ml-storage/open.d io-benchmark 2>&1) || die "crumbs failed: $out"
    t1=$(cut -d' ' -f1 /proc/uptime)
    echo "$out" | grep -q '^TIMESTAMP  *TIME  *PID  *COMM  *FUNC  *LAT(ns)  *FILENAME$' || die "no header in: $out"
    expect_ml_rows "$out" 10 "$t0" "$t1" 9
    rows=$(echo "$out" | awk '$1 ~ /^[0-9]+$/ { printf "%s %s %s, ", $7, $8, $10 }')
    want='io-benchmark vfs_open data.bin, io-benchmark openat /tmp/ml/data.bin, io-benchmark vfs_open data.bin, io-benchmark openat /tmp/ml/data.bin, '
    [ "$rows" = "$want" ] || die "rows are
  $rows
want
  $want
in: $out"
    echo "$out" | awk '$1 ~ /^[0-9]+$/ {
            if ($8 == "vfs_open") { name = $10; lat = $9; pid = $6; next }
            base = $10; sub(/.*\//, "", base)
            if (base != name) { print "vfs_open named " name ", openat opened " $10; bad = 1 }
            if (!($9 + 0 > lat + 0)) { print "openat latency " $9 " does not hold vfs_open latency " lat; bad = 1 }
            if ($6 != pid) { print "openat pid " $6 " is not vfs_open pid " pid; bad = 1 } }
        END { exit bad }' || die "in: $out"
}
