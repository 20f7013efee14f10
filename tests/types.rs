//! C types from the kernel's BTF (spec §4.8): struct chasing from `curthread`, kernel strings
//! through pointer hops, casts at every width, sizeof/offsetof, and the diagnostics of bad
//! uses. Live: the values are checked against what the kernel says another way (ppid,
//! execname, pid, tid).

mod common;

use common::{assert_compile_error as assert_error, run, Output};

/// `crumbs -q -e PROGRAM`; its output ends with the newline that ends tracing (spec §9.1).
fn quiet(program: &str) -> Output {
    let out = run(&["-q", "-e", program]);
    out.assert_ok();
    out
}

#[test]
fn curthread_walks_to_the_parent() {
    let out = quiet(r#"BEGIN { printf("%d %d\n", curthread->real_parent->tgid, ppid); exit(0); }"#);
    let v: Vec<i64> = out.stdout.split_whitespace().map(|s| s.parse().unwrap()).collect();
    assert_eq!(v.len(), 2, "{}", out.dump());
    assert_eq!(v[0], v[1], "curthread->real_parent->tgid is ppid\n{}", out.dump());
    assert_eq!(v[0], std::process::id() as i64, "the test started crumbs\n{}", out.dump());
}

#[test]
fn curthread_members_match_the_builtins() {
    let out = quiet(r#"BEGIN { printf("%d %d %d %d|%s|%s|\n", curthread->tgid, pid, curthread->pid, tid, curthread->comm, execname); exit(0); }"#);
    let (nums, rest) = out.stdout.split_once('|').unwrap();
    let v: Vec<i64> = nums.split_whitespace().map(|s| s.parse().unwrap()).collect();
    assert_eq!((v[0], v[2]), (v[1], v[3]), "{}", out.dump());
    assert_eq!(rest, "crumbs|crumbs|\n\n", "{}", out.dump());
}

#[test]
fn kernel_strings_through_several_hops() {
    // task -> mm -> exe_file -> f_path.dentry -> d_name.name: the executable's file name.
    let out = quiet(r#"BEGIN { printf("%s\n", curthread->mm->exe_file->f_path.dentry->d_name.name); exit(0); }"#);
    assert_eq!(out.stdout, "crumbs\n\n", "{}", out.dump());
    // The same string compares with a literal and is an aggregation key.
    let out = quiet(r#"BEGIN { @[curthread->comm] = count(); printf("%d\n", curthread->comm == "crumbs"); exit(0); }"#);
    assert_eq!(out.stdout, "1\n\n  crumbs                                                            1\n", "{}", out.dump());
}

#[test]
fn casts_truncate_and_extend_at_every_width() {
    let out = quiet(
        r#"BEGIN { printf("%d %d %d %d %d %d %d %d\n", (char)0x1ff, (unsigned char)0x1ff, (short)0x18000, (unsigned short)-1, (int)0x1ffffffff, (int8_t)200, (uint32_t)0x100000001, (long)-5); exit(0); }"#,
    );
    assert_eq!(out.stdout, "-1 255 -32768 65535 -1 -56 1 -5\n\n", "{}", out.dump());
}

/// spec §4.6: a parenthesised kernel typedef before `-` is a cast, as D's lexer makes it.
#[test]
fn parenthesised_kernel_typedefs_are_casts() {
    let out = quiet(r#"BEGIN { x = 5; printf("%u %d %d %d\n", (u64)-1, (u8)-1 * 2, (x) - 1, (u32)*&curthread->pid == pid); exit(0); }"#);
    assert_eq!(out.stdout, "18446744073709551615 510 4 1\n\n", "{}", out.dump());
}

#[test]
fn sizeof_and_offsetof() {
    let out = quiet(
        r#"BEGIN { printf("%d %d %d %d %d %d %d %d\n", sizeof(int), sizeof(long), sizeof(uint16_t), sizeof(struct list_head), offsetof(struct list_head, prev), sizeof(char *), sizeof(*curthread) == sizeof(struct task_struct), sizeof(curthread)); exit(0); }"#,
    );
    assert_eq!(out.stdout, "4 8 2 16 8 8 1 8\n\n", "{}", out.dump());
}

#[test]
fn pointer_arithmetic_scales_by_the_pointee() {
    let out = quiet(r#"BEGIN { printf("%d %d\n", (long)(curthread + 1) - (long)curthread, (long)&curthread->comm[3] - (long)&curthread->comm[0]); exit(0); }"#);
    let size = quiet(r#"BEGIN { printf("%d 3\n", sizeof(struct task_struct)); exit(0); }"#);
    assert_eq!(out.stdout, size.stdout, "{}", out.dump());
}

#[test]
fn diagnostics() {
    assert_error("BEGIN { trace(((struct no_such_struct *)arg0)->x); }", "unknown type `struct no_such_struct`", "btf");
    assert_error("BEGIN { trace(curthread->real_parnet); }", "has no member `real_parnet`", "did you mean `real_parent`?");
    assert_error("BEGIN { trace(curthread.pid); }", "`.` needs a struct or union", "use `->` on a pointer");
    assert_error("BEGIN { trace(arg0->pid); }", "`->` needs a pointer", "cast it first");
    assert_error("BEGIN { trace(*pid); }", "`*` needs a pointer", "only pointers");
    assert_error("BEGIN { trace((struct task_struct)arg0); }", "cannot cast to `struct task_struct`", "cast to an integer or a pointer");
    assert_error("BEGIN { trace(sizeof(struct no_such)); }", "unknown type `struct no_such`", "btf");
    assert_error("BEGIN { trace(offsetof(struct list_head, nxt)); }", "has no member `nxt`", "did you mean `next`?");
    assert_error("BEGIN { trace(*(void *)arg0); }", "cannot dereference a `void *`", "cast it to a pointer to what it points at");
    assert_error("BEGIN { trace(*curthread->sched_class->enqueue_task); }", "cannot dereference a function pointer (`void (*)()`)", "%a");
    assert_error("BEGIN { trace(&pid); }", "`&` needs an object in memory", "take the address of a member");
    assert_error("BEGIN { trace(sizeof(void)); }", "`void` has no size", "need a complete type");
    assert_error("struct later; BEGIN { trace(sizeof(struct later)); }", "`struct later` has no size", "need a complete type");
    assert_error("struct f { unsigned a:3; int b; }; BEGIN { trace(offsetof(struct f, a)); }", "`a` is a bitfield", "does not apply to bitfields");
    assert_error("struct later; struct s { struct later l; }; BEGIN { exit(0); }", "`struct later` has no size", "a pointer to it is fine");
    assert_error("BEGIN { trace(curthread->pid->x); }", "`->` needs a pointer to a struct or union, but this is `pid_t`", "cast it first");
    assert_error("BEGIN { trace(curthread * 2); }", "operator `*` needs integers, but this is a pointer (`struct task_struct *`)", "(uintptr_t)p");
    assert_error(r#"BEGIN { printf("%s", curthread); }"#, "%s expects a string, but this is a pointer (`struct task_struct *`)", "%p");
    assert_error("BEGIN { trace(curthread == curthread->mm); }", "`struct task_struct *` and `struct mm_struct *` point at different types", "cast one of them");
    assert_error("BEGIN { p = curthread; p = curthread->mm; }", "`p` cannot hold this", "cast one of them");
}

/// spec §4.8: `struct s;` names a struct defined later (pointers made before see the
/// definition), or one the kernel defines.
#[test]
fn forward_declarations() {
    let out = quiet("struct node; struct list { struct node *head; }; struct node { long v; struct node *next; }; struct task_struct; BEGIN { this->l = (struct list *)alloca(sizeof(struct list)); printf(\"%d %d %d\\n\", sizeof(struct node), sizeof(*this->l->head), ((struct task_struct *)curthread)->pid == pid); exit(0); }");
    assert_eq!(out.stdout, "16 16 1\n\n", "{}", out.dump());
}

#[test]
fn stringof_reads_kernel_strings() {
    let out = quiet(r#"BEGIN { printf("%s %s %s\n", stringof(curthread->comm), stringof(&curthread->comm[1]), stringof("lit")); exit(0); }"#);
    assert_eq!(out.stdout, "crumbs rumbs lit\n\n", "{}", out.dump());
    assert_error("BEGIN { trace(stringof(arg0)); }", "stringof() needs a kernel pointer", "stringof((char *)arg0)");
    assert_error("BEGIN { trace(stringof(curthread->pid)); }", "stringof() needs a kernel pointer", "cast an address");
}

/// spec §4.8: the script's own structs, unions, enums and typedefs, laid out as C does.
#[test]
fn declarations_in_the_script() {
    let script = r#"
#include <linux/sched.h>
struct point { int x; int y; char tag[3]; long z; };
union both { unsigned char b; int i; };
struct flags { unsigned a:3; unsigned b:5; int c:2; struct point *next; };
enum color { RED, GREEN = 5, BLUE };
enum { ANON = -2 };
typedef unsigned long my_ulong;
typedef struct point point_t;
BEGIN {
	printf("%d %d %d %d %d\n", sizeof(struct point), offsetof(struct point, z), offsetof(struct point, tag), sizeof(union both), sizeof(struct flags));
	printf("%d %d %d %d %d %d %d\n", RED, GREEN, BLUE, ANON, sizeof(my_ulong), sizeof(point_t), offsetof(struct flags, next));
	printf("%d\n", ((struct point *)curthread)->y == *(int *)((long)curthread + 4));
	exit(0);
}
"#;
    let out = quiet(script);
    assert_eq!(out.stdout, "24 16 8 4 16\n0 5 6 -2 8 24 8\n1\n\n", "{}", out.dump());
    // Records defined in place: named, anonymous (its members are the outer one's), and a
    // nested tag declared for later use; several members of one type.
    let nested = r#"struct s { int a; struct { char d; long e; } in; union { int i; char c[8]; }; struct pt { int x, *y, z[3]; } p; struct tag { short t; }; };
BEGIN { printf("%d %d %d %d %d %d %d\n", sizeof(struct s), offsetof(struct s, in.e), offsetof(struct s, i), offsetof(struct s, c), offsetof(struct s, p.z), sizeof(struct pt), sizeof(struct tag)); exit(0); }"#;
    assert_eq!(quiet(nested).stdout, "64 16 24 24 48 32 2\n\n");
    assert_error("struct s { int a; long a; }; BEGIN { exit(0); }", "member `a` is declared twice", "different names");
    assert_error("struct s { struct t { int a; } x; struct t { int b; } y; }; BEGIN { exit(0); }", "`struct t` is declared twice", "another name");
    assert_error("enum e { A, A }; BEGIN { exit(0); }", "enum constant `A` is declared twice", "one name space");
    assert_error("struct s { struct nosuch x; }; BEGIN { exit(0); }", "unknown type `struct nosuch`", "declare it in the script");
    assert_error("struct s { long a:3; char b:9; }; BEGIN { exit(0); }", "bitfield `b` of 9 bits", "no wider than the type");
}

/// spec §4.8: the kernel's enum constants are names in expressions, as in a D script on
/// illumos: `mm->rss_stat[MM_ANONPAGES].count`.
#[test]
fn kernel_enum_constants() {
    let out = quiet(r#"BEGIN { printf("%d %d %d\n", MM_FILEPAGES, MM_ANONPAGES, curthread->mm->rss_stat[MM_ANONPAGES].count > 0); exit(0); }"#);
    assert_eq!(out.stdout, "0 1 1\n\n", "{}", out.dump());
}

/// spec §7.10: print() by C type, in the layout of DTrace's print().
#[test]
fn print_shows_values_by_type() {
    let out = quiet(r#"BEGIN { print(curthread->comm); print(1 + 1); print("s"); print((unsigned char)200); print((char)65); exit(0); }"#);
    assert_eq!(out.stdout, "char [16] \"crumbs\"\nint 0x2\nstring \"s\"\nunsigned char 0xc8\nchar 'A'\n\n", "{}", out.dump());
    // A struct of the script's, laid over the process name "crumbs": members nest, an
    // array of chars that holds a string prints as one.
    let out = quiet(r#"struct d { char d; }; struct c { char a; char b; short s; struct d in; char rest[11]; }; BEGIN { print(*(struct c *)curthread->comm); exit(0); }"#);
    let want = "struct c {\n    char a = 'c'\n    char b = 'r'\n    short s = 0x6d75\n    struct d in = {\n        char d = 'b'\n    }\n    char [11] rest = [ \"s\" ]\n}\n";
    assert_eq!(out.stdout, want, "{}", out.dump());
}

#[test]
fn print_and_trace_of_kernel_structs() {
    let out = quiet("BEGIN { print(*curthread); exit(0); }");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.first(), Some(&"struct task_struct {"), "{}", out.dump());
    assert!(lines.contains(&"    char [16] comm = [ \"crumbs\" ]"), "{}", out.dump());
    assert!(out.stdout.ends_with("\n}\n"), "{}", out.dump());
    // trace() of a struct prints it the same way, after the probe's prefix when not quiet.
    let out = run(&["-e", "BEGIN { trace(curthread->se.load); exit(0); }"]);
    out.assert_ok();
    let line = out.stdout.lines().nth(1).unwrap_or_default();
    assert!(line.ends_with(":BEGIN struct load_weight {"), "{}", out.dump());
    assert_error("BEGIN { print(stack()); }", "print() cannot print a stack", "trace it with stack()");
    assert_error("struct big { char x[20000]; }; BEGIN { print(*(struct big *)curthread); }", "is 20000 bytes, too large to print", "one of its members");
}

/// spec §6.3: a system call's `args[N]` have the types of its prototype (the
/// syscalls:sys_enter_NAME format); a return probe's `args[0]` and `args[1]` are the
/// return value. io-benchmark opens its file read-only and reads 64 KiB in 4 KiB calls.
#[test]
fn syscall_args_have_the_prototypes_types() {
    let f = common::TempPath::new("args.dat");
    std::fs::write(f.path(), vec![7u8; 64 * 1024]).unwrap();
    let cmd = format!("{} -r -b 4096 {}", common::io_benchmark().display(), f.str());
    let program = r#"syscall::openat:entry /pid == $target && execname == "io-benchmark"/ { printf("openat %s %d\n", copyinstr(args[1]), args[2] & 3); }
        syscall::read:entry /pid == $target && execname == "io-benchmark"/ { @size[args[2]] = count(); }
        syscall::read:return /pid == $target && execname == "io-benchmark"/ { @bytes[args[0] == args[1]] = sum(args[0]); }"#;
    let out = run(&["-q", "-e", program, "-c", &cmd]);
    out.assert_ok();
    // size_t keys print unsigned at 8 bytes, the comparison's int at 4.
    let want = format!("openat {} 0\n\n{}{}\n{}{}\n", f.str(), common::int_col(4096), common::int_col(16), common::int32_col(1), common::int_col(65536));
    assert_eq!(out.stdout, want, "{}", out.dump());
}

/// spec §4.8: a pointer into the traced process (a system call's pointer arguments) is read
/// only with copyin()/copyinstr(); its other uses are compile errors that say so.
#[test]
fn user_pointers_need_copyin() {
    let user = "points into the traced process";
    assert_error(r#"syscall::openat:entry { printf("%s", args[1]); }"#, "%s of `char * (user)`, a user-space pointer", "copyinstr()");
    assert_error(r#"tracepoint:syscalls:sys_enter_openat { printf("%s", args->filename); }"#, "a user-space pointer", "copyinstr()");
    assert_error("syscall::openat:entry { trace(*args[1]); }", user, "read a user string with copyinstr()");
    assert_error("syscall::openat:entry { trace(args[1][0]); }", user, "read a user string with copyinstr()");
    assert_error("syscall::newfstatat:entry { trace(args[2]->st_size); }", user, "read a user string with copyinstr()");
    assert_error("syscall::openat:entry { trace(stringof(args[1])); }", "stringof() of a user-space pointer", "copyinstr()");
    assert_error("syscall::close:entry { trace(args[3]); }", "syscall:vmlinux:close:entry has one argument, args[0]", "count from 0");
    assert_error("BEGIN { trace(args[0]); }", "the arguments of dtrace:::BEGIN have no types", "use arg0");
    assert_error("syscall::read:entry { trace(args[arg0]); }", "args[] takes a constant index from 0 to 9", "args[0]");
    assert_error("syscall::read:entry, tracepoint:sched:sched_switch { trace(args[0]); }", "have no types", "arg0");
    // Kernel memory is not read at a user pointer, and the two kinds do not mix.
    assert_error("syscall::read:entry { tracemem(args[1], 16); }", "tracemem() reads kernel memory, but this is a user-space pointer (`char * (user)`)", "copyin(addr, size)");
    assert_error("syscall::read:entry { this->b = alloca(16); bcopy(args[1], this->b, 16); }", "bcopy() reads kernel memory, but this is a user-space pointer", "copyin(addr, size)");
    assert_error("syscall::read:entry /curthread == args[1]/ { }", "a user-space pointer (`char * (user)`) and a kernel pointer (`struct task_struct *`) do not mix", "uintptr_t");
    assert_error("syscall::read:entry { self->p = curthread; self->p = args[1]; }", "`self->p` cannot hold this: a user-space pointer", "copyin()");
}

/// spec §5.1: arg6..arg9 exist, as in DTrace; a system call has at most six arguments, so
/// they are 0 there.
#[test]
fn args_six_to_nine_are_zero_where_the_probe_has_fewer() {
    let out = run(&["-q", "-e", r#"syscall::read:entry /pid == $target && arg0 == 0/ { @[arg6 | arg7 | arg8 | arg9] = count(); }"#, "-c", "dd if=/dev/zero of=/dev/null bs=1k count=7"]);
    out.assert_ok();
    assert_eq!(out.stdout, format!("\n{}{}\n", common::int_col(0), common::int_col(7)), "{}", out.dump());
}

/// spec §4.8, §6.5: a struct reached from a tracepoint's pointer field. sleep(1) arms one
/// hrtimer; the timer the record points to holds what the record copied from it.
#[test]
fn struct_chasing_from_a_tracepoint_argument() {
    let program = r#"tracepoint:timer:hrtimer_start /pid == $target/ {
        this->t = (struct hrtimer *)args->hrtimer;
        @[this->t->function == args->function, this->t->_softexpires == args->softexpires, stringof(curthread->comm)] = count();
    }"#;
    let out = run(&["-q", "-e", program, "-c", "sleep 0.1"]);
    out.assert_ok();
    // One row: every timer armed agrees (an interrupt arming another one while sleep runs
    // would count in it too).
    let rows = common::agg_rows(&out.stdout);
    assert_eq!(rows.len(), 1, "{}", out.dump());
    assert_eq!(rows[0].0, ["1", "1", "sleep"], "{}", out.dump());
    assert!(rows[0].1 >= 1, "{}", out.dump());
    assert!(out.stdout.contains(&format!("{}{}{}", common::int32_col(1), common::int32_col(1), common::str_col("sleep"))), "{}", out.dump());
}
