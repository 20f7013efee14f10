//! D's integer semantics by C type (spec §4.9): a variable takes the type of its first
//! assignment and every store keeps it at that width; literals have C's types; unsigned
//! types divide, shift, compare and print as unsigned; `trace()` and aggregation keys print
//! in DTrace's column for their type's size. Live: each program runs in the kernel.

mod common;

use common::{assert_compile_error as assert_error, int32_col, int_col, printed, run};

#[test]
fn a_variable_keeps_the_type_of_its_first_assignment() {
    // `i = 0` declares an int: a later 64-bit value is cut to 32 bits, sign-extended.
    assert_eq!(printed("BEGIN { i = 0; i = 0x1ffffffff; j = 0x1ffffffff; printf(\"%d %d %d\\n\", i, j, sizeof(i)); exit(0); }"), "-1 8589934591 4\n");
    // The same for self-> and this->, and for ++ and op= (computed in 64 bits, then stored).
    assert_eq!(printed("BEGIN { self->s = (short)0; self->s += 40000; this->c = (unsigned char)0; this->c--; printf(\"%d %d\\n\", self->s, this->c); exit(0); }"), "-25536 255\n");
    // A global read in an earlier clause than the one assigning it has its type there too.
    assert_eq!(printed("END { printf(\"%d %d\\n\", n, sizeof(n)); } BEGIN { n = (short)-3; exit(0); }"), "-3 2\n");
}

#[test]
fn integer_literals_have_c_types() {
    // int, long (too big for int), unsigned long (suffix), hex that fits unsigned int.
    assert_eq!(printed("BEGIN { printf(\"%d %d %d %d %d\\n\", sizeof(1), sizeof(3000000000), sizeof(1ul), sizeof(0xffffffff), sizeof('a')); exit(0); }"), "4 8 8 4 1\n");
    assert_eq!(printed("BEGIN { printf(\"%d %d %d\\n\", -1ul, 0xffffffff, -1u); exit(0); }"), "18446744073709551615 4294967295 4294967295\n");
}

#[test]
fn unsigned_types_divide_shift_and_compare_as_unsigned() {
    let p = "BEGIN { printf(\"%d %d %d %d|%d %d %d %d\\n\", -1ul > 0, -1ul / 2 == 0x7fffffffffffffff, -1ul >> 63, -7ul % 3, \
             -1 > 0, -7 / 2, -7 >> 1, -7 % 3); exit(0); }";
    // 18446744073709551609 % 3 is 0.
    assert_eq!(printed(p), "1 1 1 0|0 -3 -4 -1\n");
    // Mixed: an int operand converts to the unsigned long; uid_t is unsigned.
    assert_eq!(printed("BEGIN { printf(\"%d %d\\n\", -1 < 1ul, (uid < -1) == 1); exit(0); }"), "0 1\n");
}

#[test]
fn trace_prints_in_the_column_of_its_type() {
    // Not quiet: " %16" for 8 bytes, " %8" for 4, " %5" for 2, " %3" for 1 (dt_consume.c);
    // unsigned types print unsigned.
    let out = run(&["-e", "BEGIN { trace(1L); trace(1); trace((short)-2); trace((char)65); trace(-1ul); trace((unsigned int)-1); exit(0); }"]);
    out.assert_ok();
    let line = out.stdout.lines().nth(1).unwrap_or_else(|| panic!("{}", out.dump()));
    let after = line.split_once(":BEGIN ").unwrap().1;
    let want = format!("{}{}{:>6}{:>4}{}{}", int_col(1), int32_col(1), -2, 65, " 18446744073709551615", int32_col(4294967295));
    assert_eq!(after, want, "{}", out.dump());
    // An int computed past its range is recorded at its type, as DTrace records it.
    assert_eq!(printed("BEGIN { trace(0x7fffffff + 1); exit(0); }"), "-2147483648");
    // Quiet: the bare number.
    assert_eq!(printed("BEGIN { trace(-1ul); trace(\" \"); trace((char)-1); exit(0); }"), "18446744073709551615 -1");
}

#[test]
fn aggregation_keys_print_in_the_column_of_their_type() {
    let cases = [
        ("1", format!("{}{}", int32_col(1), int_col(1))),
        ("1L", format!("{}{}", int_col(1), int_col(1))),
        ("(short)-1", format!(" {:>5}{}", -1, int_col(1))),
        ("(unsigned char)200", format!(" {:>3}{}", 200, int_col(1))),
        ("-1ul", format!(" {:>16}{}", u64::MAX, int_col(1))),
    ];
    for (key, row) in cases {
        assert_eq!(printed(&format!("BEGIN {{ @[{key}] = count(); exit(0); }}")), format!("\n{row}"), "key {key}");
    }
    // Keys of one position with different types are stored as the first was.
    assert_eq!(printed("BEGIN { @[1] = count(); @[2L] = count(); exit(0); }"), format!("\n{}{}\n{}{}", int32_col(1), int_col(1), int32_col(2), int_col(1)));
}

#[test]
fn printf_conversions_follow_the_argument_type() {
    // %d of an unsigned type is unsigned; %u/%x take the type's own bytes; %p is %x.
    assert_eq!(printed("BEGIN { printf(\"%d %u %x %x %p %c\\n\", (unsigned int)-1, (short)-1, (char)-1, -1L, 0xffff0000, (char)66); exit(0); }"), "4294967295 65535 ff ffffffffffffffff ffff0000 B\n");
}

#[test]
fn variables_hold_kernel_pointers() {
    // A pointer in this-> or self-> keeps its type: -> reads through it, char * is a string.
    let out = printed("BEGIN { this->t = curthread; self->p = this->t->real_parent; this->c = this->t->comm; \
                       printf(\"%d %d %s %d\\n\", this->t->pid == pid, self->p->tgid == ppid, stringof(this->c), this->c == curthread->comm); exit(0); }");
    assert!(out.starts_with("1 1 crumbs "), "{out:?}");
    assert!(out.ends_with(" 1\n"), "{out:?}");
    // Pointer arithmetic on a variable scales; two pointers subtract to a count.
    assert_eq!(printed("BEGIN { this->p = (int *)arg0; this->q = this->p + 3; printf(\"%d %d\\n\", (long)this->q - (long)this->p, this->q - this->p); exit(0); }"), "12 3\n");
}

#[test]
fn diagnostics() {
    assert_error("BEGIN { x = 1; x = execname; }", "`x` is `int`, but this is `string`", "first assignment");
    assert_error("BEGIN { x = curthread; y = curthread + curthread; }", "cannot add two pointers", "subtract two pointers");
    assert_error("BEGIN { trace((int)execname); }", "cannot cast a string", "casts convert integers and pointers");
}
