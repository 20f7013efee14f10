//! Unit tests of the builtins table's dialect column: each dialect's names, and only its.

use super::*;
use crate::compile;
use crate::dialect::Dialect;

fn compile_in(dialect: Dialect, src: &str) -> Result<Program, Diagnostic> {
    compile(src, &CheckOptions { dialect: Some(dialect), target: Some(42), destructive: true, ..Default::default() })
}

fn ok(dialect: Dialect, src: &str) -> Program {
    compile_in(dialect, src).unwrap_or_else(|d| panic!("{src}: {} ({:?})", d.message, d.hint))
}

fn err(dialect: Dialect, src: &str) -> (Diagnostic, String) {
    let d = compile_in(dialect, src).expect_err(src);
    let text = src[d.span.clone()].to_string();
    (d, text)
}

#[test]
fn bpftrace_spellings_are_builtins_of_bpftrace_only() {
    ok(Dialect::Bpftrace, "BEGIN { @[probe, kstack, ustack(perf, 3), ksym(0)] = count(); $p = cpid; $e = elapsed; $r = rand; $c = cgroup; signal(\"SIGUSR1\"); }");
    for name in ["probe", "cpid", "elapsed", "kstack", "cgroup"] {
        let (d, text) = err(Dialect::D, &format!("BEGIN {{ trace({name}); }}"));
        assert_eq!((d.message.as_str(), text.as_str()), (format!("unknown variable `{name}`").as_str(), name));
    }
    for call in ["kstack()", "ksym(0)", "signal(9)"] {
        let (d, _) = err(Dialect::D, &format!("BEGIN {{ trace({call}); }}"));
        assert!(d.message.starts_with("unknown function"), "{call}: {}", d.message);
    }
}

#[test]
fn ustack_takes_each_dialects_arguments() {
    ok(Dialect::D, "BEGIN { @[ustack(5, 10)] = count(); }");
    ok(Dialect::Bpftrace, "BEGIN { @[ustack(raw, 5)] = count(); }");
    let (d, text) = err(Dialect::Bpftrace, "BEGIN { @[ustack(5, 10)] = count(); }");
    assert_eq!(text, "ustack(5, 10)");
    assert_eq!(d.hint.as_deref(), Some("usage: ustack([mode,] [n])"));
}

#[test]
fn unknown_names_are_suggested_from_the_dialect() {
    let (d, _) = err(Dialect::Bpftrace, "BEGIN { kstak(); }");
    assert_eq!(d.hint.as_deref(), Some("did you mean `kstack()`?"));
    let (d, _) = err(Dialect::D, "BEGIN { kstak(); }");
    assert_eq!(d.hint.as_deref(), Some("did you mean `stack()`?"));
}

#[test]
fn bswap_and_strcontains_check_their_arguments() {
    let p = ok(Dialect::Bpftrace, "BEGIN { @a = bswap((uint16)1); @b = bswap((uint8)1); @c = strcontains(comm, \"x\"); }");
    assert_eq!(p.arrays.len(), 3);
    let (d, text) = err(Dialect::Bpftrace, "BEGIN { @a = bswap(comm); }");
    assert_eq!((d.message.as_str(), text.as_str()), ("the argument of bswap() must be an integer, but this is a string", "comm"));
    let (d, text) = err(Dialect::Bpftrace, "BEGIN { @a = strcontains(comm, 1); }");
    assert_eq!((d.message.as_str(), text.as_str()), ("strcontains() needs a string here, but this is an integer", "1"));
    let (d, _) = err(Dialect::Bpftrace, "BEGIN { @a = strcontains(comm); }");
    assert_eq!(d.hint.as_deref(), Some("usage: strcontains(haystack, needle)"));
}

