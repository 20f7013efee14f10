//! io-benchmark: a small file I/O benchmark, the crumbs test and demo workload.
//!
//! ```text
//! io-benchmark [-c] [-r|-w] [-b BUFSIZE] [-n ITERATIONS] [-s TOTALSIZE] [-j] [-v] FILE
//! ```
//!
//! * `-c` creates FILE (truncating it) and fills it with `-s` bytes of data (default 16M).
//!   On its own it only creates the file; with `-r`/`-w` it creates first, outside the timed
//!   region, then runs the loop.
//! * `-r` reads / `-w` writes the whole file once per iteration (`-n`, default 1) in
//!   `-b`-byte chunks (default 16K, 1 B .. 16 MiB). `-r` reads the file's current size;
//!   `-w` writes `-s` bytes if given, else the file's current size (16M if empty/missing).
//! * Sizes accept the suffixes K, M, G (powers of 1024; `KB`/`KiB` spellings also accepted).
//! * `-j` prints one JSON object on stdout, `-v` a human summary on stderr.
//!
//! Contract relied on by the crumbs tests and by tracing scripts:
//! * The work loop is bracketed by two raw `clock_gettime(CLOCK_MONOTONIC)` *system calls*
//!   (not the vDSO). Between them the only system calls are the loop's `read`s or `write`s
//!   (exactly ceil(size / bufsize) per pass, counted and reported) and one
//!   `lseek(fd, 0, SEEK_SET)` between consecutive passes. The file is opened and the buffer
//!   allocated (and pre-faulted) before the first call; the file is closed after the second.
//! * The process makes no `read` system calls at all other than the loop's: `main` is the C
//!   entry point (`#![no_main]`), which skips std's runtime start-up (it reads
//!   /proc/self/maps), and the binary is static (no dynamic loader). `-c` reads nothing.
//! * Per-iteration samples are taken with the TSC (`rdtsc` is not a system call) and scaled
//!   so that they add up to the total measured by the two `clock_gettime` calls.
#![no_main]

use std::ffi::{c_char, c_int, CStr};
use std::io::Write;

const DEFAULT_BUFSIZE: u64 = 16 * 1024;
const DEFAULT_TOTAL: u64 = 16 * 1024 * 1024;
const MAX_BUFSIZE: u64 = 16 * 1024 * 1024;
const CREATE_CHUNK: usize = 1024 * 1024;

const USAGE: &str =
    "usage: io-benchmark [-c] [-r|-w] [-b BUFSIZE] [-n ITERATIONS] [-s TOTALSIZE] [-j] [-v] FILE
  -c            create FILE (truncate) and fill it with TOTALSIZE bytes of data
  -r            read FILE, whole file per iteration
  -w            write FILE, whole file (or TOTALSIZE bytes) per iteration
  -b BUFSIZE    bytes per read/write system call (default 16K; 1 .. 16M)
  -n ITERATIONS passes over the file (default 1)
  -s TOTALSIZE  file size for -c, bytes per pass for -w (default 16M)
  -j            print a JSON object on stdout
  -v            print a human summary on stderr
sizes accept the suffixes K, M, G (powers of 1024)";

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    None,
    Read,
    Write,
}

struct Opts<'a> {
    create: bool,
    mode: Mode,
    bufsize: u64,
    iterations: u64,
    total: Option<u64>,
    json: bool,
    verbose: bool,
    file: Option<&'a CStr>,
}

enum Fail {
    /// Bad usage: exit status 2.
    Usage(String),
    /// Run-time error: exit status 1.
    Error(String),
}

/// The C entry point, called by the C runtime instead of std's `lang_start`.
///
/// # Safety
/// `argv` must hold `argc` valid NUL-terminated strings, as the C runtime guarantees.
#[no_mangle]
pub unsafe extern "C" fn main(argc: c_int, argv: *const *const c_char) -> c_int {
    let args: Vec<&CStr> = (1..argc.max(1) as usize)
        .map(|i| {
            // SAFETY: the C runtime passes argc valid NUL-terminated strings in argv.
            unsafe { CStr::from_ptr(*argv.add(i)) }
        })
        .collect();
    let status = match parse(&args).and_then(|o| run(&o)) {
        Ok(()) => 0,
        Err(Fail::Usage(msg)) => {
            eprintln!("io-benchmark: {msg}\n{USAGE}");
            2
        }
        Err(Fail::Error(msg)) => {
            eprintln!("io-benchmark: {msg}");
            1
        }
    };
    // std's runtime (which would flush stdout at exit) is not running: flush by hand.
    let _ = std::io::stdout().flush();
    status
}

