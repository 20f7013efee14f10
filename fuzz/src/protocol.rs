//! What the fuzzer and its worker process say to each other over the worker's stdin and
//! stdout: length-prefixed frames. The worker announces each stage before entering it, so
//! that when it dies (a stack overflow aborts the whole process) or hangs, the parent knows
//! where.

use std::io::{self, Read, Write};

/// Parent to worker: compile this text; load the program compiled last.
pub const COMPILE: u8 = b'C';
pub const LOAD: u8 = b'L';

/// Worker to parent: entering a stage; a panic (location and message, sent by the panic
/// hook before unwinding or aborting); the reply to a request.
pub const STAGE: u8 = b'S';
pub const PANIC: u8 = b'P';
pub const REPLY: u8 = b'R';

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    Parse,
    Check,
    /// Rendering a diagnostic, as crumbs prints it.
    Render,
    Emit,
    /// The `--dump-bpf` listing.
    Dump,
    /// Loading into the kernel (live lane).
    Load,
}

impl Stage {
    pub const ALL: [Stage; 6] = [Stage::Parse, Stage::Check, Stage::Render, Stage::Emit, Stage::Dump, Stage::Load];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Parse => "parse",
            Stage::Check => "check",
            Stage::Render => "render",
            Stage::Emit => "emit",
            Stage::Dump => "dump",
            Stage::Load => "load",
        }
    }

    fn from_u8(b: u8) -> Option<Stage> {
        Stage::ALL.get(b as usize).copied()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// A clean error: a diagnostic from parsing or checking, or an emit error.
    Rejected { stage: Stage, message: String },
    /// Compiled; `hash` identifies the ELF, so the live lane loads distinct programs only.
    Compiled { hash: u64, insns: u64 },
    Loaded,
    /// The panic frame before this one says what and where.
    Panicked,
    /// The verifier rejected a program that compiled: a code-generation bug.
    Verifier { clauses: String, message: String, log: String },
    /// Loading failed some other way (no verifier log): maps, program size, permissions.
    LoadFailed { message: String },
}

pub fn write_frame(w: &mut impl Write, tag: u8, body: &[u8]) -> io::Result<()> {
    let mut buf = Vec::with_capacity(body.len() + 5);
    buf.push(tag);
    buf.extend_from_slice(&(body.len() as u32).to_le_bytes());
    buf.extend_from_slice(body);
    w.write_all(&buf)?;
    w.flush()
}

/// The next frame, or None at the end of the stream.
pub fn read_frame(r: &mut impl Read) -> io::Result<Option<(u8, Vec<u8>)>> {
    let mut head = [0u8; 5];
    match r.read_exact(&mut head) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let mut body = vec![0; u32::from_le_bytes(head[1..].try_into().unwrap()) as usize];
    r.read_exact(&mut body)?;
    Ok(Some((head[0], body)))
}

pub fn stage_body(s: Stage) -> [u8; 1] {
    [s as u8]
}

pub fn decode_stage(body: &[u8]) -> Option<Stage> {
    body.first().and_then(|&b| Stage::from_u8(b))
}

fn put(buf: &mut Vec<u8>, s: &[u8]) {
    buf.extend_from_slice(&(s.len() as u32).to_le_bytes());
    buf.extend_from_slice(s);
}

/// Length-prefixed fields, read back in order.
struct Fields<'a>(&'a [u8]);

impl Fields<'_> {
    fn bytes(&mut self) -> Option<&[u8]> {
        let len = u32::from_le_bytes(self.0.get(..4)?.try_into().ok()?) as usize;
        let (field, rest) = self.0.get(4..)?.split_at_checked(len)?;
        self.0 = rest;
        Some(field)
    }

    fn string(&mut self) -> Option<String> {
        self.bytes().map(|b| String::from_utf8_lossy(b).into_owned())
    }

    fn u64(&mut self) -> Option<u64> {
        self.bytes().and_then(|b| b.try_into().ok()).map(u64::from_le_bytes)
    }
}

/// A panic: where (`file:line:col`) and the message.
pub fn encode_panic(location: &str, message: &str) -> Vec<u8> {
    let mut buf = Vec::new();
    put(&mut buf, location.as_bytes());
    put(&mut buf, message.as_bytes());
    buf
}

pub fn decode_panic(body: &[u8]) -> (String, String) {
    let mut f = Fields(body);
    (f.string().unwrap_or_default(), f.string().unwrap_or_default())
}

impl Reply {
    pub fn encode(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        match self {
            Reply::Rejected { stage, message } => {
                buf.push(0);
                put(&mut buf, &stage_body(*stage));
                put(&mut buf, message.as_bytes());
            }
            Reply::Compiled { hash, insns } => {
                buf.push(1);
                put(&mut buf, &hash.to_le_bytes());
                put(&mut buf, &insns.to_le_bytes());
            }
            Reply::Loaded => buf.push(2),
            Reply::Panicked => buf.push(3),
            Reply::Verifier { clauses, message, log } => {
                buf.push(4);
                put(&mut buf, clauses.as_bytes());
                put(&mut buf, message.as_bytes());
                put(&mut buf, log.as_bytes());
            }
            Reply::LoadFailed { message } => {
                buf.push(5);
                put(&mut buf, message.as_bytes());
            }
        }
        buf
    }

    pub fn decode(body: &[u8]) -> Option<Reply> {
        let (&kind, rest) = body.split_first()?;
        let mut f = Fields(rest);
        Some(match kind {
            0 => Reply::Rejected { stage: decode_stage(f.bytes()?)?, message: f.string()? },
            1 => Reply::Compiled { hash: f.u64()?, insns: f.u64()? },
            2 => Reply::Loaded,
            3 => Reply::Panicked,
            4 => Reply::Verifier { clauses: f.string()?, message: f.string()?, log: f.string()? },
            5 => Reply::LoadFailed { message: f.string()? },
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_round_trip() {
        let replies = [
            Reply::Rejected { stage: Stage::Check, message: "unknown variable `x\0£`".into() },
            Reply::Compiled { hash: u64::MAX, insns: 12 },
            Reply::Loaded,
            Reply::Panicked,
            Reply::Verifier { clauses: "BEGIN { }".into(), message: "Permission denied".into(), log: "R1 !read_ok\n".into() },
            Reply::LoadFailed { message: "E2BIG".into() },
        ];
        for r in replies {
            assert_eq!(Reply::decode(&r.encode()), Some(r));
        }
        let mut wire = Vec::new();
        write_frame(&mut wire, PANIC, &encode_panic("a.rs:1:2", "boom")).unwrap();
        let (tag, body) = read_frame(&mut wire.as_slice()).unwrap().unwrap();
        assert_eq!((tag, decode_panic(&body)), (PANIC, ("a.rs:1:2".to_string(), "boom".to_string())));
    }
}