#[test]
fn ntop_and_pton_check_their_arguments() {
    let p = ok(Dialect::Bpftrace, "BEGIN { @a[ntop(pton(\"::1\"))] = ntop(2, 0x0100007f); @b = ntop(pton(\"1.2.3.4\")) == \"1.2.3.4\"; @c = pton(\"::1\") != pton(\"::2\"); }");
    assert!(format!("{p:?}").contains("Ntop(Int)"));
    // comm and 3- or 15-character literals kept in variables and maps: their first bytes.
    let p = ok(Dialect::Bpftrace, "END { @a = ntop(@c); $l = \"abc\"; @b = ntop($l); } BEGIN { $c = comm; @c = $c; @d = ntop(2, $c); }");
    assert!(format!("{p:?}").contains("Ntop(Str(16))") && format!("{p:?}").contains("Ntop(Str(4))"));
    for (src, message, span, hint) in [
        ("BEGIN { @a = ntop(str(0)); }", "ntop() argument must be 4 or 16 bytes in size", "str(0)", "bpftrace 0.17 reads a 4- or 16-byte string's bytes"),
        ("BEGIN { @a = ntop(1, 2, 3); }", "ntop() takes 1 or 2 arguments, but 3 given", "ntop(1, 2, 3)", "usage: ntop([af,] addr)"),
        // A variable or map bpftrace 0.17 would give 64 or 8 bytes (comm and str(), two literals).
        ("BEGIN { $c = comm; $c = str(0); @a = ntop($c); }", "ntop() argument must be 4 or 16 bytes in size", "$c", "bpftrace 0.17 reads a 4- or 16-byte string's bytes"),
        ("BEGIN { @s = \"abc\"; @s = \"abcdefg\"; } END { @a = ntop(@s); }", "ntop() argument must be 4 or 16 bytes in size", "@s", "bpftrace 0.17 reads a 4- or 16-byte string's bytes"),
        ("BEGIN { @a = ntop(pton(comm)); }", "pton() takes a string literal", "comm", "write the address as text"),
        ("BEGIN { @a = ntop(pton(\"10.0.0\")); }", "pton() expects a valid IPv4/IPv6 address, got 10.0.0", "\"10.0.0\"", "an IPv4 address is dotted"),
        ("BEGIN { @a = ntop(pton(\"::ffff:1.2.3.4\")); }", "pton() expects a valid IPv4/IPv6 address, got ::ffff:1.2.3.4", "\"::ffff:1.2.3.4\"", "an IPv4 address is dotted"),
        ("BEGIN { @a = 1 == pton(\"::1\"); }", "pton()'s address is compared with an address in memory, but this is of type `int`", "1", "compare an array or struct"),
        ("BEGIN { @a = pton(\"::1\") < pton(\"::2\"); }", "addresses are compared with == and !=, not `<`", "pton(\"::1\")", "write addr == pton"),
        ("struct three { int a; int b; int c; } BEGIN { @a = ntop(*(struct three *)0); }", "an address is 4 or 16 bytes, but a `struct three` is 12", "*(struct three *)0", "pass a 4-byte (IPv4) or 16-byte (IPv6)"),
    ] {
        let (d, text) = err(Dialect::Bpftrace, src);
        assert!(d.message.starts_with(message), "{src}: {}", d.message);
        assert_eq!(text, span, "{src}");
        assert!(d.hint.as_deref().is_some_and(|h| h.starts_with(hint)), "{src}: {:?}", d.hint);
    }
    let (d, _) = err(Dialect::D, "BEGIN { trace(pton(\"::1\")); }");
    assert!(d.message.starts_with("unknown function"), "{}", d.message);
}

