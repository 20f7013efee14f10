//! Strings (spec §5.8): string variables of every kind, comparisons of any two strings,
//! strings in `?:`, the `strsize` option, and the string subroutines. Live: each program
//! runs in the kernel.

mod common;

use common::{assert_compile_error as assert_error, printed, run};

#[test]
fn string_variables_of_every_kind_hold_strings() {
    let p = r#"string g; BEGIN {
        g = "global"; self->t = execname; this->l = "local"; a[1] = "one"; a[2] = g; b["k", 1] = "tuple";
        printf("%s|%s|%s|%s|%s|%s|%s|", g, self->t, this->l, a[1], a[2], b["k", 1], a[3]);
        g = "changed"; a[1] = ""; printf("%s|%s|%d\n", g, a[1], a[1] == "");
        exit(0);
    }"#;
    assert_eq!(printed(p), "global|crumbs|local|one|global|tuple||changed||1\n");
}

#[test]
fn any_two_strings_compare_by_content_in_any_order() {
    let p = r#"BEGIN {
        s = "abc"; t = "abd"; u = "abc"; self->n = execname;
        printf("%d%d%d%d%d%d ", s == u, s != t, s < t, t > s, s <= u, s >= t);
        printf("%d%d%d ", self->n == execname, execname == self->n, "crumbs" == self->n);
        printf("%d%d%d ", "" < "a", "ab" < "abc", "b" > "abc");
        printf("%d%d", probefunc == "BEGIN", probename < s); /* BEGIN's function is "" */
        exit(0);
    }"#;
    assert_eq!(printed(p), "111110 111 111 01");
}

/// A clause may compare a string variable that only a later clause assigns (the first
/// check of the program learns its type); a missing element or thread-local is "".
#[test]
fn string_variables_read_before_the_clause_that_assigns_them() {
    let p = r#"END { printf("%d%d%d%d%d\n", g == "abcdefghijklmnopqrst", g > "abcdefgh", a[1] < "b", a[0] >= "q", self->t == "tt"); }
        BEGIN { g = "abcdefghijklmnopqrst"; a[0] = "q"; self->t = "tt"; exit(0); }"#;
    assert_eq!(printed(p), "11111\n");
}

#[test]
fn strings_in_both_branches_of_the_ternary() {
    let p = r#"BEGIN {
        x = 1; y = 0;
        a = x ? "yes" : "no"; b = y ? "yes" : execname; c = y ? probename : "lit";
        printf("%s %s %s %s\n", a, b, c, x > 0 ? strjoin(a, "!") : "never");
        exit(0);
    }"#;
    assert_eq!(printed(p), "yes crumbs lit yes!\n");
}

#[test]
fn assigning_a_string_is_a_value_too() {
    let p = r#"BEGIN { x = y = "both"; printf("%s %s %d\n", x, y, (z = "v") == "v"); exit(0); }"#;
    assert_eq!(printed(p), "both both 1\n");
}

#[test]
fn strlen_strjoin_toupper_tolower() {
    let p = r#"BEGIN {
        s = "hello";
        printf("%d %d %d [%s] [%s] [%s] [%s] [%s]\n", strlen(s), strlen(""), strlen(execname),
            strjoin(s, ", world"), strjoin("", ""), strjoin(strjoin("a", "b"), strjoin("c", execname)),
            toupper("MiXeD 12!"), tolower("MiXeD 12!"));
        exit(0);
    }"#;
    assert_eq!(printed(p), "5 0 6 [hello, world] [] [abccrumbs] [MIXED 12!] [mixed 12!]\n");
}

/// substr() as the Dynamic Tracing Guide describes it: a negative index counts from the
/// end, a negative length leaves bytes off the end, an index past the end gives "".
#[test]
fn substr_follows_dtrace() {
    let p = r#"BEGIN {
        s = "abcdef";
        printf("[%s][%s][%s][%s][%s][%s][%s][%s][%s]\n", substr(s, 2), substr(s, 2, 2), substr(s, -2),
            substr(s, -10, 6), substr(s, 10), substr(s, 1, -2), substr(s, 0, 0), substr(s, -3, -1), substr("", 0));
        exit(0);
    }"#;
    assert_eq!(printed(p), "[cdef][cd][ef][ab][][bcd][][de][]\n");
}

