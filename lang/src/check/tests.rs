//! Unit tests of the checker.

use super::*;
use crate::compile;

fn ok(src: &str) -> Program {
    compile(src, &CheckOptions { target: Some(42), args: vec!["t.d".into(), "7".into(), "word".into()], ..Default::default() }).unwrap_or_else(|d| panic!("{src}: {} ({:?})", d.message, d.hint))
}

/// The error for `src`, and the source text its span covers.
fn err(src: &str) -> (Diagnostic, String) {
    let d = compile(src, &CheckOptions::default()).expect_err(src);
    let text = src[d.span.clone()].to_string();
    (d, text)
}

#[test]
fn clauses_group_by_attach_point_in_program_order() {
    let p = ok("syscall::read:entry { x = 1; } BEGIN { x = 2; } syscall::write:entry, syscall::read:return { x = 3; } syscall:::entry { x = 4; }");
    let attach: Vec<_> = p.groups.iter().map(|g| g.attach).collect();
    assert_eq!(attach, [AttachPoint::Begin, AttachPoint::SyscallEntry, AttachPoint::SyscallReturn]);
    let entry = p.group(AttachPoint::SyscallEntry).unwrap();
    assert_eq!(entry.clauses.iter().map(|c| c.index).collect::<Vec<_>>(), [0, 2, 3]);
    assert_eq!(entry.clauses[0].filter, Filter::Syscalls(vec![0]));
    assert_eq!(entry.clauses[1].filter, Filter::Syscalls(vec![1]));
    assert_eq!(entry.clauses[2].filter, Filter::All);
}

#[test]
fn globals_are_declared_by_assignment_anywhere() {
    // The L41 script reads in_benchmark before the clause that assigns it.
    let p = ok("syscall::read:entry /!flag/ { @ = count(); } BEGIN { flag = 1; }");
    assert_eq!(p.globals.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(), ["flag"]);
    let (d, text) = err("BEGIN { trace(flga); } END { flag = 1; }");
    assert_eq!(text, "flga");
    assert!(d.hint.unwrap().contains("`flag`"));
}

#[test]
fn builtins_and_aliases_resolve() {
    let p = ok("BEGIN { @[comm, execname, probefunc] = count(); trace(nsecs); trace($target); }");
    assert_eq!(p.aggregations[0].keys, [Repr::Str(16), Repr::Str(16), Repr::StrId]);
    let (d, text) = err("BEGIN { trace(execnme); }");
    assert_eq!(text, "execnme");
    assert!(d.hint.unwrap().contains("execname"));
}

#[test]
fn string_comparisons_are_typed() {
    let p = ok("syscall:::entry /execname == \"cat\" && probefunc != \"read\"/ { @ = count(); }");
    let c = &p.groups[0].clauses[0];
    assert!(matches!(c.predicate, Some(Expr::Binary(BinOp::LogAnd, ..))));
    let (d, text) = err("BEGIN { trace(execname + 1); }");
    assert_eq!(text, "execname");
    assert!(d.message.contains("integers"));
    // Any two strings compare, in any order.
    let p = ok("syscall:::entry /probefunc < \"x\" && execname != copyinstr(arg0)/ { s = execname; @[s > probefunc] = count(); }");
    assert!(matches!(p.groups[0].clauses[0].predicate, Some(Expr::Binary(BinOp::LogAnd, ..))));
}

#[test]
fn aggregations_keep_one_function_and_key_shape() {
    let (d, text) = err("BEGIN { @a = count(); } END { @a = sum(1); }");
    assert_eq!(text, "sum");
    assert!(d.message.contains("already count()"), "{}", d.message);
    let (d, _) = err("BEGIN { @a[1] = count(); @a[1, 2] = count(); }");
    assert!(d.message.contains("key"));
    let (d, _) = err("BEGIN { @a[1] = count(); @a[execname] = count(); }");
    assert!(d.message.contains("another type"));
    let (d, text) = err("BEGIN { @a = lquantize(1, 0, x, 1); } BEGIN { x = 1; }");
    assert_eq!(text, "x");
    assert!(d.message.contains("constant"));
    let (d, _) = err("BEGIN { @a = lquantize(1, 10, 0, 1); }");
    assert!(d.message.contains("lquantize"));
}