fn parse<'a>(args: &[&'a CStr]) -> Result<Opts<'a>, Fail> {
    let mut o = Opts {
        create: false,
        mode: Mode::None,
        bufsize: DEFAULT_BUFSIZE,
        iterations: 1,
        total: None,
        json: false,
        verbose: false,
        file: None,
    };
    let usage = |m: String| Fail::Usage(m);
    let mut i = 0;
    let mut only_operands = false;
    while i < args.len() {
        let arg = args[i];
        let bytes = arg.to_bytes();
        i += 1;
        if only_operands || bytes.len() < 2 || bytes[0] != b'-' {
            if o.file.is_some() {
                return Err(usage(format!(
                    "unexpected argument '{}'",
                    arg.to_string_lossy()
                )));
            }
            o.file = Some(arg);
            continue;
        }
        if bytes == b"--" {
            only_operands = true;
            continue;
        }
        if bytes == b"-h" || bytes == b"--help" {
            println!("{USAGE}");
            std::process::exit(0);
        }
        // Clustered flags (-crj) and attached values (-b512) are accepted.
        let mut k = 1;
        while k < bytes.len() {
            let flag = bytes[k];
            k += 1;
            match flag {
                b'c' => o.create = true,
                b'r' | b'w' => {
                    let m = if flag == b'r' {
                        Mode::Read
                    } else {
                        Mode::Write
                    };
                    if o.mode != Mode::None && o.mode != m {
                        return Err(usage("-r and -w are mutually exclusive".into()));
                    }
                    o.mode = m;
                }
                b'j' => o.json = true,
                b'v' => o.verbose = true,
                b'b' | b'n' | b's' => {
                    let value: String = if k < bytes.len() {
                        let v = String::from_utf8_lossy(&bytes[k..]).into_owned();
                        k = bytes.len();
                        v
                    } else if i < args.len() {
                        i += 1;
                        args[i - 1].to_string_lossy().into_owned()
                    } else {
                        return Err(usage(format!("option -{} needs a value", flag as char)));
                    };
                    match flag {
                        b'b' => {
                            let v = parse_size(&value)
                                .ok_or_else(|| usage(format!("bad buffer size '{value}'")))?;
                            if !(1..=MAX_BUFSIZE).contains(&v) {
                                return Err(usage(format!(
                                    "buffer size {v} out of range (1 .. {MAX_BUFSIZE})"
                                )));
                            }
                            o.bufsize = v;
                        }
                        b'n' => {
                            let v = value
                                .parse::<u64>()
                                .ok()
                                .filter(|&v| v >= 1)
                                .ok_or_else(|| usage(format!("bad iteration count '{value}'")))?;
                            o.iterations = v;
                        }
                        _ => {
                            let v = parse_size(&value)
                                .ok_or_else(|| usage(format!("bad size '{value}'")))?;
                            o.total = Some(v);
                        }
                    }
                }
                _ => return Err(usage(format!("unknown option -{}", flag as char))),
            }
        }
    }
    if o.file.is_none() {
        return Err(usage("missing FILE".into()));
    }
    if !o.create && o.mode == Mode::None {
        return Err(usage("nothing to do: give -c, -r or -w".into()));
    }
    Ok(o)
}

/// `123`, `16K`, `4M`, `1G` (also `16k`, `16KB`, `16KiB`); powers of 1024.
fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let n: u64 = s[..digits].parse().ok()?;
    let suffix = s[digits..].to_ascii_uppercase();
    let shift = match suffix.as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        _ => return None,
    };
    n.checked_mul(1u64 << shift)
}

fn errno_msg(what: &str, file: &CStr) -> Fail {
    Fail::Error(format!(
        "{what} {}: {}",
        file.to_string_lossy(),
        std::io::Error::last_os_error()
    ))
}

/// Fills `buf` with a deterministic, non-repeating-looking pattern (xorshift64).
fn fill_pattern(buf: &mut [u8], seed: &mut u64) {
    for chunk in buf.chunks_mut(8) {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        let b = seed.to_le_bytes();
        chunk.copy_from_slice(&b[..chunk.len()]);
    }
}

/// Writes all of `buf` to `fd` (outside the timed region; short writes are retried).
fn write_all(fd: c_int, mut buf: &[u8]) -> std::io::Result<()> {
    while !buf.is_empty() {
        // SAFETY: buf is a valid slice.
        let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::WriteZero,
                "write returned 0",
            ));
        }
        buf = &buf[n as usize..];
    }
    Ok(())
}

