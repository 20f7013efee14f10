//! Declared variables and inline constants (spec §5.7). Live: each program runs in the
//! kernel.

mod common;

use common::{assert_compile_error as assert_error, printed};


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

#[test]
fn declaration_errors() {
    assert_error("int x; int x; BEGIN { exit(0); }", "`x` is declared twice", "declare each variable once");
    assert_error("struct task_struct t; BEGIN { exit(0); }", "a variable cannot be `struct task_struct` yet", "pointer");
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