#[test]
fn llquantize_arguments_are_checked_where_written() {
    let p = ok("BEGIN { @a = llquantize(1, 10, 0, 6, 20); @a = llquantize(2, 10, 0, 6, 20); }");
    assert_eq!(format!("{:?}", p.aggregations[0].kind), "Llquantize { factor: 10, low: 0, high: 6, steps: 20 }");
    assert_eq!(p.aggregations[0].kind.words(), 1 + 9 + 6 * 18 + 1);
    let (d, text) = err("BEGIN { @a = llquantize(1, 1, 0, 6, 20); }");
    assert_eq!(text, "1");
    assert!(d.message.contains("factor (argument #1) must be two or more"), "{}", d.message);
    let (d, text) = err("BEGIN { @a = llquantize(1, 10, 0, 6, 15); }");
    assert_eq!(text, "15");
    assert!(d.message.contains("evenly divide"), "{}", d.message);
    let (d, text) = err("BEGIN { @a = llquantize(1, 10, 6, 6, 10); }");
    assert_eq!(text, "6");
    assert!(d.message.contains("greater than low magnitude"), "{}", d.message);
    let (d, text) = err("BEGIN { @a = llquantize(1, 10, 0, 6, x); } BEGIN { x = 1; }");
    assert_eq!(text, "x");
    assert!(d.message.contains("constant"));
    // Another aggregation's parameters are another function.
    let (d, _) = err("BEGIN { @a = llquantize(1, 10, 0, 6, 20); @a = llquantize(1, 10, 0, 6, 10); }");
    assert!(d.message.contains("already llquantize()"), "{}", d.message);
    let (d, _) = err("BEGIN { @a = llquantize(1, 10, 0, 6); }");
    assert!(d.message.contains("takes 5 arguments"), "{}", d.message);
}

#[test]
fn arity_and_argument_types() {
    let (d, text) = err("BEGIN { @ = sum(); }");
    assert_eq!(text, "@ = sum()");
    assert!(d.message.contains("takes 1 argument, but 0 given"), "{}", d.message);
    let (d, text) = err("BEGIN { printf(\"%d\\n\", execname); }");
    assert_eq!(text, "execname");
    assert!(d.message.contains("%d expects an integer"));
    let (d, _) = err("BEGIN { printf(\"%d %s\\n\", 1); }");
    assert!(d.message.contains("2 conversion(s) but 1 argument(s)"));
    let (d, text) = err("BEGIN { printf(\"%q\", 1); }");
    assert_eq!(text, "%q");
    let _ = d;
    let (d, _) = err("BEGIN { count(); }");
    assert!(d.message.contains("aggregating function"));
    let (d, text) = err("BEGIN { prntf(\"x\"); }");
    assert_eq!(text, "prntf");
    assert!(d.hint.unwrap().contains("printf"));
    let (d, _) = err("BEGIN { x = count(); }");
    assert!(d.message.contains("no value"));
}

#[test]
fn records_hold_output_items_in_order() {
    let p = ok("BEGIN { printf(\"%s %d\\n\", execname, pid); x = 1; trace(\"s\"); exit(2); } END");
    assert_eq!(p.records.len(), 2);
    let items = &p.records[0].items;
    assert!(matches!(&items[0], Item::Printf { args, .. } if args == &[Repr::Str(16), Repr::Int(IntRepr::I32)]));
    assert_eq!(items[1], Item::Trace(Repr::StrId));
    assert_eq!(items[2], Item::Exit);
    // END without a block: the default action, an empty record.
    assert!(p.records[1].items.is_empty());
    // A block with only assignments prints nothing.
    assert_eq!(ok("BEGIN { x = 1; }").records.len(), 0);
}

#[test]
fn locals() {
    let p = ok("syscall::read:entry { self->ts = timestamp; } syscall::read:return /self->ts/ { this->d = timestamp - self->ts; @ = quantize(this->d); self->ts = 0; }");
    assert_eq!(p.thread_locals.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(), ["ts"]);
    assert_eq!(p.group(AttachPoint::SyscallReturn).unwrap().clauses[0].locals.len(), 1);
    let (d, text) = err("BEGIN { trace(this->x); }");
    assert_eq!(text, "this->x");
    assert!(d.message.contains("before it is assigned"));
    let (d, _) = err("BEGIN { trace(self->never); }");
    assert!(d.message.contains("never assigned"));
}

#[test]
fn options_and_macros() {
    assert!(ok("#pragma D option quiet\nBEGIN {}").options.quiet);
    assert_eq!(ok("#pragma D option bufsize=2m\nBEGIN {}").options.bufsize, Some(2 << 20));
    assert_eq!(ok("#pragma D option aggsize=16k\nBEGIN {}").options.aggsize, Some(16 << 10));
    assert_eq!(ok("#pragma D option dynvarsize=128\nBEGIN {}").options.dynvarsize, Some(128));
    let (d, _) = err("#pragma D option aggsize=2g\nBEGIN {}");
    assert!(d.message.contains("out of range"), "{}", d.message);
    let (d, _) = err("#pragma D option dynvarsize\nBEGIN {}");
    assert!(d.message.contains("needs a size"), "{}", d.message);
    let (d, _) = err("#pragma D option aggsize=99999999999999g\nBEGIN {}");
    assert!(d.message.contains("out of range"), "{}", d.message);
    let (d, _) = err("#pragma D option quite\nBEGIN {}");
    assert!(d.hint.unwrap().contains("quiet"));
    let (d, text) = err("BEGIN { trace($target); }");
    assert_eq!(text, "$target");
    assert!(d.hint.unwrap().contains("-c"));
    assert!(matches!(&ok("BEGIN { trace($target); }").groups[0].clauses[0].body[0], Stmt::Emit { args, .. } if args == &[Expr::Int(42)]));
}