#[test]
fn macaddr_takes_six_bytes_or_an_address() {
    ok(Dialect::Bpftrace, "struct six { unsigned char b[6]; } BEGIN { @a[macaddr(0)] = 1; @b = macaddr(((struct six *)8)->b); @c = macaddr(*(struct six *)8); }");
    for (src, message, span) in [
        ("BEGIN { @a = macaddr(comm); }", "macaddr() argument must be 6 bytes in size, but this is a string", "comm"),
        ("BEGIN { @a = macaddr(\"abcdef\"); }", "macaddr() does not support literal string arguments", "\"abcdef\""),
        ("BEGIN { @a = macaddr(pton(\"1.2.3.4\")); }", "macaddr() argument must be 6 bytes in size, but a `uint8_t [4]` is 4", "pton(\"1.2.3.4\")"),
        ("struct five { unsigned char b[5]; } BEGIN { @a = macaddr(((struct five *)8)->b); }", "macaddr() argument must be 6 bytes in size, but a `unsigned char [5]` is 5", "((struct five *)8)->b"),
        ("BEGIN { @a = macaddr(); }", "macaddr() takes 1 argument, but 0 given", "macaddr()"),
    ] {
        let (d, text) = err(Dialect::Bpftrace, src);
        assert_eq!((d.message.as_str(), text.as_str()), (message, span), "{src}");
        assert!(d.hint.is_some(), "{src}");
    }
}

#[test]
fn strncmp_kptr_and_uptr_check_their_arguments() {
    ok(Dialect::Bpftrace, "BEGIN { $a = strncmp(comm, \"ba\", 2); $p = kptr(arg1); $s = str(uptr(arg0)); }");
    let (d, text) = err(Dialect::Bpftrace, "BEGIN { $a = strncmp(comm, \"ba\", -1); }");
    assert_eq!((d.message.as_str(), text.as_str()), ("strncmp() needs a constant length", "-1"));
    let (d, _) = err(Dialect::Bpftrace, "BEGIN { $a = strncmp(comm, 1, 2); }");
    assert!(d.message.contains("needs a string"), "{}", d.message);
    let (d, _) = err(Dialect::D, "BEGIN { trace(kptr(0)); }");
    assert!(d.message.starts_with("unknown function"), "{}", d.message);
}

#[test]
fn kretfunc_and_fexit_are_return_probes() {
    let with_kernel = |src: &str| compile(src, &CheckOptions { dialect: Some(Dialect::Bpftrace), facts: Some(std::rc::Rc::new(crate::facts::sample::SampleKernel)), ..Default::default() });
    let p = with_kernel("kretfunc:vfs_read { @[retval] = count(); } fexit:vfs_read { @n[args.count] = count(); }").unwrap_or_else(|d| panic!("{}", d.message));
    assert!(p.groups.iter().all(|g| matches!(g.attach, crate::providers::AttachPoint::FbtReturn(_))));
}

