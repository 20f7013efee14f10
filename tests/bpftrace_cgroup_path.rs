//! bpftrace's `cgroup_path(id [, filter])`, run for real: a process moved into a cgroup the
//! test makes in the cgroup v2 hierarchy (spec §13.4). The outputs were checked against
//! bpftrace 0.17 running the same programs on this host (it aborts on a cgroup_path() key).

mod common;

use common::{run, TempPath};
use std::path::PathBuf;

/// Where cgroup v2 is mounted (/sys/fs/cgroup or /sys/fs/cgroup/unified), from /proc/mounts.
fn cgroup2_mount() -> PathBuf {
    let mounts = std::fs::read_to_string("/proc/mounts").expect("/proc/mounts");
    let line = mounts.lines().find(|l| l.split(' ').nth(2) == Some("cgroup2")).expect("cgroup v2 is mounted");
    PathBuf::from(line.split(' ').nth(1).expect("a mount point"))
}

/// A cgroup made for the test (and a child of it), removed when dropped: a process moved
/// there has left it by then (it has exited).
struct Cgroup(PathBuf);

impl Drop for Cgroup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(self.0.join("inner"));
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[test]
fn cgroup_path_names_a_process_cgroup_when_printed() {
    let name = format!("crumbs-cgpath-{}", std::process::id());
    let group = Cgroup(cgroup2_mount().join(&name));
    std::fs::create_dir_all(group.0.join("inner")).expect("make a cgroup");
    // The shell moves itself into the cgroup, then becomes cat.
    let script = TempPath::with_contents("cgpath.sh", &format!("echo $$ > {}/inner/cgroup.procs\nexec cat /etc/hostname\n", group.0.display()));
    let program = r#"tracepoint:syscalls:sys_enter_openat /comm == "cat"/ { @[cgroup_path(cgroup, "unified"), cgroup_path(cgroup, "*fied"), cgroup_path(cgroup, "nothing*")] = count(); }
        END { printf("%s|%s\n", cgroup_path(1, "uni*"), cgroup_path(0, "unified")); }"#;
    let out = run(&["--dialect", "bpftrace", "-e", program, "-c", &format!("/bin/sh {}", script.str())]);
    out.assert_ok();
    let key = format!("unified:/{name}/inner");
    let row = out.stdout.lines().find(|l| l.starts_with("@[")).unwrap_or_else(|| panic!("no row\n{}", out.dump()));
    assert!(row.starts_with(&format!("@[{key}, {key}, ]: ")), "{}", out.dump());
    // The root cgroup's id is 1; no directory has inode number 0: nothing is printed.
    assert!(out.stdout.contains("\nunified:/|\n"), "{}", out.dump());
}