fn create(file: &CStr, size: u64) -> Result<(), Fail> {
    // SAFETY: file is a valid C string.
    let fd = unsafe {
        libc::open(
            file.as_ptr(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC,
            0o644 as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(errno_msg("cannot create", file));
    }
    let mut chunk = vec![0u8; CREATE_CHUNK];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut left = size;
    let mut result = Ok(());
    while left > 0 {
        let n = left.min(CREATE_CHUNK as u64) as usize;
        fill_pattern(&mut chunk[..n], &mut seed);
        if let Err(e) = write_all(fd, &chunk[..n]) {
            result = Err(Fail::Error(format!(
                "cannot write {}: {e}",
                file.to_string_lossy()
            )));
            break;
        }
        left -= n as u64;
    }
    // SAFETY: fd is ours.
    if unsafe { libc::close(fd) } != 0 && result.is_ok() {
        result = Err(errno_msg("cannot close", file));
    }
    result
}

fn errno() -> i32 {
    // SAFETY: errno is thread-local and always valid to read.
    unsafe { *libc::__errno_location() }
}

/// The raw clock_gettime system call (never the vDSO): it brackets the work loop.
#[inline(never)]
fn clock_syscall() -> Result<u64, Fail> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec.
    let r = unsafe {
        libc::syscall(
            libc::SYS_clock_gettime,
            libc::CLOCK_MONOTONIC as libc::c_long,
            &mut ts as *mut libc::timespec,
        )
    };
    if r != 0 {
        return Err(Fail::Error(format!(
            "clock_gettime: {}",
            std::io::Error::last_os_error()
        )));
    }
    Ok(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// A timestamp that never enters the kernel: the TSC on x86_64. Only differences are used,
/// rescaled against the clock_gettime bracket.
#[inline(always)]
fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc is available on every x86_64 CPU.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // The vDSO: no system call as long as the clocksource supports it.
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: ts is a valid timespec.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }
}

struct Outcome {
    time_ns: u64,
    calls: u64,
    samples: Vec<u64>,
}

fn run(o: &Opts) -> Result<(), Fail> {
    let file = o.file.expect("checked by parse");
    if o.create {
        create(file, o.total.unwrap_or(DEFAULT_TOTAL))?;
        if o.mode == Mode::None {
            if o.verbose {
                eprintln!(
                    "io-benchmark: created {} ({} bytes)",
                    file.to_string_lossy(),
                    o.total.unwrap_or(DEFAULT_TOTAL)
                );
            }
            return Ok(());
        }
    }

    let flags = match o.mode {
        Mode::Read => libc::O_RDONLY,
        _ => libc::O_WRONLY | libc::O_CREAT,
    } | libc::O_CLOEXEC;
    // SAFETY: file is a valid C string.
    let fd = unsafe { libc::open(file.as_ptr(), flags, 0o644 as libc::c_uint) };
    if fd < 0 {
        return Err(errno_msg("cannot open", file));
    }
    let result = measure(o, fd, file);
    // SAFETY: fd is ours; closed after the second clock_gettime.
    let closed = unsafe { libc::close(fd) };
    let out = result?;
    if closed != 0 {
        return Err(errno_msg("cannot close", file));
    }
    report(o, &out, file)
}

fn measure(o: &Opts, fd: c_int, file: &CStr) -> Result<(Outcome, u64), Fail> {
    // SAFETY: zeroed stat is a valid out-parameter.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fd is open, st is valid.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(errno_msg("cannot stat", file));
    }
    let file_size = if st.st_mode & libc::S_IFMT == libc::S_IFBLK { device_size(fd) } else { st.st_size as u64 };
    let size = match o.mode {
        Mode::Read => file_size,
        _ => o.total.unwrap_or(if file_size > 0 {
            file_size
        } else {
            DEFAULT_TOTAL
        }),
    };
    let bufsize = o.bufsize as usize;
    let reading = o.mode == Mode::Read;

    // Everything the loop touches is allocated and pre-faulted here.
    let mut buf = vec![0u8; bufsize];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    fill_pattern(&mut buf, &mut seed);
    let n = o.iterations as usize;
    let mut ticks_per_pass = vec![0u64; n];
    let mut calls: u64 = 0;
    // (errno, 0 = unexpected EOF; byte offset in the pass): turned into a message after the loop.
    let mut failure: Option<(i32, u64)> = None;
    let ptr = buf.as_mut_ptr();

    let start = clock_syscall()?;
    let mut t_prev = ticks();
    'passes: for (pass, slot) in ticks_per_pass.iter_mut().enumerate() {
        if pass > 0 {
            // SAFETY: fd is open.
            if unsafe { libc::lseek(fd, 0, libc::SEEK_SET) } < 0 {
                failure = Some((errno(), 0));
                break;
            }
        }
        let mut left = size;
        while left > 0 {
            let want = if left < bufsize as u64 {
                left as usize
            } else {
                bufsize
            };
            // SAFETY: ptr points to bufsize >= want bytes owned by buf.
            let got = unsafe {
                if reading {
                    libc::read(fd, ptr.cast(), want)
                } else {
                    libc::write(fd, ptr.cast(), want)
                }
            };
            calls += 1;
            if got <= 0 {
                // EOF (the file shrank) or an error.
                failure = Some((if got == 0 { 0 } else { errno() }, size - left));
                break 'passes;
            }
            left -= got as u64;
        }
        let t = ticks();
        *slot = t - t_prev;
        t_prev = t;
    }
    let end = clock_syscall()?;

    if let Some((code, at)) = failure {
        let e = if code == 0 {
            "unexpected end of file".to_string()
        } else {
            std::io::Error::from_raw_os_error(code).to_string()
        };
        return Err(Fail::Error(format!(
            "{} {} failed at offset {at}: {e}",
            if reading { "read of" } else { "write to" },
            file.to_string_lossy()
        )));
    }
    let time_ns = end.saturating_sub(start);
    // Rescale the TSC deltas so that they add up to the clock_gettime total.
    let total_ticks: u64 = ticks_per_pass.iter().sum();
    let samples = if n == 1 || total_ticks == 0 {
        let mut s = vec![time_ns / n as u64; n];
        s[n - 1] += time_ns % n as u64;
        s
    } else {
        let mut acc = 0u128;
        let mut prev = 0u64;
        ticks_per_pass
            .iter()
            .map(|&t| {
                acc += t as u128;
                let cum = (acc * time_ns as u128 / total_ticks as u128) as u64;
                let d = cum - prev;
                prev = cum;
                d
            })
            .collect()
    };
    Ok((
        Outcome {
            time_ns,
            calls,
            samples,
        },
        size,
    ))
}

