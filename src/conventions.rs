//! What a command-line tool owes its users besides its work: `--help`'s examples for each
//! kind of user (shared/users.md), a man page (`crumbs --man`) and shell completions
//! (`crumbs --completions SHELL`), both generated from the clap definition so they never
//! disagree with it. They run only when asked: start-up is unchanged otherwise.

use clap::CommandFactory;
use std::io::Write;
use std::process::ExitCode;

/// `--help`'s examples (and the man page's EXAMPLES), by what the reader came to do.
pub const EXAMPLES: &str = "\
Examples, by what you came to do:

Count a benchmark's system calls (the lab's DTrace one-liner and script):
  crumbs -e 'syscall:::entry /comm==\"io-benchmark\"/ <@[probefunc]=count()>' -c 'io-benchmark -c -r -b 512 /tmp/iofile'
  crumbs -s scripts/l41-syscalls.d -c 'io-benchmark -r -b 512 /tmp/iofile'
  crumbs -e 'syscall::read:entry /pid == $target/ { self->ts = timestamp; } syscall::read:return /self->ts/ { @[\"read ns\"] = quantize(timestamp - self->ts); self->ts = 0; }' -c 'io-benchmark -r -b 4K /tmp/iofile'

Run bpftrace scripts as they are (ML-storage traces):
  crumbs scripts/ml-storage/bpftrace/trace_vfs_rw.bt
  crumbs -e 'tracepoint:syscalls:sys_enter_openat /comm == \"python\"/ { printf(\"%d %s\\n\", pid, str(args.filename)); }'

Time kernel functions by the hundred (HPC I/O):
  crumbs -e 'fbt::vfs_*:entry, fbt::ext4_*:entry { @[probefunc] = count(); }'
  crumbs -e 'fbt::vfs_read:entry { self->ts = timestamp; } fbt::vfs_read:return /self->ts/ { @[execname] = quantize(timestamp - self->ts); self->ts = 0; }'

Collect events for analysis (kernel and ML-systems research):
  crumbs -q -o faults.txt -e 'tracepoint:exceptions:page_fault_user { printf(\"%d %d %s\\n\", timestamp, pid, execname); }' -c 'io-benchmark -c -w /tmp/iofile'

Explore interactively (Tab completes probes, members and functions; :help lists commands):
  crumbs
  crumbs> :run io-benchmark -r -b 4K /tmp/iofile
  crumbs> syscall::read:entry /pid == $target/ { @[arg2] = count(); }

List probes, and see the generated BPF:
  crumbs -l -e 'syscall::*read*:entry'
  crumbs --dump-bpf -e 'syscall:::entry { @[execname] = count(); }'

Install the man page and shell completions:
  crumbs --man > /usr/local/share/man/man1/crumbs.1
  crumbs --completions bash > /etc/bash_completion.d/crumbs";

/// The man page's sections that are not in `--help`, in roff.
const MORE: &str = r#".SH "EXIT STATUS"
The low 8 bits of the status of the first exit() in END, else of the exit() that stopped tracing, else 0; 2 for a bad command line, a compile error, a missing permission, a command that cannot be run or a probe that cannot be attached (spec.md \(sc10.3).
.SH FILES
.TP
\fI~/.crumbs_history\fR
the REPL's history
.SH NOTES
Invoked as \fBdtrace\fR or \fBbpftrace\fR (a symbolic link to crumbs), crumbs reads their command lines and prints their output.
spec.md describes the language and every option.
.SH "SEE ALSO"
\fBdtrace\fR(1), \fBbpftrace\fR(8)
"#;

/// `crumbs --man`: the man page, in roff, on standard output.
pub fn man() -> ExitCode {
    let man = clap_mangen::Man::new(crate::Cli::command());
    let mut out: Vec<u8> = Vec::new();
    let rendered = (|| -> std::io::Result<()> {
        man.render_title(&mut out)?;
        man.render_name_section(&mut out)?;
        man.render_synopsis_section(&mut out)?;
        man.render_description_section(&mut out)?;
        man.render_options_section(&mut out)?;
        writeln!(out, ".SH EXAMPLES\n.nf")?;
        for line in EXAMPLES.lines().skip(2) {
            writeln!(out, "{}", roff_line(line))?;
        }
        writeln!(out, ".fi")?;
        out.write_all(MORE.as_bytes())?;
        man.render_version_section(&mut out)
    })();
    if let Err(e) = rendered.and_then(|()| std::io::stdout().write_all(&out)) {
        return crate::fail(format!("cannot write the man page: {e}"));
    }
    ExitCode::SUCCESS
}

/// `line` as literal roff text: backslashes escaped, and a line that would start with a
/// control character (`.` or `'`) guarded.
fn roff_line(line: &str) -> String {
    let escaped = line.replace('\\', "\\e");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// `crumbs --completions SHELL`: the completion script for SHELL on standard output.
pub fn completions(shell: clap_complete::Shell) -> ExitCode {
    clap_complete::generate(shell, &mut crate::Cli::command(), "crumbs", &mut std::io::stdout());
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roff_lines_are_literal() {
        assert_eq!(roff_line(r#"printf("%d\n")"#), r#"printf("%d\en")"#);
        assert_eq!(roff_line(".x"), "\\&.x");
    }
}
