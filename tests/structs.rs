//! Structs and unions by value (spec §4.9, §5): copied whole from kernel memory into a
//! global, `self->`, `this->` variable or an associative array's element, members read back
//! with `.`, printed whole, deleted by 0, a bad address faulting; and the errors for what D
//! rejects. Live: every value is checked against the kernel's object read through the
//! pointer it was copied from.

mod common;

use common::{assert_compile_error as assert_error, run, Output};

fn quiet(program: &str) -> Output {
    let out = run(&["-q", "-e", program]);
    out.assert_ok();
    out
}

#[test]
fn a_task_copied_into_each_kind_of_variable_holds_the_task() {
    let out = quiet(
        r#"BEGIN {
            this->t = *curthread; self->t = *curthread; t = *curthread; a[pid] = *curthread;
            printf("%d %d %d %d|", this->t.pid == pid, self->t.tgid == pid, t.pid == tid, a[pid].pid == pid);
            printf("%d %d %s|", this->t.real_parent == curthread->real_parent, a[pid].real_parent->tgid == ppid, stringof(t.comm));
            printf("%d\n", sizeof(this->t) == sizeof(struct task_struct));
            exit(0);
        }"#,
    );
    assert_eq!(out.stdout, "1 1 1 1|1 1 crumbs|1\n\n", "{}", out.dump());
}

#[test]
fn small_kernel_structs_compare_member_by_member_with_the_kernel() {
    // struct path and struct qstr, copied, then each member against a read through the
    // pointer; nested members and a pointer member followed from the copy.
    let out = quiet(
        r#"BEGIN {
            this->p = curthread->fs->pwd;
            self->q = curthread->fs->pwd.dentry->d_name;
            printf("%d %d ", this->p.mnt == curthread->fs->pwd.mnt, this->p.dentry == curthread->fs->pwd.dentry);
            printf("%d %d %d ", self->q.len == curthread->fs->pwd.dentry->d_name.len, self->q.hash == curthread->fs->pwd.dentry->d_name.hash, self->q.name == curthread->fs->pwd.dentry->d_name.name);
            printf("%s %d\n", stringof(this->p.dentry->d_name.name) == stringof(self->q.name) ? "same" : "differ", this->p.dentry->d_name.len == self->q.len);
            exit(0);
        }"#,
    );
    assert_eq!(out.stdout, "1 1 1 1 1 same 1\n\n", "{}", out.dump());
}

#[test]
fn a_thread_local_copy_lasts_from_entry_to_return() {
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::read:entry /pid == $target/ { self->t = *curthread; }
           syscall::read:return /pid == $target && self->t.pid != 0/ { printf("%d %d %d\n", self->t.pid == tid, self->t.tgid == pid, self->t.start_time == curthread->start_time); self->t = 0; exit(0); }"#,
        "-c",
        "dd if=/dev/zero of=/dev/null bs=1 count=1",
    ]);
    out.assert_ok();
    assert_eq!(out.stdout, "1 1 1\n\n", "{}", out.dump());
}