fn report(o: &Opts, result: &(Outcome, u64), file: &CStr) -> Result<(), Fail> {
    let (out, size) = result;
    let (reads, writes) = if o.mode == Mode::Read {
        (out.calls, 0)
    } else {
        (0, out.calls)
    };
    let bytes = size * o.iterations;
    // MB/s with MB = 10^6 bytes: bytes / (ns / 1e9) / 1e6.
    let mbps = if out.time_ns > 0 {
        bytes as f64 * 1e3 / out.time_ns as f64
    } else {
        0.0
    };
    if o.json {
        let mut s = format!(
            "{{\"bufsize\":{},\"total\":{},\"iterations\":{},\"reads\":{},\"writes\":{},\"time_ns\":{},\"bandwidth_mbps\":{:.3},\"samples\":[",
            o.bufsize, size, o.iterations, reads, writes, out.time_ns, mbps
        );
        for (i, v) in out.samples.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(&v.to_string());
        }
        s.push_str("]}\n");
        let mut stdout = std::io::stdout().lock();
        stdout
            .write_all(s.as_bytes())
            .and_then(|()| stdout.flush())
            .map_err(|e| Fail::Error(format!("writing output: {e}")))?;
    }
    if o.verbose {
        let per_call = if out.calls > 0 {
            out.time_ns as f64 / out.calls as f64
        } else {
            0.0
        };
        eprintln!(
            "io-benchmark: {} {}: {} x {} bytes in {}-byte chunks\n  {} {} calls, {:.3} ms, {:.1} ns/call, {:.1} MB/s",
            if o.mode == Mode::Read { "read" } else { "wrote" },
            file.to_string_lossy(),
            o.iterations,
            size,
            o.bufsize,
            out.calls,
            if o.mode == Mode::Read { "read" } else { "write" },
            out.time_ns as f64 / 1e6,
            per_call,
            mbps
        );
    }
    Ok(())
}

/// A block device's size in bytes (its stat size is 0): reading one reads it whole, as the
/// tests of block I/O tracing do (0 if the device does not say).
fn device_size(fd: c_int) -> u64 {
    /// BLKGETSIZE64, _IOR(0x12, 114, size_t).
    const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
    let mut bytes: u64 = 0;
    // SAFETY: the ioctl writes one u64 through the pointer given.
    if unsafe { libc::ioctl(fd, BLKGETSIZE64, &mut bytes) } != 0 {
        return 0;
    }
    bytes
}
