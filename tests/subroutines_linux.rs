//! DTrace's subroutines on the kernel's own objects (spec §7.19): getmajor()/getminor() of
//! a dev_t, the mutex and rwlock subroutines, d_path(), link_ntop() and cleanpath(). Live:
//! each value is compared with what the system says of the same object (stat(1), the
//! file's path), or with bytes a child process hands the probe.

mod common;

use common::{printed, run, TempPath};

/// `crumbs -q -e PROGRAM -c COMMAND`: its output, which must succeed.
fn traced(program: &str, command: &str) -> String {
    let out = run(&["-q", "-e", program, "-c", command]);
    out.assert_ok();
    out.stdout
}

/// The major and minor numbers stat(1) gives a device file (`%t %T`, hex).
fn stat_device(path: &str) -> String {
    let out = std::process::Command::new("stat").args(["-c", "%t %T", path]).output().expect("stat");
    String::from_utf8(out.stdout).expect("utf-8").trim().to_string()
}

/// dtrace-utils' values: the kernel's dev_t is the low 32 bits, major above minor's 20.
#[test]
fn getmajor_and_getminor_of_a_number() {
    assert_eq!(printed(r#"BEGIN { printf("%x %x %x %x\n", getmajor(0xabcdef0123456789ll), getminor(0xabcdef0123456789ll), getmajor(arg0 + 0x12345678), getminor(arg0 + 0x12345678)); exit(0); }"#), "234 56789 123 45678\n");
}

/// The device numbers of the character devices a child reads, from their inodes' i_rdev,
/// are the ones stat(1) shows.
#[test]
fn getmajor_and_getminor_of_a_device_match_stat() {
    let out = traced(
        r#"syscall::read:entry /progenyof($target) && curthread->files->fdt->fd[arg0]->f_inode->i_rdev != 0/ { this->dev = curthread->files->fdt->fd[arg0]->f_inode->i_rdev; printf("%x %x\n", getmajor(this->dev), getminor(this->dev)); }"#,
        "/bin/sh -c '/bin/cat /dev/null; /usr/bin/head -c1 /dev/zero >/dev/null'",
    );
    let want = format!("{}\n{}\n\n", stat_device("/dev/null"), stat_device("/dev/zero"));
    assert_eq!(out, want);
}

/// A free mutex (crumbs' own cred_guard_mutex while BEGIN runs) has no owner; every Linux
/// mutex is adaptive.
#[test]
fn a_free_mutex_has_no_owner() {
    let p = r#"BEGIN { this->m = &curthread->signal->cred_guard_mutex; printf("%d %p %d %d\n", mutex_owned(this->m), mutex_owner(this->m), mutex_type_adaptive(this->m), mutex_type_spin(this->m)); exit(0); }"#;
    assert_eq!(printed(p), "0 0 1 0\n");
}

/// exec holds the process's cred_guard_mutex while it renames the task: there the current
/// thread owns it.
#[test]
fn exec_owns_its_cred_guard_mutex_while_it_renames_the_task() {
    let out = traced(
        r#"tracepoint:task:task_rename /pid == $target/ { this->m = &curthread->signal->cred_guard_mutex; printf("%s %d %d\n", stringof(args->newcomm), mutex_owned(this->m), mutex_owner(this->m) == curthread); }"#,
        "/bin/sh -c 'exec /bin/true'",
    );
    assert!(out.lines().any(|l| l == "true 1 1"), "{out}");
    assert!(out.lines().all(|l| l.is_empty() || l.ends_with(" 1 1")), "{out}");
}

/// The lock words a child writes, read back as locks: the low byte is the writer, bit 8 a
/// waiting writer, the readers are counted from bit 9 (the kernel's queued rwlock). The
/// mutex owner word loses its three flag bits.
#[test]
fn lock_words_read_as_the_kernels_locks() {
    let out = traced(
        r#"syscall::write:entry /pid == $target/ { this->l = (rwlock_t *)copyin(arg1, 8); printf("%d%d%d %x\n", rw_read_held(this->l), rw_write_held(this->l), rw_iswriter(this->l), (uint64_t)mutex_owner((struct mutex *)this->l)); }"#,
        r#"/bin/sh -c "for w in '\\000\\000\\000\\000\\000\\000\\000\\000' '\\000\\002\\000\\000\\000\\000\\000\\000' '\\000\\003\\000\\000\\000\\000\\000\\000' '\\000\\001\\000\\000\\000\\000\\000\\000' '\\377\\000\\000\\000\\000\\000\\000\\000' '\\017\\017\\000\\000\\001\\000\\000\\000' '\\000\\000\\000\\000\\001\\000\\000\\000'; do printf \$w >/dev/null; done""#,
    );
    // The last word's upper half is the lock's wait_lock, not its count.
    assert_eq!(out, "000 0\n100 200\n101 300\n001 100\n011 f8\n111 100000f08\n000 100000000\n\n");
}

/// d_path() of files a child reads: the path it opened, " (deleted)" after a file that was
/// removed, `pipe:[INODE]` for a pipe (which the kernel names itself); `d_path(&pwd)` is
/// cwd.
#[test]
fn d_path_names_the_files_a_child_reads() {
    let dir = TempPath::dir("d_path");
    let file = format!("{}/file", dir.str());
    let gone = format!("{}/gone", dir.str());
    std::fs::write(&file, "x\n").unwrap();
    std::fs::write(&gone, "y\n").unwrap();
    let real = std::fs::canonicalize(dir.path()).unwrap().display().to_string();
    let out = traced(
        r#"syscall::read:entry /pid != $target && progenyof($target)/ { printf("%s|%d\n", d_path(&curthread->files->fdt->fd[arg0]->f_path), d_path(&curthread->fs->pwd) == cwd); }"#,
        &format!("/bin/sh -c 'cd {real}; /bin/cat file >/dev/null; exec 4<gone; rm gone; /bin/cat <&4 >/dev/null; echo | /bin/cat >/dev/null'"),
    );
    for want in [format!("{real}/file|1"), format!("{real}/gone (deleted)|1")] {
        assert!(out.lines().any(|l| l == want), "no line {want:?} in\n{out}");
    }
    assert!(out.lines().any(|l| l.starts_with("pipe:[") && l.ends_with("]|1")), "no pipe in\n{out}");
}

/// A socket as the kernel's d_path() names it, `socket:[INODE]`: a child reads a socket the
/// test gives it as its standard input.
#[test]
fn d_path_names_a_socket_as_the_kernel_does() {
    use std::io::Write;
    use std::os::fd::OwnedFd;
    use std::os::unix::{fs::MetadataExt, net::UnixStream};
    use std::process::Stdio;
    let (mut mine, theirs) = UnixStream::pair().unwrap();
    let ino = std::fs::File::from(OwnedFd::from(theirs.try_clone().unwrap())).metadata().unwrap().ino();
    mine.write_all(b"x").unwrap();
    drop(mine);
    let program = r#"syscall::read:entry /pid == $target && arg0 == 0/ { printf("%s\n", d_path(&curthread->files->fdt->fd[0]->f_path)); }"#;
    let child = common::crumbs_cmd(&["-q", "-e", program, "-c", "/bin/cat"]).stdin(Stdio::from(OwnedFd::from(theirs))).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.lines().any(|l| l == format!("socket:[{ino}]")), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
}

/// A `struct path *` that cannot be read faults with its address, as dtrace-utils' test of
/// d_path((struct path *)0x18) has it: arg4 DTRACEFLT_BADADDR, arg5 the address.
#[test]
fn d_path_of_a_bad_pointer_is_an_invalid_address() {
    let out = run(&["-q", "-e", r#"BEGIN { d = d_path((struct path *)0x18); trace(d); exit(1); } ERROR { printf("%d %d %d %d\n", arg2, arg4, arg5, arg4 == DTRACEFLT_BADADDR); exit(0); }"#]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert_eq!(out.stdout, "1 1 24 1\n\n");
    assert!(out.stderr.contains("invalid address (0x18) in action #1"), "{}", out.dump());
}

/// At a small strsize the walk still has its room (cwd at strsize 12 used to be an internal
/// error).
#[test]
fn d_path_and_cwd_at_a_small_strsize() {
    let p = "#pragma D option strsize=12\nBEGIN { printf(\"[%s] %d\\n\", d_path(&curthread->fs->root), d_path(&curthread->fs->pwd) == cwd); exit(0); }";
    assert_eq!(printed(p), "[/] 1\n");
    // From a directory whose path is cut to fit: both paths are zeroed to their buffers'
    // ends, so they compare equal (the bytes past strsize were left as they were).
    let dir = common::TempPath::dir("a-directory-with-a-long-name");
    let mut cmd = common::crumbs_cmd(&["-q", "-e", p]);
    cmd.current_dir(dir.path());
    let out = common::run_command(cmd, None, std::time::Duration::from_secs(60));
    out.assert_ok();
    assert_eq!(out.stdout, "[/] 1\n\n", "{}", out.dump());
}

/// A child's `printf` of `bytes` (to /dev/null), each address a write of its own, as a
/// command for `-c`.
fn writes(addresses: &[&[u8]]) -> String {
    let printfs: Vec<String> = addresses.iter().map(|a| format!("printf '{}' >/dev/null", a.iter().map(|b| format!("\\\\{b:03o}")).collect::<String>())).collect();
    format!("/bin/sh -c \"{}\"", printfs.join("; "))
}

/// dtrace-utils' addresses: Ethernet's 6 bytes and InfiniBand's 20, as hex joined by colons.
#[test]
fn link_ntop_writes_hex_bytes_joined_by_colons() {
    let ib1: &[u8] = &[0x10, 0x80, 0x08, 0x08, 0x20, 0x0c, 0x41, 0x7a, 0x01, 0x7f, 0x01, 0xff, 0xff, 0x7f, 0x01, 0xff, 0xfe, 0x7f, 0x01, 0xff];
    let ib2: &[u8] = &[0x80, 0x00, 0x04, 0x04, 0xfe, 0x8c, 0x41, 0x7a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x02, 0x00, 0x29, 0x31, 0xcd];
    let command = writes(&[&[0, 1, 2, 3, 4, 5], &[0xff; 6], &[0x01, 0x33, 0x0a, 0, 0, 1], &[0x00, 0x10, 0xe0, 0x8a, 0x71, 0x5e], &[2, 8, 0x20, 0xac, 4, 0x0e], ib1, ib2]);
    let out = traced(r#"syscall::write:entry /pid == $target/ { printf("%s\n", link_ntop(arg2 == 6 ? ARPHRD_ETHER : ARPHRD_INFINIBAND, copyin(arg1, arg2))); }"#, &command);
    assert_eq!(
        out,
        "00:01:02:03:04:05\nff:ff:ff:ff:ff:ff\n01:33:0a:00:00:01\n00:10:e0:8a:71:5e\n02:08:20:ac:04:0e\n\
         10:80:08:08:20:0c:41:7a:01:7f:01:ff:ff:7f:01:ff:fe:7f:01:ff\n80:00:04:04:fe:8c:41:7a:00:00:00:00:00:02:c9:02:00:29:31:cd\n\n"
    );
}

/// Another hardware type is an illegal operation, an address that cannot be read an
/// invalid address; both abort the clause and fire ERROR. At a strsize shorter than the
/// text, the text is cut.
#[test]
fn link_ntop_faults_as_dtrace_does() {
    let p = r#"BEGIN { trace(link_ntop(-1, alloca(8))); } BEGIN { trace(link_ntop(ARPHRD_ETHER, NULL)); } ERROR { printf("%d %d\n", arg4, arg5); } BEGIN { exit(0); }"#;
    let out = run(&["-q", "-e", p]);
    assert_eq!(out.code(), 0, "{}", out.dump());
    assert_eq!(out.stdout, "3 0\n1 0\n\n");
    assert!(out.stderr.contains("illegal operation in action #1"), "{}", out.dump());
    assert!(out.stderr.contains("invalid address (0x0) in action #1"), "{}", out.dump());
    assert_eq!(printed("#pragma D option strsize=8\nBEGIN { printf(\"%s\\n\", link_ntop(ARPHRD_INFINIBAND, alloca(20))); exit(0); }"), "00:00:0\n");
}

/// cleanpath() by the text alone, as dtrace-utils' (and Go's path.Clean, but for ""):
/// empty and `.` components go, `..` takes out the component before it (nothing at the
/// root, and stays where a relative path has none before it), no trailing slash, "." or
/// "/" when nothing is left.
#[test]
fn cleanpath_cleans_the_text_of_a_path() {
    let cases = [
        ("", ""),
        ("/", "/"),
        (".", "."),
        ("..", ".."),
        ("x", "x"),
        ("//", "/"),
        ("./", "."),
        ("/.", "/"),
        ("/././/", "/"),
        ("/usr//lib/./", "/usr/lib"),
        ("usr/lib/", "usr/lib"),
        ("./usr/./lib/.", "usr/lib"),
        ("/usr/lib/../bin", "/usr/bin"),
        ("/usr/../../../etc", "/etc"),
        ("/..", "/"),
        ("usr/..", "."),
        ("usr/../..", ".."),
        ("../../usr/lib/../..", "../.."),
        ("a/b/../../../c", "../c"),
        ("x/../../y/./z/..", "../y"),
        ("/..a/b.../.../.b", "/..a/b.../.../.b"),
        ("a/.b/..", "a"),
        ("/a/b/c/../../d/./e//f/..", "/a/d/e"),
    ];
    // A few to a program: on a kernel without the numeric iterator (the 6.1 guest) the
    // verifier walks each call's loops step by step.
    for chunk in cases.chunks(8) {
        let calls: String = chunk.iter().map(|(path, _)| format!(" printf(\"[%s]\\n\", cleanpath(\"{path}\"));")).collect();
        let want: String = chunk.iter().map(|(_, clean)| format!("[{clean}]\n")).collect();
        assert_eq!(printed(&format!("BEGIN {{{calls} exit(0); }}")), want);
    }
}

/// A path computed when the probe fires (here a child's file names), and one cut to
/// strsize - 1 bytes before it is cleaned.
#[test]
fn cleanpath_of_strings_read_when_the_probe_fires() {
    let out = traced(
        r#"syscall::openat:entry /progenyof($target)/ { printf("%s\n", cleanpath(copyinstr(arg1))); }"#,
        "/bin/sh -c '/bin/cat /etc/../etc/./hostname /dev//null >/dev/null'",
    );
    // (cat's own output, the host name, comes between.)
    for want in ["/etc/hostname", "/dev/null"] {
        assert!(out.lines().any(|l| l == want), "no line {want:?} in\n{out}");
    }
    assert_eq!(printed("#pragma D option strsize=16\nBEGIN { printf(\"%s\\n\", cleanpath(\"/aaaa/bbbb/../ccccc\")); exit(0); }"), "/aaaa/c\n");
}

/// At the largest strsize, a long path and many calls in one probe load: the loops run on
/// the kernel's numeric iterator.
#[test]
fn cleanpath_at_strsize_4096() {
    let long = "a/".repeat(800) + &"../".repeat(799) + "b";
    let calls: String = (0..10).map(|i| format!(" printf(\"%d\", cleanpath(strjoin(\"/{i}/..\", x)) == \"/a/b\");")).collect();
    let p = format!("#pragma D option strsize=4096\nBEGIN {{ x = \"/{long}\";{calls} exit(0); }}");
    assert_eq!(printed(&p), "1111111111");
}