#[test]
fn basename_and_dirname_of_paths() {
    let p = r#"BEGIN {
        printf("[%s][%s][%s][%s][%s][%s][%s]\n", basename("/usr/lib/libc.so"), basename("/usr/lib/"), basename("/"),
            basename(""), basename("foo"), basename("//a//"), basename("a/b"));
        printf("[%s][%s][%s][%s][%s][%s][%s]\n", dirname("/usr/lib/libc.so"), dirname("/usr/lib/"), dirname("/"),
            dirname(""), dirname("foo"), dirname("//a//"), dirname("a//b"));
        exit(0);
    }"#;
    assert_eq!(printed(p), "[libc.so][lib][/][.][foo][a][b]\n[/usr/lib][/usr][/][.][.][/][a]\n");
}

/// strsize caps every string (its NUL included), by pragma or -x.
#[test]
fn strsize_is_honoured() {
    let p = "#pragma D option strsize=6\nBEGIN { s = \"abcdefgh\"; printf(\"[%s][%s][%d][%s]\\n\", s, strjoin(\"abc\", \"xyz\"), strlen(s), toupper(execname)); exit(0); }";
    assert_eq!(printed(p), "[abcde][abcxy][5][CRUMB]\n");
    let out = run(&["-q", "-x", "strsize=4", "-e", r#"BEGIN { printf("[%s]\n", toupper("abcdefgh")); exit(0); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "[ABC]\n\n");
    let out = run(&["-q", "-x", "strsize=1", "-e", "BEGIN { exit(0); }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("strsize=1 is out of range"), "{}", out.dump());
}

/// A path saved at open's entry is printed at its return, its parts split; the thread's
/// variable freed by assigning "".
#[test]
fn thread_local_strings_carry_a_path_from_entry_to_return() {
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::openat:entry /pid == $target/ { self->path = copyinstr(arg1); }
           syscall::openat:return /self->path != "" && basename(self->path) == "hostname"/ { printf("%s %s %d\n", dirname(self->path), basename(self->path), arg1 >= 0); }
           syscall::openat:return /self->path != ""/ { self->path = ""; }
           syscall::openat:return /self->path == ""/ { @freed = count(); }"#,
        "-c",
        "cat /etc/hostname /nonexistent/hostname",
    ]);
    // cat writes to the same stdout, between the two lines or not.
    let (etc, missing) = (out.stdout.find("/etc hostname 1\n"), out.stdout.find("/nonexistent hostname 0\n"));
    assert!(matches!((etc, missing), (Some(a), Some(b)) if a < b), "{}", out.dump());
}

/// probefunc of a syscall clause stored as a string reads the kernel's names table.
#[test]
fn a_system_call_name_kept_in_a_variable() {
    let out = run(&[
        "-q",
        "-e",
        r#"syscall:::entry /pid == $target/ { self->f = probefunc; }
           syscall:::return /pid == $target && self->f == "read" && probefunc == self->f/ { @[self->f] = count(); }"#,
        "-c",
        "dd if=/dev/zero of=/dev/null bs=1k count=5",
    ]);
    out.assert_ok();
    // dd reads its 5 blocks (and its locale files may read more): at least 5.
    let n = common::agg_value(&out.stdout, "read").unwrap_or_else(|| panic!("no read row\n{}", out.dump()));
    assert!(n >= 5, "{}", out.dump());
}

#[test]
fn string_errors() {
    assert_error("BEGIN { s = \"x\"; s++; }", "`++`/`--` of string variable `s`", "strjoin");
    assert_error("BEGIN { s = \"x\"; s += 1; }", "a compound assignment of string variable `s`", "");
    assert_error("BEGIN { s = \"x\"; s = 1; }", "`s` is `string`, but this is `int`", "first assignment");
    assert_error("BEGIN { trace(strlen(1)); }", "strlen() needs a string here, but this is an integer", "copyinstr");
    assert_error("BEGIN { trace(substr(\"a\")); }", "substr() takes 2 or 3 arguments, but 1 given", "substr(s, index [, length])");
    assert_error("BEGIN { trace(1 ? \"a\" : 2); }", "a branch of ?: whose other branch is an integer must be an integer", "");
}
