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
    assert_error(&format!("{p} @[this->p] = count(); }}"), "a `struct path` cannot be used as a value here", "use a member");
}