#[test]
fn fbtmode_names_an_attach_mode() {
    let o = |text: &str| ok(&format!("#pragma D option {text}\nBEGIN {{}}")).options.fbtmode;
    assert_eq!(o("fbtmode=kprobe"), Some(crate::ir::FbtMode::Kprobe));
    assert_eq!(o("fbtmode=multi"), Some(crate::ir::FbtMode::Multi));
    assert_eq!(o("fbtmode=kprobe.multi"), Some(crate::ir::FbtMode::Multi));
    assert_eq!(o("fbtmode=fentry"), Some(crate::ir::FbtMode::Fentry));
    assert_eq!(ok("BEGIN {}").options.fbtmode, None);
    let (d, _) = err("#pragma D option fbtmode=fexit\nBEGIN {}");
    assert!(d.message.contains("`kprobe`, `multi` or `fentry`, got `fexit`"), "{}", d.message);
}

#[test]
fn sort_position_options() {
    let o = |text: &str| ok(&format!("#pragma D option {text}\nBEGIN {{}}")).options;
    assert_eq!(o("aggsortpos=2").aggsortpos, 2);
    assert_eq!(o("aggsortpos").aggsortpos, 0);
    assert_eq!(o("aggsortpos=0x10").aggsortpos, 16);
    assert_eq!(o("aggsortpos=010").aggsortpos, 8);
    assert_eq!(o("aggsortkeypos=YES").aggsortkeypos, 1);
    assert_eq!(o("aggsortkeypos=off").aggsortkeypos, 0);
    assert!(o("aggpack").aggpack);
    assert!(!o("aggpack=0").aggpack);
    let (d, _) = err("#pragma D option aggsortpos=-1\nBEGIN {}");
    assert!(d.message.contains("needs a position"), "{}", d.message);
    let (d, _) = err("#pragma D option aggsortkeypos=first\nBEGIN {}");
    assert!(d.message.contains("needs a position, got `first`"), "{}", d.message);
}

