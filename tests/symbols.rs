//! Live tests of kernel symbols and stacks (spec §7.8, §7.11, §7.2): stack(n) and the
//! stackframes option, func()/sym()/mod(), caller, stackdepth, printf's %a and %k.

mod common;

use common::{agg_rows, assert_compile_error, run, str_col};
use std::collections::{HashMap, HashSet};

/// Text symbols of /proc/kallsyms: (module, name) -> address.
/// The kernel's text symbols by (module, name): every address of a name (static functions
/// of one name in several files have several).
fn kallsyms() -> HashMap<(String, String), Vec<u64>> {
    let text = std::fs::read_to_string("/proc/kallsyms").unwrap();
    let mut out: HashMap<(String, String), Vec<u64>> = HashMap::new();
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() >= 3 && matches!(w[1], "t" | "T" | "w" | "W") {
            let module = w.get(3).map_or("vmlinux".to_string(), |m| m.trim_matches(['[', ']']).to_string());
            out.entry((module, w[2].to_string())).or_default().push(u64::from_str_radix(w[0], 16).unwrap());
        }
    }
    out
}

/// Whether `pc` is `off` past one of the addresses of (module, name).
fn at_symbol(module: &str, name: &str, off: u64, pc: u64) -> bool {
    kallsyms().get(&(module.to_string(), name.to_string())).is_some_and(|a| a.iter().any(|a| a + off == pc))
}

/// `module`name+0xoff` (or without the offset) as (module, name, offset).
fn parse_frame(f: &str) -> (String, String, u64) {
    let (module, rest) = f.split_once('`').unwrap_or_else(|| panic!("not a symbol: {f:?}"));
    let (name, off) = match rest.split_once("+0x") {
        Some((n, o)) => (n, u64::from_str_radix(o, 16).unwrap()),
        None => (rest, 0),
    };
    (module.to_string(), name.to_string(), off)
}

const ONE_READ: &str = "dd if=/dev/zero of=/dev/null bs=1 count=1";

/// `@[func(arg0)]` in profile-997: every key is a kernel function as /proc/kallsyms names it,
/// printed `module`function` without an offset in DTrace's `"  %-50s"` column, and each
/// function is one row however many offsets in it were sampled.
#[test]
fn profile_keys_by_function() {
    let out = run(&[
        "-q",
        "-e",
        "profile-997 /arg0/ { @[func(arg0)] = count(); @m[mod(arg0)] = count(); } tick-1s { exit(0); }",
        "-c",
        "dd if=/dev/zero of=/dev/null bs=1 count=400000",
    ]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let syms = kallsyms();
    let rows = agg_rows(&out.stdout);
    assert!(rows.len() >= 2, "{}", out.dump());
    let mut seen = HashSet::new();
    for (keys, _) in &rows {
        let key = &keys[0];
        if !key.contains('`') {
            // mod()'s rows: a module name.
            assert!(key == "vmlinux" || key == "bpf" || syms.keys().any(|(m, _)| m == key), "{key}\n{}", out.dump());
            continue;
        }
        let (module, name, off) = parse_frame(key);
        assert_eq!(off, 0, "{key}\n{}", out.dump());
        // BPF programs (this one's, other tests') come and go from /proc/kallsyms.
        assert!(module == "bpf" || syms.contains_key(&(module.clone(), name.clone())), "{key} is not in /proc/kallsyms\n{}", out.dump());
        assert!(seen.insert(key.clone()), "{key} printed twice\n{}", out.dump());
        assert!(out.stdout.lines().any(|l| l.starts_with(&str_col(key))), "{}", out.dump());
    }
    assert!(!seen.is_empty() && rows.iter().any(|(k, _)| k[0] == "vmlinux"), "{}", out.dump());
}

/// At a syscall probe, `caller` is the stack's second frame (the function the probed one
/// returns to); %a prints it as the frame does, %p in hex, %d in decimal, func() and mod()
/// as its function and module; stackdepth counts the frames stack() shows.
#[test]
fn caller_and_depth_at_a_syscall() {
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::read:entry /pid == $target/ {
               printf("%a|%p|%d|%d|", caller, caller, caller, stackdepth);
               printf("%s|%s|", "x", "y"); trace(func(caller)); trace(mod(caller)); stack(64); exit(0); }"#,
        "-c",
        ONE_READ,
    ]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let (head, stack) = out.stdout.split_once('\n').unwrap_or_else(|| panic!("{}", out.dump()));
    let f: Vec<&str> = head.split('|').collect();
    let frames: Vec<&str> = stack.lines().filter(|l| !l.is_empty()).map(str::trim).collect();
    assert!(frames.len() >= 2, "{}", out.dump());
    assert_eq!(f[0], frames[1], "{}", out.dump());
    let pc: u64 = f[2].parse().unwrap();
    assert_eq!(f[1], format!("{pc:x}"), "{}", out.dump());
    assert_eq!(f[3], frames.len().to_string(), "{}", out.dump());
    let (module, name, off) = parse_frame(f[0]);
    assert!(at_symbol(&module, &name, off, pc), "{}", out.dump());
    assert_eq!(f[6], format!("{}{}", str_col(&format!("{module}`{name}")), str_col(&module)), "{}", out.dump());
}