#[test]
fn print_and_trace_of_a_struct_variable_show_it_whole() {
    let out = quiet(r#"BEGIN { this->p = curthread->fs->pwd; print(this->p); printf("|%d\n", this->p.mnt != 0); trace(this->p); exit(0); }"#);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], "struct path {", "{}", out.dump());
    assert!(lines[1].starts_with("    struct vfsmount *mnt = 0xffff"), "{}", out.dump());
    assert!(lines[2].starts_with("    struct dentry *dentry = 0xffff"), "{}", out.dump());
    assert_eq!(lines[3], "}|1", "{}", out.dump());
    assert_eq!(lines[4..7], lines[0..3], "trace() prints as print()\n{}", out.dump());
}

#[test]
fn zero_deletes_a_struct_element_and_a_thread_local() {
    // D's rule: 0 deletes a dynamic variable whatever its type; reading a member of one
    // that does not exist faults (invalid address: the member's offset), as in DTrace.
    let out = quiet(
        r#"BEGIN { a[1] = curthread->fs->pwd; a[2] = a[1]; a[1] = 0; self->q = curthread->fs->pwd.dentry->d_name; self->q = 0; printf("%d\n", a[2].dentry == curthread->fs->pwd.dentry); }
           BEGIN { trace(a[1].dentry); }
           BEGIN { trace(self->q.name); }
           ERROR { printf("fault %d %d\n", arg4, arg5); }
           BEGIN { exit(0); }"#,
    );
    assert_eq!(out.stdout, "1\nfault 1 8\nfault 1 8\n\n", "{}", out.dump());
    assert_eq!(out.stderr.matches("invalid address (0x8)").count(), 2, "{}", out.dump());
}

#[test]
fn copying_from_a_bad_address_faults() {
    let out = quiet(r#"BEGIN { this->p = *(struct path *)16; printf("not reached\n"); } ERROR { printf("fault %d %d %d\n", arg4, arg5, arg2); } BEGIN { exit(0); }"#);
    assert_eq!(out.stdout, "fault 1 16 1\n\n", "{}", out.dump());
    assert!(out.stderr.contains("invalid address (0x10) in action #1"), "{}", out.dump());
}

#[test]
fn what_d_rejects_about_structs() {
    let p = "BEGIN { this->p = curthread->fs->pwd; ";
    assert_error(&format!("{p} trace(this->p + 1); }}"), "a `struct path` cannot be used as a value here", "use a member");
    assert_error(&format!("{p} trace(this->p == this->p); }}"), "a `struct path` cannot be used as a value here", "use a member");
    assert_error(&format!("{p} this->p = curthread->fs->pwd.dentry->d_name; }}"), "`this->p` is `struct path`, but this is `struct qstr`", "keeps the type of its first assignment");
    assert_error(&format!("{p} this->p++; }}"), "`++`/`--` of `this->p`, a `struct path`", "assigned whole");
    assert_error(&format!("{p} this->p += 1; }}"), "a compound assignment of `this->p`", "assigned whole");
    assert_error(&format!("{p} this->p = 0; }}"), "`this->p` is `struct path`, but this is `int`", "keeps the type");
    assert_error(&format!("{p} trace(&this->p); }}"), "cannot take the address of a variable", "&x.m");
    assert_error("BEGIN { x = 1; x = curthread->fs->pwd; }", "`x` is `int`, but this is `struct path`", "keeps the type");
    assert_error(&format!("{p} trace(this->p ? 1 : 2); }}"), "a `struct path` cannot be used as a value here", "use a member");
}

const RECORD: &str = "struct record { int position; char content; }; struct pirate { int position; char content; };";

#[test]
fn equal_structs_are_one_key_and_a_changed_member_another() {
    // dtrace-utils' tst.StructAssoc: r1 and r2 with equal members index one element; a
    // kernel struct is a key too.
    let out = quiet(&format!(
        r#"{RECORD} struct record r1; struct record r2;
           BEGIN {{ r1.position = 1; r1.content = 'a'; r2.position = 1; r2.content = 'a';
              assoc_array[r1] = 1000; assoc_array[r2] = 2000;
              printf("%d %d|", assoc_array[r1], assoc_array[r2]);
              r2.position = 2; assoc_array[r2] = 3000;
              printf("%d %d|", assoc_array[r1], assoc_array[r2]);
              this->k = curthread->fs->pwd; k[this->k] = 7; k[curthread->fs->pwd] += 1;
              printf("%d\n", k[curthread->fs->pwd]);
              exit(0); }}"#
    ));
    assert_eq!(out.stdout, "2000 2000|2000 3000|8\n\n", "{}", out.dump());
}

#[test]
fn declared_struct_variables_start_zeroed_and_take_member_stores() {
    // dtrace-utils' tst.global_local_scalar and tst.implicit_decl, in one firing; a
    // bitfield, compound assignments, a struct member copied whole, and a thread-local and
    // an element created by their first member store.
    let out = quiet(
        r#"struct coords { int x; int y; }; struct particle { struct coords position; struct coords velocity; };
           struct bits { unsigned int a : 3; int b : 5; unsigned int c : 8; };
           struct particle P; this struct coords q; self struct particle s; struct bits B; struct coords pts[int];
           BEGIN {
               printf("%d %d %d|", P.position.x, P.velocity.y, this->q.y);
               P.position.x = 1; P.position.y = 2; this->q.x = 15; this->q.y = 16;
               P.velocity = this->q; P.velocity.x += 100; P.velocity.y++;
               C = P; C.position = P.velocity;
               printf("%d %d %d %d %d %d|", P.position.x, P.position.y, P.velocity.x, P.velocity.y, C.position.x, C.velocity.y);
               self->s.velocity.y = 42; pts[3].y = 9; pts[3].x = this->q.x;
               printf("%d %d %d %d|", self->s.velocity.y, self->s.position.x, pts[3].x, pts[3].y);
               B.a = 5; B.b = -3; B.c = 200; B.a++; B.b -= 10;
               printf("%d %d %d %d\n", B.a, B.b, B.c, sizeof(B));
               exit(0);
           }"#,
    );
    assert_eq!(out.stdout, "0 0 0|1 2 115 17 115 17|42 0 15 9|6 -13 200 4\n\n", "{}", out.dump());
}

#[test]
fn a_clause_local_struct_is_shared_by_the_clauses_of_a_firing() {
    // dtrace-utils' tst.clauselocal.
    let out = quiet(
        r#"struct foo { int x; char y; short z; }; this struct foo bar;
           BEGIN { this->bar.x = 1; this->bar.y = ','; this->bar.z = 1234; }
           BEGIN { printf("Die %s%c %s.\n", this->bar.x == 1 ? "SystemTap" : "DTrace", this->bar.y, this->bar.z == 1234 ? "Die" : "The"); exit(0); }"#,
    );
    assert_eq!(out.stdout, "Die SystemTap, Die.\n\n", "{}", out.dump());
}

#[test]
fn struct_aggregation_keys_print_as_dtrace_prints_records_of_their_size() {
    // dt_print_datum(): 8 and 4 bytes as integers, other sizes as text or a hex dump.
    let out = quiet(
        r#"struct c8 { int x; int y; }; struct c4 { short a; short b; }; struct t12 { char s[12]; }; struct r12 { int a; int b; int c; };
           struct c8 e; struct c4 f; struct t12 t; struct r12 r;
           BEGIN { e.x = 1; e.y = 2; f.a = -1; f.b = -1; t.s[0] = 'h'; t.s[1] = 'i'; r.a = 1; r.b = 0x41; r.c = 3;
                   @a[e] = count(); @a[e] = count(); @b[f] = count(); @c[t, 5] = sum(2); @d[r] = count(); exit(0); }"#,
    );
    assert!(out.stdout.contains(&format!("\n {:>16} {:>16}\n", 8589934593u64, 2)), "{}", out.dump());
    assert!(out.stdout.contains(&format!("\n {:>8} {:>16}\n", -1, 1)), "{}", out.dump());
    assert!(out.stdout.contains(&format!("\n  {:<50} {:>8} {:>16}\n", "hi", 5, 2)), "{}", out.dump());
    assert!(out.stdout.contains("             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n         0: 01 00 00 00 41 00 00 00 03 00 00 00              ....A.......\n"), "{}", out.dump());
}

#[test]
fn a_struct_key_of_another_type_is_an_error_in_dtraces_words() {
    // dtrace-utils' err.D_PROTO_ARG.DupStructAssoc.
    let decl = format!("{RECORD} struct record r1; struct pirate p1;");
    assert_error(&format!("{decl} BEGIN {{ a[r1] = 1; a[p1] = 2; }}"), "a[ ] key #1 is incompatible with prototype: struct record vs struct pirate", "keys at one position have one type");
    assert_error(&format!("{decl} BEGIN {{ @[r1] = count(); @[p1] = count(); }}"), "@[ ] key #1 is incompatible with prototype: struct record vs struct pirate", "keys at one position have one type");
    assert_error(&format!("{decl} BEGIN {{ r1.position = \"x\"; }}"), "`r1.position` is `int`, but this is a string", "a member holds its C type");
}

/// A struct key prints in printa()'s default layout only: a conversion for it is an error.
#[test]
fn no_conversion_prints_a_struct_key() {
    common::assert_compile_error("struct pt { int x; int y; } p; BEGIN { @a[p] = count(); printa(\"%d %@d\\n\", @a); }", "key 1 of `@a` is a struct or union, which no conversion prints", "print `@a` with printa(@a)");
}