#[test]
fn printa_joins_aggregations_with_the_same_keys() {
    let p = ok(r#"BEGIN { @a[1, "x"] = count(); @b[(long)2, probefunc] = sum(1); @c[3, execname] = avg(1); printa(@a, @b, @c); printa("%d %s %@d %@d\n", @c, @a); }"#);
    let items = &p.records[0].items;
    assert_eq!(items[0], Item::Printa { aggs: vec![0, 1, 2], format: None });
    assert!(matches!(&items[1], Item::Printa { aggs, format: Some(_) } if aggs == &[2, 0]));
    let (d, text) = err(r#"BEGIN { @a[1] = count(); @b["k"] = count(); printa(@a, @b); }"#);
    assert_eq!(text, "@b");
    assert_eq!(d.message, "key 1 of `@b` is a string, but key 1 of `@a` is an integer");
    assert_eq!(d.related.map(|r| r.1), Some("key 1 is an integer here".to_string()));
    let (d, text) = err(r#"BEGIN { @a[1] = count(); @b = count(); printa("%d %@d\n", @a, @b); }"#);
    assert_eq!(text, "@b");
    assert!(d.message.contains("`@b` has 0 keys and `@a` has 1 key"), "{}", d.message);
    let (d, text) = err(r#"BEGIN { printa("%@d\n"); }"#);
    assert_eq!(text, r#"printa("%@d\n")"#);
    assert_eq!(d.message, "printa() needs an aggregation");
    let (d, _) = err("BEGIN { printa(); }");
    assert_eq!(d.message, "printa() needs an aggregation");
    let (d, text) = err("BEGIN { @a = count(); printa(@a, 1); }");
    assert_eq!(text, "1");
    assert!(d.message.contains("takes an aggregation"), "{}", d.message);
    // The format's keys are checked against the first aggregation's.
    let (d, _) = err(r#"BEGIN { @a[1] = count(); @b[2] = count(); printa("%s %@d\n", @b, @a); }"#);
    assert!(d.message.contains("key 1 of `@b`"), "{}", d.message);
    let (d, _) = err(r#"BEGIN { @a = count(); printa("%@s\n", @a, @a); }"#);
    assert!(d.message.contains("%@s"), "{}", d.message);
}

#[test]
fn macro_arguments() {
    let body = |src: &str| ok(src).groups[0].clauses[0].body.clone();
    assert!(matches!(&body("BEGIN { trace($1); }")[0], Stmt::Emit { args, .. } if args == &[Expr::Int(7)]));
    assert!(matches!(&body("BEGIN { trace($$1); }")[0], Stmt::Emit { args, .. } if matches!(args[0], Expr::Str(_))));
    assert!(matches!(&body("BEGIN { trace($2); }")[0], Stmt::Emit { args, .. } if matches!(args[0], Expr::Str(_))));
    assert!(matches!(&body("BEGIN { trace($0); }")[0], Stmt::Emit { args, .. } if matches!(args[0], Expr::Str(_))));
    let (d, text) = err("BEGIN { trace($3); }");
    assert_eq!(text, "$3");
    assert!(d.message.contains("not given"));
    assert_eq!(crate::parse::integer_literal("-0x10"), Some(-16));
    assert_eq!(crate::parse::integer_literal("12abc"), None);
}

#[test]
fn probe_errors() {
    let (d, text) = err("sycall:::entry {}");
    assert_eq!(text, "sycall:::entry");
    assert!(d.message.contains("unknown provider"));
    let (d, _) = err("syscall::nosuchcall:entry {}");
    assert!(d.message.contains("does not match any probes"));
}

/// Fixed facts that count how often the tracepoints are listed.
#[derive(Debug, Default)]
struct CountingFacts(std::cell::Cell<usize>);

impl KernelFacts for CountingFacts {
    fn tracepoints(&self) -> crate::facts::Listing {
        self.0.set(self.0.get() + 1);
        Ok(["sched_switch", "sched_wakeup"].iter().map(|e| ("sched".to_string(), e.to_string())).collect::<Vec<_>>().into())
    }
    fn tracepoint_format(&self, _: &str, _: &str) -> Result<String, String> {
        Ok("format:\n\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n".to_string())
    }
}

/// Issue 6, finding 8: tracefs is listed once per program, not once per clause.
#[test]
fn tracepoints_are_listed_once_per_program() {
    let facts = std::rc::Rc::new(CountingFacts::default());
    let src: String = (0..200).map(|i| format!("tracepoint:sched:sched_switch, tracepoint:sched:sched_w* {{ @[{i}] = count(); }}\n")).collect();
    let p = compile(&src, &CheckOptions { facts: Some(facts.clone()), ..Default::default() }).unwrap();
    assert_eq!(facts.0.get(), 1);
    assert_eq!(p.tracepoints.len(), 2);
    assert_eq!(p.matched_probes, 400);
}

/// The statements of the only clause of `src`.
fn body(src: &str) -> Vec<Stmt> {
    ok(src).groups[0].clauses[0].body.clone()
}

#[test]
fn stores_convert_to_the_variable_type() {
    // `i = 0` makes an int: the constant is folded to 32 bits, a computed value is cut.
    let b = body("BEGIN { i = 0; i = 0x1ffffffff; i = i + timestamp; j = 0x1ffffffff; }");
    assert_eq!(b[1], Stmt::SetGlobal(0, Expr::Int(-1)));
    assert!(matches!(&b[2], Stmt::SetGlobal(0, Expr::Bits { shift: 0, width: 32, signed: true, .. })), "{:?}", b[2]);
    assert_eq!(b[3], Stmt::SetGlobal(1, Expr::Int(0x1ffffffff)));
    // A value already in the type's range is stored as it is.
    let b = body("BEGIN { s = (short)1; t = s; u = (unsigned char)2; s = u; }");
    assert!(matches!(&b[1], Stmt::SetGlobal(1, Expr::Global(0))), "{:?}", b[1]);
    assert!(matches!(&b[3], Stmt::SetGlobal(0, Expr::Global(2))), "{:?}", b[3]);
}

#[test]
fn unsigned_operands_use_unsigned_operations() {
    let b = body("BEGIN { a = timestamp / 3; b = arg0 / 3; c = -1ul > 0; d = uid >> 1; e = (int)arg0 >> 1; }");
    // The operation, under the conversion to the variable's type if there is one.
    let value = |s: &Stmt| match s {
        Stmt::SetGlobal(_, Expr::Bits { inner, .. }) => (**inner).clone(),
        Stmt::SetGlobal(_, e) => e.clone(),
        s => panic!("{s:?}"),
    };
    assert!(matches!(value(&b[0]), Expr::Unsigned(BinOp::Div, ..)));
    assert!(matches!(value(&b[1]), Expr::Binary(BinOp::Div, ..)));
    assert!(matches!(value(&b[2]), Expr::Unsigned(BinOp::Gt, ..)));
    assert!(matches!(value(&b[3]), Expr::Unsigned(BinOp::Shr, ..)));
    assert!(matches!(value(&b[4]), Expr::Binary(BinOp::Shr, ..)));
}

#[test]
fn records_and_keys_carry_int_types() {
    let p = ok("BEGIN { trace(1); trace(1L); trace(-1ul); trace((char)1); @[pid, timestamp, (short)1] = count(); }");
    let items = &p.records[0].items;
    let i = |size, signed| Repr::Int(IntRepr { size, signed });
    assert_eq!(items[..4], [Item::Trace(i(4, true)), Item::Trace(i(8, true)), Item::Trace(i(8, false)), Item::Trace(i(1, true))]);
    assert_eq!(p.aggregations[0].keys, [i(4, true), i(8, false), i(2, true)]);
}

/// Fixed facts with two system calls' prototypes (as their sys_enter formats give them).
#[derive(Debug)]
struct SyscallFacts;

impl KernelFacts for SyscallFacts {
    fn tracepoints(&self) -> crate::facts::Listing {
        Ok(vec![("syscalls".to_string(), "sys_enter_openat".to_string()), ("dma".to_string(), "dma_map_sg".to_string())].into())
    }
    fn tracepoint_format(&self, _: &str, event: &str) -> Result<String, String> {
        let field = |decl: &str, offset: u16, size: u16, signed: u8| format!("\tfield:{decl};\toffset:{offset};\tsize:{size};\tsigned:{signed};\n");
        let nr = field("int __syscall_nr", 8, 4, 1);
        Ok(match event {
            "sys_enter_openat" => format!("format:\n{nr}{}{}{}{}", field("int dfd", 16, 8, 0), field("const char * filename", 24, 8, 0), field("int flags", 32, 8, 0), field("umode_t mode", 40, 8, 0)),
            "sys_enter_newfstatat" => format!("format:\n{nr}{}{}{}", field("int dfd", 16, 8, 0), field("const char * filename", 24, 8, 0), field("struct stat * statbuf", 32, 8, 0)),
            "dma_map_sg" => format!("format:\n{}{}", field("__data_loc unsigned int[] lengths", 8, 4, 0), field("__data_loc u64[] addrs", 12, 4, 0)),
            "sys_enter_read" => format!("format:\n{nr}{}{}{}", field("unsigned int fd", 16, 8, 0), field("char * buf", 24, 8, 0), field("size_t count", 32, 8, 0)),
            _ => return Err("no such tracepoint".into()),
        })
    }
}

fn with_syscalls(src: &str) -> Result<Program, Diagnostic> {
    compile(src, &CheckOptions { facts: Some(std::rc::Rc::new(SyscallFacts)), ..Default::default() })
}

#[test]
fn syscall_args_are_typed_by_their_prototypes() {
    let p = with_syscalls("syscall::openat:entry { @[args[2], args[0]] = count(); trace(args[3]); } syscall::read:entry { @r[args[0], args[2]] = count(); }").unwrap();
    let i = |size, signed| Repr::Int(IntRepr { size, signed });
    assert_eq!(p.aggregations[0].keys, [i(4, true), i(4, true)]);
    assert_eq!(p.aggregations[1].keys, [i(4, false), i(8, false)]);
    // umode_t is unknown to these facts' types: an integer of the field's size.
    assert_eq!(p.records[0].items[0], Item::Trace(i(8, false)));
    // Two prototypes in one clause: integers meet at their common type.
    let p = with_syscalls("syscall::openat:entry, syscall::read:entry { @[args[0]] = count(); }").unwrap();
    assert_eq!(p.aggregations[0].keys, [i(4, false)]);
    let d = with_syscalls("syscall::openat:entry, syscall::newfstatat:entry { trace(args[2]); }").map(|_| ()).unwrap_err();
    // struct stat is unknown to these facts' types: a pointer to void.
    assert!(d.message.contains("args[2] is `int` in syscall:vmlinux:openat:entry but `void * (user)` in syscall:vmlinux:newfstatat:entry"), "{}", d.message);
    // Pointers point into the process.
    let d = with_syscalls("syscall::openat:entry { printf(\"%s\", args[1]); }").map(|_| ()).unwrap_err();
    assert!(d.message.contains("`char * (user)`"), "{}", d.message);
    // The tracepoint's fields are 8-byte slots, read at their C types.
    let p = with_syscalls("tracepoint:syscalls:sys_enter_openat { @[args->dfd] = count(); }").unwrap();
    assert_eq!(p.aggregations[0].keys, [i(4, true)]);
    let d = with_syscalls("tracepoint:syscalls:sys_enter_openat { trace(*args->filename); }").map(|_| ()).unwrap_err();
    assert!(d.message.contains("user-space pointer"), "{}", d.message);
    let d = with_syscalls("syscall::close:entry { trace(args[0]); }").map(|_| ()).unwrap_err();
    assert!(d.message.contains("cannot read the argument types of syscall:vmlinux:close:entry"), "{}", d.message);
}

/// `__data_loc TYPE[]` fields are pointers to their first element, in the record.
#[test]
fn data_loc_arrays_point_into_the_record() {
    let p = with_syscalls("tracepoint:dma:dma_map_sg { trace(args->lengths[1]); }").unwrap();
    assert_eq!(p.records[0].items[0], Item::Trace(Repr::Int(IntRepr { size: 4, signed: false })));
    let Stmt::Emit { args, .. } = &p.groups[0].clauses[0].body[0] else { panic!() };
    let Expr::Load { addr, size: 4, signed: false } = &args[0] else { panic!("{:?}", args[0]) };
    assert!(matches!(&**addr, Expr::Binary(BinOp::Add, a, four) if matches!(**four, Expr::Int(4)) && matches!(&**a, Expr::Binary(BinOp::Add, r, _) if **r == Expr::TpRecord)), "{addr:?}");
    // u64 is a kernel typedef, and these facts have no kernel types.
    let d = with_syscalls("tracepoint:dma:dma_map_sg { trace(args->addrs[0]); }").map(|_| ()).unwrap_err();
    assert!(d.message.contains("an array of `u64`, a type crumbs does not know"), "{}", d.message);
}

/// stack(n) and func()/sym()/mod() lower to what user space reads; caller and stackdepth
/// (and their user twins) are integers the kernel computes, usable anywhere.
#[test]
fn stacks_and_symbols_lower_to_their_uses() {
    let p = ok("profile-997 { @a[stack(3), func(arg0), mod(caller)] = count(); @b[stack(), sym(caller), stackdepth] = count(); printf(\"%a %k\", caller, stack(2)); }");
    assert_eq!(p.aggregations[0].keys, [Repr::Stack(StackUse::Frames(3, StackMode::Bpftrace)), Repr::Sym(SymKind::Func), Repr::Sym(SymKind::Mod)]);
    assert_eq!(p.aggregations[1].keys, [Repr::Stack(StackUse::Frames(0, StackMode::Bpftrace)), Repr::Sym(SymKind::Func), Repr::Int(IntRepr { size: 4, signed: false })]);
    assert_eq!(p.records[0].items[0].arg_reprs(), [Repr::Int(IntRepr::U64), Repr::Stack(StackUse::Frames(2, StackMode::Bpftrace))]);
    assert!(p.uses_stack);
    let Stmt::Aggregate { keys, .. } = &p.groups[0].clauses[0].body[0] else { panic!() };
    assert_eq!(keys[1], Expr::Sym(SymKind::Func, Box::new(Expr::Var(VarHook::Arg(0)))));
    assert_eq!(keys[2], Expr::Sym(SymKind::Mod, Box::new(Expr::Var(VarHook::Caller { user: false }))));
    let p = ok("syscall::read:entry /stackdepth > 2 && caller != 0 && ustackdepth < 100/ { x = stackdepth + 1; @[caller + 0, ucaller] = sum(stackdepth * 2); self->d = ustackdepth; }");
    assert!(matches!(p.groups[0].clauses[0].predicate, Some(Expr::Binary(BinOp::LogAnd, ..))));
    let err = |src: &str| compile(src, &CheckOptions::default()).map(|_| ()).unwrap_err();
    assert!(err("BEGIN { @[stack(1)] = count(); @[stack(2)] = count(); }").message.contains("is stack(1) elsewhere"));
    assert!(err("BEGIN { printf(\"%s\", func(arg0)); }").message.contains("%s expects a string"));
    assert!(err("BEGIN { @a[1] = count(); printa(\"%k %@d\", @a); }").message.contains("key 1 of `@a` is an integer, but %k expects a stack"));
    assert!(err("BEGIN { @a[stack()] = count(); printa(\"%d %@d\", @a); }").message.contains("key 1 of `@a` is a stack, but %d expects an integer"));
    let d = err("#pragma D option stackframes=65\nBEGIN { }");
    assert_eq!((d.message.as_str(), d.hint.as_deref()), ("stackframes=65 is out of range", Some("a kernel stack keeps 1 to 64 frames, e.g. `stackframes=5`")));
}

/// Rates as DTrace's dt_opt_rate() reads them: nanoseconds without a unit, `hz` a frequency.
#[test]
fn rate_options_are_intervals_in_nanoseconds() {
    for (text, ns) in [("10hz", 100_000_000), ("1s", 1_000_000_000), ("100ms", 100_000_000), ("250", 250), ("0x10", 16), ("2MIN", 120_000_000_000), ("3usec", 3_000)] {
        assert_eq!(super::rate_option("switchrate", Some(text)), Ok(ns), "{text}");
    }
    for bad in ["", "abc", "10 hz", "0hz", "-1", "5parsecs"] {
        assert!(super::rate_option("aggrate", Some(bad)).is_err(), "{bad}");
    }
}

/// spec §4.11: a struct or union copied into a variable is a buffer of its size; its
/// members are read from the variable's storage.
#[test]
fn structs_by_value_in_variables() {
    let decl = "struct pair { int a; char b; }; union w { int i; char c[5]; };";
    let p = ok(&format!("{decl} BEGIN {{ this->p = *(struct pair *)arg0; self->w = *(union w *)arg1; g = this->p; a[1] = self->w; trace(g.b); trace(a[1].c[4]); a[1] = 0; self->w = 0; }}"));
    assert_eq!(p.globals[0].repr, Repr::Object(8));
    assert_eq!(p.thread_locals[0].repr, Repr::Object(8));
    assert_eq!(p.arrays[0].value, Repr::Object(8));
    let c = &p.groups[0].clauses[0];
    assert_eq!(c.locals[0].repr, Repr::Object(8));
    assert!(matches!(&c.body[0], Stmt::SetObject(StrVar::Clause(0), Expr::Object { size: 8, .. })));
    assert!(matches!(&c.body[2], Stmt::SetObject(StrVar::Global(0), Expr::Object { addr, size: 8 }) if **addr == Expr::VarAddr(StrVar::Clause(0))));
    // A member is a load from the variable's storage.
    assert!(c.any(&mut |n| matches!(n, Node::Expr(Expr::Load { addr, size: 1, signed: true }) if **addr == Expr::Binary(BinOp::Add, Box::new(Expr::VarAddr(StrVar::Global(0))), Box::new(Expr::Int(4))))));
    // 0 deletes the element and the thread-local: an object of no bytes.
    assert!(matches!(&c.body[6], Stmt::SetObject(StrVar::Element { .. }, Expr::Object { size: 0, .. })));
    assert!(matches!(&c.body[7], Stmt::SetObject(StrVar::Thread(0), Expr::Object { size: 0, .. })));
}

/// spec §4.11, §5.7: declared struct variables, member assignment and struct keys.
#[test]
fn declared_structs_members_and_struct_keys() {
    let decl = "struct rec { int pos; char c; unsigned int f : 3; }; struct rec r; self struct rec s; this struct rec t; int a[struct rec];";
    let p = ok(&format!("{decl} BEGIN {{ r.pos = 1; r.f = 5; this->t.c = 'a'; self->s.pos++; a[r] = 2; @[this->t, 3] = count(); trace(a[this->t]); }}"));
    // f shares the int unit of c: 8 bytes in all.
    assert_eq!(p.globals[0].repr, Repr::Object(8));
    assert_eq!(p.thread_locals[0].repr, Repr::Object(8));
    assert_eq!(p.arrays[0].keys, vec![Repr::Object(8)]);
    assert_eq!(p.aggregations[0].keys, vec![Repr::Object(8), Repr::Int(IntRepr::I32)]);
    assert_eq!(p.aggregations[0].key_size(), 16);
    let c = &p.groups[0].clauses[0];
    assert!(matches!(&c.body[0], Stmt::SetMember { var: StrVar::Global(0), offset: 0, field: Field::Int(4), value: Expr::Int(1) }));
    assert!(matches!(&c.body[1], Stmt::SetMember { var: StrVar::Global(0), offset: 5, field: Field::Bits { size: 1, shift: 0, width: 3 }, .. }));
    assert!(matches!(&c.body[2], Stmt::SetMember { var: StrVar::Clause(_), offset: 4, field: Field::Int(1), .. }));
    assert!(matches!(&c.body[3], Stmt::SetMember { var: StrVar::Thread(0), offset: 0, field: Field::Int(4), .. }));
    assert!(matches!(&c.body[4], Stmt::SetElement { keys, .. } if matches!(&keys[0], Expr::Object { size: 8, .. })));
}

/// Each (clause, the text the error points at, words of its message) after `decl` is
/// an error with a hint.
fn assert_rejected(decl: &str, cases: &[(&str, &str, &str)]) {
    for (src, at, message) in cases {
        let src = format!("{decl} {src}");
        let (d, text) = err(&src);
        assert!(d.message.contains(message), "{src}: {}", d.message);
        assert_eq!(text, *at, "{src}");
        assert!(d.hint.is_some(), "{src}");
    }
}

#[test]
fn what_d_rejects_about_declared_structs_and_struct_keys() {
    let decl = "struct rec { int pos; char c; int arr[4]; }; struct pirate { int pos; char c; int arr[4]; }; struct rec r1; struct pirate p1; struct rec *rp;";
    let cases = [
        ("BEGIN { a[r1] = 1; a[p1] = 2; }", "p1", "a[ ] key #1 is incompatible with prototype: struct rec vs struct pirate"),
        ("BEGIN { @x[r1] = count(); @x[p1] = count(); }", "p1", "@x[ ] key #1 is incompatible with prototype: struct rec vs struct pirate"),
        ("BEGIN { a[r1] = 1; a[3] = 2; }", "3", "key 1 of `a` has another type elsewhere"),
        ("BEGIN { r1.pos = \"x\"; }", "\"x\"", "`r1.pos` is `int`, but this is a string"),
        ("BEGIN { r1.arr = 1; }", "r1.arr", "cannot assign `r1.arr`, a `int [4]`"),
        ("BEGIN { r1.arr[arg0] = 1; }", "r1.arr[arg0]", "cannot assign `r1.arr[...]`"),
        ("BEGIN { rp = (struct rec *)arg0; rp->pos = 1; }", "rp->pos", "cannot assign to this expression"),
        ("BEGIN { (*rp).pos = 1; }", "(*rp).pos", "cannot assign `(*rp).pos`"),
        ("BEGIN { r1 = p1; }", "p1", "`r1` is `struct rec`, but this is `struct pirate`"),
        ("BEGIN { r1.pos = p1; }", "p1", "cannot be used as a value"),
    ];
    assert_rejected(decl, &cases);
    let (d, text) = err("struct big { char x[20000]; }; struct big b; BEGIN { b.x[0] = 1; }");
    assert!(d.message.contains("20000 bytes, too large for a variable or a key"), "{}", d.message);
    assert_eq!(text, "struct big");
}

#[test]
fn what_d_rejects_about_struct_values() {
    let decl = "struct pair { int a; char b; }; struct other { int a; char b; }; struct big { char x[20000]; };";
    let cases = [
        ("BEGIN { this->p = *(struct pair *)arg0; trace(this->p + 1); }", "this->p", "cannot be used as a value"),
        ("BEGIN { this->p = *(struct pair *)arg0; trace(this->p == this->p); }", "this->p", "cannot be used as a value"),
        ("BEGIN { this->p = *(struct pair *)arg0; this->p = *(struct other *)arg0; }", "*(struct other *)arg0", "is `struct pair`, but this is `struct other`"),
        ("BEGIN { this->p = *(struct pair *)arg0; this->p = 0; }", "0", "is `struct pair`, but this is `int`"),
        ("BEGIN { this->p = *(struct pair *)arg0; this->p++; }", "this->p++", "`++`/`--` of `this->p`"),
        ("BEGIN { this->p = *(struct pair *)arg0; trace(&this->p); }", "this->p", "cannot take the address of a variable"),
        ("BEGIN { this->p = *(struct big *)arg0; }", "*(struct big *)arg0", "20000 bytes, too large for a variable"),
        ("BEGIN { x = 1; x = *(struct pair *)arg0; }", "*(struct pair *)arg0", "`x` is `int`, but this is `struct pair`"),
        ("BEGIN { this->p = *(struct pair *)arg0; trace(this->p ? 1 : 2); }", "this->p", "cannot be used as a value"),
    ];
    assert_rejected(decl, &cases);
}

/// Found by the fuzzer: an assignment as a member store's base is an error, never a panic.
#[test]
fn an_assignment_as_a_member_stores_base_is_an_error() {
    let (d, _) = err("BEGIN { (((a[u] = 0))).s = 1; }");
    assert_eq!(d.message, "this assignment cannot be stored to");
}

/// Facts whose kernel types cannot be read (no BTF): naming a kernel type says so.
#[derive(Debug)]
struct NoBtf;

impl KernelFacts for NoBtf {
    fn tracepoints(&self) -> crate::facts::Listing {
        Ok(Vec::new().into())
    }
    fn tracepoint_format(&self, _: &str, _: &str) -> Result<String, String> {
        Err("no such tracepoint".into())
    }
    fn kernel_type_id(&self, _: crate::facts::TypeSpace, _: &str) -> Result<Option<crate::facts::KernelTypeId>, String> {
        Err("/sys/kernel/btf/vmlinux: No such file or directory".into())
    }
}

#[test]
fn kernel_types_that_cannot_be_read_are_an_error() {
    let d = compile("BEGIN { trace(((struct file *)arg0)->f_mode); }", &CheckOptions { facts: Some(std::rc::Rc::new(NoBtf)), ..Default::default() }).expect_err("no BTF");
    assert!(d.message.starts_with("cannot read the kernel's types: /sys/kernel/btf/vmlinux"), "{}", d.message);
    assert!(d.hint.unwrap().contains("CONFIG_DEBUG_INFO_BTF"));
    assert!(d.label.is_some());
}

/// D's pointer compatibility (spec §4.8): pointers to one type, or to void, meet; others do
/// not, nor does a user pointer with a kernel one; pointers are no operands of `*`.
#[test]
fn pointers_meet_only_when_compatible() {
    for src in [
        "struct a { int x; }; struct b { int y; }; BEGIN { p = (struct a *)arg0; p = (struct b *)arg1; }",
        "struct a { int x; }; BEGIN { trace((struct a *)arg0 == (long *)arg1); }",
        "BEGIN { trace((char *)arg0 * 2); }",
        "BEGIN { trace(((int *)arg0) & 7); }",
    ] {
        let (d, _) = err(src);
        assert!(d.message.contains("point at different types") || d.message.contains("needs integers, but this is a pointer"), "{src}: {}", d.message);
    }
    ok("struct a { int x; }; BEGIN { p = (struct a *)arg0; p = (void *)arg1; p = (struct a *)0; trace(p == (void *)arg2); trace((int *)arg0 == (int *)arg1); trace((uintptr_t)p & 7); }");
}

/// The rest of dt_node_is_ptrcompat's rule, through libctf's ctf_type_compat: `void` meets
/// anything only as the pointee itself, `_Bool` is no other 1-byte integer, and an enum
/// meets any integer.
#[test]
fn pointers_meet_as_libctf_says() {
    for src in [
        "BEGIN { trace((void **)arg0 == (int **)arg1); }",
        "BEGIN { p = (int **)arg0; p = (void **)arg1; }",
        "BEGIN { trace((_Bool *)arg0 == (unsigned char *)arg1); }",
        "enum e { A }; enum f { B }; BEGIN { trace((enum e *)arg0 == (enum f *)arg1); }",
    ] {
        let (d, _) = err(src);
        assert!(d.message.contains("point at different types"), "{src}: {}", d.message);
    }
    ok("enum e { A }; BEGIN { trace((enum e *)arg0 == (int *)arg1); p = (unsigned char *)arg0; p = (enum e *)arg1; trace((void **)arg0 == (void **)arg1); trace((void *)arg0 == (int **)arg1); trace((long *)arg0 == (long long *)arg1); }");
}

/// Each recorded value keeps its source text (parquet's column names): trace()'s argument,
/// printf()'s after the format, a statement's stack(); a clause-local variable names itself.
#[test]
fn records_keep_their_values_source() {
    let p = crate::compile("BEGIN { this->bytes = 4; trace(this->bytes); printf(\"%d %s\\n\", arg2 + 1,  execname); stack(); exit(0); }", &Default::default()).unwrap();
    let names: Vec<Vec<String>> = p.records[0].sources.iter().map(|s| s.iter().map(|a| a.column()).collect()).collect();
    assert_eq!(names, [vec!["bytes".to_string()], vec!["arg2 + 1".to_string(), "execname".to_string()], vec!["stack()".to_string()], vec![]]);
}