/// Each `caller|caller in decimal|stackdepth` line printed before a stack(64) in `stdout`,
/// checked against that stack: caller is its second frame (0 if none), stackdepth the
/// number of its frames. Returns how many were checked.
fn assert_caller_and_depth_match_stacks(stdout: &str, dump: &str) -> usize {
    let lines: Vec<&str> = stdout.split('\n').collect();
    let mut checked = 0;
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("cd|") else { continue };
        let f: Vec<&str> = rest.split('|').collect();
        // Then "" and the stack's frames, each indented by 14 spaces.
        let frames: Vec<&str> = lines[i + 2..].iter().take_while(|l| l.starts_with(&" ".repeat(14))).map(|l| l.trim()).collect();
        assert_eq!(f[2], frames.len().to_string(), "stackdepth of {line}\n{dump}");
        match frames.get(1) {
            Some(second) => {
                assert_eq!(f[0], *second, "caller of {line}\n{dump}");
                let (module, name, off) = parse_frame(second);
                assert!(at_symbol(&module, &name, off, f[1].parse::<u64>().unwrap()), "{line}\n{dump}");
            }
            None => assert_eq!(f[1], "0", "{dump}"),
        }
        checked += 1;
    }
    checked
}

/// caller and stackdepth are integers computed in the kernel: they work in predicates,
/// arithmetic, comparisons, variables, keys and aggregating functions, and still equal the
/// second frame and the frame count of the stack() taken with them: at a syscall probe, at
/// a tracepoint sharing raw_syscalls:sys_enter with it (each then runs through the
/// tracepoint's iterator, one more machinery frame), at BEGIN and in profile samples.
#[test]
fn caller_and_stackdepth_are_integers() {
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::read:entry /pid == $target && stackdepth > 0 && caller != 0 && stackdepth + 1 == stackdepth + 1/ {
               this->d = stackdepth; self->c = caller; self->d = stackdepth; x = stackdepth * 2;
               printf("cd|%a|%d|%d\n", caller, caller, stackdepth); stack(64);
               printf("vars %d %d %d %d\n", this->d == stackdepth, self->c == caller, x == 2 * stackdepth, caller - self->c);
               @k[caller, stackdepth] = count(); @a = avg(stackdepth); @c = max(caller); }
           syscall::read:entry /pid == $target && self->c == caller/ { printf("again %d\n", stackdepth == self->d); }
           tracepoint:raw_syscalls:sys_enter /pid == $target && args->id == 0/ { printf("cd|%a|%d|%d\n", caller, caller, stackdepth); stack(64); }
           END { printa("key %d %d %@d\n", @k); printa("avg %@d\n", @a); printa("max %@u\n", @c); }"#,
        "-c",
        ONE_READ,
    ]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let dump = out.dump();
    assert!(assert_caller_and_depth_match_stacks(&out.stdout, &dump) >= 2, "{dump}");
    assert!(out.stdout.lines().any(|l| l == "vars 1 1 1 0"), "{dump}");
    assert!(out.stdout.lines().any(|l| l == "again 1"), "{dump}");
    // The keys, the average and the maximum are the values printed.
    let first: Vec<&str> = out.stdout.lines().find(|l| l.starts_with("cd|")).unwrap().split('|').collect();
    assert!(out.stdout.lines().any(|l| l.starts_with(&format!("key {} {} ", first[2], first[3]))), "{dump}");
    assert!(out.stdout.lines().any(|l| l == format!("max {}", first[2])), "{dump}");
    let out = run(&["-q", "-e", r#"BEGIN { printf("cd|%a|%d|%d\n", caller, caller, stackdepth); stack(64); exit(0); }"#]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert_eq!(assert_caller_and_depth_match_stacks(&out.stdout, &out.dump()), 1, "{}", out.dump());
    // An ERROR clause sees the stack of the clause that faulted.
    let out = run(&["-q", "-e", r#"syscall::read:entry /pid == $target/ { x = 1 / (arg0 - arg0); } ERROR { printf("cd|%a|%d|%d\n", caller, caller, stackdepth); stack(64); }"#, "-c", ONE_READ]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert!(assert_caller_and_depth_match_stacks(&out.stdout, &out.dump()) >= 1, "{}", out.dump());
    let out = run(&["-q", "-e", r#"profile-97 /stackdepth > 1/ { printf("cd|%a|%d|%d\n", caller, caller, stackdepth); stack(64); } tick-300ms { exit(0); }"#]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert!(assert_caller_and_depth_match_stacks(&out.stdout, &out.dump()) >= 1, "{}", out.dump());
}

/// stack(n) keeps the innermost n frames; %k prints a stack with no indent (or indented by
/// its width with `-`), each frame on its own line; -x stackframes sets stack()'s frames.
#[test]
fn stack_frames_and_k() {
    let out = run(&[
        "-q",
        "-x",
        "stackframes=1",
        "-e",
        r#"syscall::read:entry /pid == $target/ { stack(64); stack(2); stack(); printf("%k|%-3k|", stack(2), stack(1)); exit(0); }"#,
        "-c",
        ONE_READ,
    ]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let all: Vec<&str> = out.stdout.split('\n').collect();
    // stack(64): "", frames..., then stack(2) starts with "".
    let n = all[1..].iter().position(|l| l.is_empty()).unwrap();
    let full: Vec<&str> = all[1..=n].iter().map(|l| l.trim()).collect();
    assert!(full.len() >= 3, "{}", out.dump());
    let indent = |f: &str, by: usize| format!("{}{f}", " ".repeat(by));
    let expected = format!(
        "\n{}\n\n{}\n{}\n\n{}\n\n{}\n{}\n|\n{}\n|\n",
        full.iter().map(|f| indent(f, 14)).collect::<Vec<_>>().join("\n"),
        indent(full[0], 14),
        indent(full[1], 14),
        indent(full[0], 14),
        full[0],
        full[1],
        indent(full[0], 3),
    );
    assert_eq!(out.stdout, expected, "{}", out.dump());
}

/// Aggregation keys that print alike are one row: stack(1) keys of different stacks with
/// the same innermost frame, and caller keys printed with printa's %a.
#[test]
fn keys_that_print_alike_merge() {
    let out = run(&[
        "-q",
        "-e",
        r#"profile-997 /arg0/ { @s[stack(1)] = count(); } syscall::read:entry /pid == $target/ { @c[caller] = count(); }
           tick-1s { exit(0); } END { printa("%a %@d\n", @c); printa(@s); }"#,
        "-c",
        "dd if=/dev/zero of=/dev/null bs=1 count=200000",
    ]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    let mut lines = out.stdout.lines();
    // A caller whose stack lost its slot in the stack map (to a profile stack) is 0: the
    // largest row, printed last, is the real one.
    let callers: Vec<&str> = lines.by_ref().take_while(|l| !l.is_empty()).collect();
    let caller = callers.last().copied().unwrap_or_default();
    let (sym, n) = caller.rsplit_once(' ').unwrap_or_else(|| panic!("{}", out.dump()));
    assert!(sym.starts_with("vmlinux`") && sym.contains("+0x"), "{}", out.dump());
    assert!(n.parse::<u64>().unwrap() >= 1, "{}", out.dump());
    let frames: Vec<&str> = lines.filter(|l| l.starts_with("              ")).map(str::trim).filter(|l| l.parse::<u64>().is_err()).collect();
    assert!(!frames.is_empty(), "{}", out.dump());
    assert_eq!(frames.len(), frames.iter().collect::<HashSet<_>>().len(), "a frame printed twice\n{}", out.dump());
}

/// Misuse of stacks and symbols is a compile error with a hint, exit status 2.
#[test]
fn symbol_misuse() {
    assert_compile_error(r#"BEGIN { printf("%k", 1); }"#, "%k prints a stack, but this is an integer", "stack()");
    assert_compile_error(r#"BEGIN { printf("%d", stack()); }"#, "%d cannot print a stack", "%k");
    assert_compile_error(r#"BEGIN { printf("%A", stack()); }"#, "%A cannot print a stack", "%k");
    assert_compile_error("BEGIN { trace(func(arg0) + 1); }", "must be an integer, but this is a kernel symbol", "@[func(pc)]");
    assert_compile_error("BEGIN { self->x = func(caller); }", "`self->x` cannot hold a kernel symbol: storing 0 deletes a thread-local variable", "a this-> variable");
    assert_compile_error("BEGIN { @[stack(65)] = count(); }", "stack() cannot keep 65 frames", "1 to 64");
    assert_compile_error("BEGIN { trace(mod()); }", "mod() takes 1 argument, but 0 given", "mod(pc)");
    assert_compile_error("BEGIN { @[stack(1, 2)] = count(); }", "stack() takes at most 1 argument, but 2 given", "stack([nframes])");
    assert_compile_error("#pragma D option stackframes=0\nBEGIN { }", "stackframes=0 is out of range", "1 to 64");
    let out = run(&["-x", "stackframes=lots", "-e", "BEGIN { exit(0); }"]);
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains("option `stackframes` needs a number of frames, got `lots`"), "{}", out.dump());
}
