//! The worker: the fuzzer re-executed with `--worker`. It compiles the inputs its parent sends,
//! one at a time, and replies. A panic is caught (or, in a `panic = "abort"` build, kills
//! the worker) after the panic hook has sent its location and message; a stack overflow or
//! an abort kills the worker, and the parent, which knows the input and the last stage
//! announced, reports it and starts a new worker.

use crate::pipeline::{self, Outcome};
use crate::protocol::{self, Reply, Stage};
use crumbs_ebpf::abi::Compiled;
use crumbs_lang::{ast, ir};
use std::hash::{Hash, Hasher};
use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

/// Address space allowed to a worker: an input that makes the compiler allocate more is a
/// bug worth reporting (as an abort), not a reason to push the machine into swap.
const MEMORY_LIMIT: u64 = 4 << 30;

struct Last {
    text: String,
    ast: ast::Program,
    program: ir::Program,
    compiled: Compiled,
}

fn send(tag: u8, body: &[u8]) {
    // The parent reads every frame; if it has gone, there is nobody to work for.
    if protocol::write_frame(&mut io::stdout().lock(), tag, body).is_err() {
        std::process::exit(0);
    }
}

/// Caps the address space, and turns off core dumps: a crashing worker is expected, and
/// thousands of cores would fill the disk.
fn set_limits() {
    let mem = libc::rlimit { rlim_cur: MEMORY_LIMIT, rlim_max: MEMORY_LIMIT };
    let core = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: setrlimit with valid structs. Failure only means no limit.
    unsafe {
        libc::setrlimit(libc::RLIMIT_AS, &mem);
        libc::setrlimit(libc::RLIMIT_CORE, &core);
    }
}

/// With CRUMBS_FUZZ_SELF_TEST set, inputs starting `crumbs-fuzz-self-test:` fail on purpose
/// (panic, overflow the stack, abort, hang), so that the tests can check that the parent
/// catches and reports each kind of failure.
fn self_test(text: &str) {
    if std::env::var_os("CRUMBS_FUZZ_SELF_TEST").is_none() {
        return;
    }
    #[allow(unconditional_recursion)]
    fn recurse(n: u64) -> u64 {
        let pad = std::hint::black_box([n; 64]);
        recurse(n + 1) + pad[7]
    }
    match text.strip_prefix("crumbs-fuzz-self-test:").map(str::trim) {
        Some("panic") => panic!("self-test panic"),
        Some("overflow") => drop(std::hint::black_box(recurse(0))),
        Some("abort") => std::process::abort(),
        Some("hang") => loop {
            std::thread::sleep(std::time::Duration::from_secs(1));
        },
        _ => {}
    }
}

pub fn run() -> ExitCode {
    set_limits();
    panic::set_hook(Box::new(|info| {
        let location = info.location().map_or_else(|| "<unknown>".to_string(), |l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
        let payload = info.payload();
        let message = payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned()).unwrap_or_else(|| "<non-string panic payload>".into());
        send(protocol::PANIC, &protocol::encode_panic(&location, &message));
    }));
    let mut last: Option<Last> = None;
    let mut stdin = io::stdin().lock();
    while let Ok(Some((cmd, body))) = protocol::read_frame(&mut stdin) {
        let reply = match cmd {
            protocol::COMPILE => {
                let text = String::from_utf8_lossy(&body).into_owned();
                last = None;
                let result = panic::catch_unwind(AssertUnwindSafe(|| {
                    self_test(&text);
                    pipeline::compile(&text, &mut |s| send(protocol::STAGE, &protocol::stage_body(s)))
                }));
                match result {
                    Ok(Outcome::Rejected { stage, message }) => Reply::Rejected { stage, message },
                    Ok(Outcome::Compiled { ast, program, compiled }) => {
                        let mut h = std::collections::hash_map::DefaultHasher::new();
                        compiled.elf.hash(&mut h);
                        let insns = compiled.programs.iter().map(|p| p.insns.len() as u64).sum();
                        last = Some(Last { text, ast, program, compiled });
                        Reply::Compiled { hash: h.finish(), insns }
                    }
                    Err(_) => Reply::Panicked,
                }
            }
            protocol::LOAD => match last.as_mut() {
                Some(l) => {
                    send(protocol::STAGE, &protocol::stage_body(Stage::Load));
                    let result = panic::catch_unwind(AssertUnwindSafe(|| crate::live::load(&l.text, &l.ast, &mut l.program, &mut l.compiled)));
                    result.unwrap_or(Reply::Panicked)
                }
                None => Reply::LoadFailed { message: "nothing compiled to load".into() },
            },
            other => Reply::LoadFailed { message: format!("unknown request {other}") },
        };
        send(protocol::REPLY, &reply.encode());
    }
    let _ = io::stdout().flush();
    ExitCode::SUCCESS
}
