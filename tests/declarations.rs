//! Declared variables and inline constants (spec §5.7). Live: each program runs in the
//! kernel.

mod common;

use common::{assert_compile_error as assert_error, printed, run};


#[test]
fn declarations_fix_the_types_of_globals_thread_locals_clause_locals_and_arrays() {
    let p = r#"int x; self short s; this char c; unsigned int a[int, long]; struct task_struct *t;
        BEGIN {
            x = 0x1ffffffff; self->s = 70000; this->c = 300; a[1, 2] = -1; t = curthread;
            printf("%d %d %d %d %d %d|", x, self->s, this->c, a[1, 2], t->pid == pid, sizeof(x) + sizeof(self->s) + sizeof(this->c));
        }
        END { printf("%d %d %d\n", this->c, x, never); }
        BEGIN { exit(0); }
        int never;"#;
    assert_eq!(printed(p), "-1 4464 44 4294967295 1 7|0 -1 0\n");
}

#[test]
fn inlines_are_typed_constants_and_expressions() {
    let p = r#"inline int MAX = 3; inline string WHO = "crumbs"; inline long TWICE = MAX * 2; inline unsigned char BYTE = 257;
        inline int IS_ME = pid == $pid;
        BEGIN { printf("%d %d %s %d %d %d %d\n", MAX, TWICE, WHO, sizeof(TWICE), BYTE, IS_ME, MAX > 2 ? 10 : 20); exit(0); }"#;
    assert_eq!(printed(p), "3 6 crumbs 8 1 1 10\n");
}

/// A `string` inline of a kernel char array is read as stringof() reads it (this was an
/// internal error: the array was taken for an interned string). BEGIN runs in crumbs, whose
/// parent is this test's thread (each test runs in a thread named after it).
#[test]
fn a_string_inline_of_a_kernel_char_array() {
    let p = r#"inline string ME = curthread->comm; inline string PARENT = curthread->real_parent->comm;
        BEGIN { printf("%s|%s|%s\n", ME, PARENT, ME == "crumbs" ? "same" : "other"); exit(0); }"#;
    let parent = std::fs::read_to_string("/proc/thread-self/comm").unwrap();
    assert_eq!(printed(p), format!("crumbs|{}|same\n", parent.trim_end()));
    assert_error("inline string A = 1; BEGIN { trace(A); }", "a `string` inline needs a string", "");
}

#[test]
fn declaration_errors() {
    assert_error("int x; int x; BEGIN { exit(0); }", "`x` is declared twice", "declare each variable once");
    assert_error("struct big { char x[20000]; }; struct big t; BEGIN { exit(0); }", "`struct big` is 20000 bytes, too large for a variable or a key", "store a pointer");
    assert_error("int pid; BEGIN { exit(0); }", "cannot declare builtin variable `pid`", "");
    assert_error("this int a[int]; BEGIN { exit(0); }", "a clause-local variable cannot be an associative array", "");
    assert_error("inline int A = B; inline int B = A; BEGIN { trace(A); }", "inline `A` is defined by itself", "");
    assert_error("inline int A = \"x\"; BEGIN { trace(A); }", "inline of type `int` needs an integer", "inline string");
    assert_error("inline int A = 1; inline int A = 2; BEGIN { exit(0); }", "`A` is already defined", "");
    assert_error("long x; BEGIN { x = execname; }", "`x` is `long`, but this is `string`", "first assignment");
    // Found by the fuzzer: these panicked (the variables they assign were never declared).
    assert_error("inline int A = a[i++] = 1; BEGIN { trace(A); }", "a declaration cannot assign a variable", "assign variables in clauses");
    assert_error("enum e { A = (x = 1) }; BEGIN { trace(A); }", "a declaration cannot assign a variable", "");
}