#[test]
fn buf_reads_an_address_or_an_array_and_prints_with_percent_r() {
    let p = ok(Dialect::Bpftrace, r#"struct s { unsigned char b[5]; } BEGIN { $n = 3; printf("%r %rx %rh\n", buf(8, 4), buf(((struct s *)8)->b), buf((struct s *)8, $n)); @k[buf(8, 1000)] = count(); @v = buf(8, 2); $b = buf(8, 2); print($b); }"#);
    let printf = p.records.iter().flat_map(|r| &r.items).find_map(|i| match i { Item::Printf { args, .. } => Some(args.clone()), _ => None }).unwrap();
    // A constant length sizes the buffer, an array's size too; a computed one takes strsize.
    assert_eq!(printf, [Repr::Buf(4), Repr::Buf(5), Repr::Buf(crate::ir::DEFAULT_STRSIZE)]);
    assert_eq!(p.aggregations[0].keys, [Repr::Buf(crate::ir::DEFAULT_STRSIZE)]);
    // A string's buffer: its bytes, sized by the length as any buffer.
    let p = ok(Dialect::Bpftrace, r#"BEGIN { $s = "hi"; $n = 1; printf("%r %r\n", buf($s, 6), buf(comm, $n)); }"#);
    let printf = p.records.iter().flat_map(|r| &r.items).find_map(|i| match i { Item::Printf { args, .. } => Some(args.clone()), _ => None }).unwrap();
    assert_eq!(printf, [Repr::Buf(6), Repr::Buf(crate::ir::DEFAULT_STRSIZE)]);
    for (src, message, span) in [
        ("BEGIN { printf(\"%r\", buf(0, -1)); }", "buf cannot use negative length (-1)", "-1"),
        ("BEGIN { printf(\"%r\", buf(1)); }", "buf() expects a length argument for non-array type `int`", "buf(1)"),
        ("BEGIN { printf(\"%r\", buf(comm)); }", "buf() expects a length argument for non-array type `string`", "buf(comm)"),
        ("BEGIN { printf(\"%r\", buf(\"ab\", -2)); }", "buf cannot use negative length (-2)", "-2"),
        ("BEGIN { printf(\"%r\", 5); }", "%r expects a buffer, but this is an integer", "5"),
        ("BEGIN { printf(\"%rh\", comm); }", "%rh expects a buffer, but this is a string", "comm"),
        ("BEGIN { printf(\"%s\", buf(0, 2)); }", "%s of a buffer", "buf(0, 2)"),
        ("BEGIN { $b = buf(0, 2); $b = buf(0, 3); }", "`$b` is `buffer[2]`, but this is `buffer[3]`", "buf(0, 3)"),
        ("BEGIN { if (buf(0, 2) == buf(0, 2)) {} }", "an operand of `==` must be an integer, but this is a buffer", "buf(0, 2)"),
        ("BEGIN { @a = buf(); }", "buf() takes 1 or 2 arguments, but 0 given", "buf()"),
    ] {
        let (d, text) = err(Dialect::Bpftrace, src);
        assert_eq!((d.message.as_str(), text.as_str()), (message, span), "{src}");
        assert!(d.hint.is_some(), "{src}");
    }
    let (d, _) = err(Dialect::D, "BEGIN { trace(buf(0, 2)); }");
    assert!(d.message.starts_with("unknown function"), "{}", d.message);
}

#[test]
fn a_map_is_an_aggregation_or_a_map_of_values_not_both() {
    for (src, at) in [
        ("BEGIN { @m[1] = 1; @m[2] = count(); }", "@m"),
        ("BEGIN { @m[2] = count(); } END { @m[1] = 3; }", "@m"),
        // A map of tuples is stored as maps `@m.0`, `@m.1`: still the map `@m`.
        ("BEGIN { @m[1] = (1, \"a\"); @m[2] = count(); }", "@m"),
    ] {
        let (d, text) = err(Dialect::Bpftrace, src);
        assert_eq!((d.message.as_str(), text.as_str()), ("`@m` is an aggregation and is given a value", at), "{src}");
        assert!(d.hint.is_some(), "{src}");
    }
    ok(Dialect::Bpftrace, "BEGIN { @m[1] = (1, 2); @m_n[1] = count(); @v = 1; @c = count(); }");
}

#[test]
fn messages_name_each_dialects_own_words() {
    let (d, _) = err(Dialect::Bpftrace, "BEGIN { printf(\"%d\\n\", zzzqqq); }");
    assert!(d.hint.as_deref().is_some_and(|h| h.contains("comm, pid") && h.contains("$name")), "{:?}", d.hint);
    let (d, _) = err(Dialect::D, "BEGIN { trace(zzzqqq); }");
    assert!(d.hint.as_deref().is_some_and(|h| h.contains("execname")), "{:?}", d.hint);
    let bpftrace = compile("BEGIN { system(\"ls\"); }", &CheckOptions { dialect: Some(Dialect::Bpftrace), ..Default::default() }).unwrap_err();
    assert_eq!(bpftrace.message, "system() is an unsafe function being used in safe mode");
    assert!(bpftrace.hint.as_deref().is_some_and(|h| h.contains("--unsafe")), "{:?}", bpftrace.hint);
}