/// Scalar arrays (spec §5.7): `int a[4];` holds four integers from the start, indexed from
/// 0; assigning 0 keeps the element; an index past the end faults when the probe fires or
/// is a compile error when it is a constant.
#[test]
fn scalar_arrays_hold_n_integers() {
    let out = run(&["-q", "-e", r#"int a[4]; long big[1000];
        BEGIN { a[1] = 2; a[3] = a[1] + 5; a[2]++; a[0] = 0; printf("%d %d %d %d|", a[0], a[1], a[2], a[3]); i = 3; a[i] += 10; big[999] = -1; printf("%d %d %d\n", a[i], big[999], big[0]); }
        BEGIN { a[i + 1] = 1; } BEGIN { trace(a[i - 4]); }
        ERROR { printf("%d %d %d\n", arg1, arg4 == DTRACEFLT_BADINDEX, arg5); }
        BEGIN { exit(0); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "0 2 1 7|17 -1 0\n2 1 4\n3 1 -1\n\n", "{}", out.dump());
}

#[test]
fn scalar_array_errors() {
    assert_error("int a[4]; BEGIN { a[4] = 1; }", "index outside array bounds: 4, max is 4", "indexed 0 to 3");
    assert_error("int a[4]; BEGIN { a[1, 2] = 1; }", "`a` is a scalar array: it takes one index", "a[i]");
    assert_error("self int a[4]; BEGIN { }", "a scalar array is global", "without `self`");
    assert_error("string s[4]; BEGIN { }", "a scalar array holds integers or pointers", "string s[int]");
    assert_error("int a[4]; int a; BEGIN { }", "`a` is declared twice", "declare each variable once");
    assert_error("int a[0]; BEGIN { }", "bad array length 0", "positive");
}

/// The Dynamic Tracing Guide's clause.d (spec §5.4): a declared `this->foo` keeps its value
/// across the three clauses of one firing of the same probe; each firing starts afresh.
#[test]
fn clause_locals_are_shared_by_the_clauses_of_a_firing() {
    let clause = |n: u32, base: u32| format!(
        "tick-100ms {{ this->foo = (me % 3 == 0) ? {base} : this->foo; printf(\"Clause {n} is number %d; foo is %d\\n\", me++ % 3, this->foo++); }}\n"
    );
    let program = format!("int me; this int foo;\n{}{}{}tick-100ms /me == 6/ {{ exit(0); }}", clause(1, 10), clause(2, 20), clause(3, 30));
    let out = run(&["-q", "-e", &program]);
    out.assert_ok();
    let once = "Clause 1 is number 0; foo is 10\nClause 2 is number 1; foo is 11\nClause 3 is number 2; foo is 12\n";
    assert_eq!(out.stdout, format!("{once}{once}\n"), "{}", out.dump());
    // Another probe's clause (BEGIN's) starts at 0; a this-> string is shared too.
    assert_eq!(printed(r#"this int n; this string s; BEGIN { this->n = 5; this->s = "kept"; } BEGIN { printf("%d %s\n", this->n, this->s); } END { printf("%d [%s]\n", this->n, this->s); } BEGIN { exit(0); }"#), "5 kept\n0 []\n");
}

/// Several names in one declaration, as in C: each its own variable, the `*`s after the
/// first name's each name's own; a struct defined with variables of it.
#[test]
fn several_names_in_one_declaration() {
    let p = r#"int a, b; int *p, q; self int s1, s2; this string t1, t2; int arr[4], brr[int];
        struct T { int x; long y; } v, w;
        BEGIN { a = 1; b = 2; q = 3; self->s1 = 4; self->s2 = 5; this->t1 = "x"; this->t2 = "y"; arr[1] = 6; brr[7] = 8; v.x = 9; w.y = 10;
            printf("%d %d %d %d %d %s %s %d %d %d %d %d %d %d\n", a, b, q, self->s1, self->s2, this->t1, this->t2, arr[1], brr[7], sizeof(p), sizeof(q), v.x, w.y, sizeof(w));
            exit(0); }"#;
    assert_eq!(printed(p), "1 2 3 4 5 x y 6 8 8 4 9 10 16\n");
    assert_error("int a, a; BEGIN { exit(0); }", "`a` is declared twice", "");
}
