//! DTrace's string and integer subroutines (spec §7.11): index(), rindex(), strstr(),
//! strchr(), strrchr(), strtok(), lltostr(), the byte-order swaps, rand(), progenyof(),
//! inet_ntoa()/inet_ntoa6()/inet_ntop(), and printf's %S. Live: each program runs in the
//! kernel, on literals and on strings read when a probe fires; the edge cases are the
//! Dynamic Tracing Guide's and dtrace's own tests'.

mod common;

use common::{printed, run, TempPath};

/// `crumbs -q -e PROGRAM` at `strsize`: its output without the end-of-tracing newline.
fn printed_at(strsize: u32, program: &str) -> String {
    printed(&format!("#pragma D option strsize={strsize}\n{program}"))
}

/// `crumbs -e PROGRAM` fails to compile: status 2, the message at `<command line>:1:col`
/// with a mark under it, the hint.
fn assert_error_at(program: &str, col: usize, message: &str, hint: &str) {
    let out = run(&["-e", program]);
    out.assert_no_panic();
    assert_eq!(out.code(), 2, "{}", out.dump());
    assert!(out.stderr.contains(message), "message {message:?}\n{}", out.dump());
    assert!(out.stderr.contains(&format!("<command line>:1:{col}")), "column {col}\n{}", out.dump());
    let lower = out.stderr.to_lowercase();
    let at = lower.find("help:").or_else(|| lower.find("hint:")).unwrap_or_else(|| panic!("no hint\n{}", out.dump()));
    assert!(out.stderr[at..].contains(hint), "hint {hint:?}\n{}", out.dump());
}

#[test]
fn index_and_rindex_follow_dtrace() {
    let p = r#"BEGIN {
        x = "foobarbaz";
        printf("%d %d %d %d %d %d %d %d %d|", index(x, "barbaz"), index("foofoofoo", "foo"), index("boofoofoo", "foo"),
            index(x, "barbazzy"), index("foobar", "foobar"), index("foobar", "foobarbaz"), index("", "foobar"), index("foobar", ""), index("", ""));
        printf("%d %d %d %d %d %d %d %d %d\n", rindex(x, "barbaz"), rindex("foofoofoo", "foo"), rindex("boofoofoo", "foo"),
            rindex(x, "barbazzy"), rindex("foobar", "foobar"), rindex("foobar", "foobarbaz"), rindex("", "foobar"), rindex("foobar", ""), rindex("", ""));
        exit(0);
    }"#;
    assert_eq!(printed(p), "3 0 3 -1 0 -1 -1 0 0|3 6 6 -1 0 -1 -1 6 0\n");
}

/// The start argument: index() starts there (0 if negative; past the last place finds
/// nothing); rindex() finds nothing from a negative start and takes a start past the last
/// place as the last place.
#[test]
fn index_and_rindex_from_a_start() {
    let p = r#"BEGIN {
        x = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz";
        y = "klmnopqrstuvw";
        printf("%d %d %d %d %d %d %d|", index(x, y, -1), index(x, y), index(x, y, 10), index(x, y, 20), index(x, y, 90), index(x, y, 115), index(x, y, 400));
        printf("%d %d %d %d %d %d %d|", rindex(x, y), rindex(x, y, -1), rindex(x, y, 0), rindex(x, y, 10), rindex(x, y, 40), rindex(x, y, 120), rindex(x, y, 400));
        printf("%d %d %d %d %d\n", index("foo", "", 3), index("foo", "", 4), rindex("foo", "", 1), rindex("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "aaaa"), rindex("aaaa", "aaaaaaaa"));
        exit(0);
    }"#;
    assert_eq!(printed(p), "10 10 10 36 114 -1 -1|114 -1 -1 10 36 114 114|3 -1 1 28 -1\n");
}

#[test]
fn strstr_strchr_strrchr_follow_dtrace() {
    let p = r#"BEGIN {
        s = "foobarbarbazbarbop";
        printf("[%s][%s][%s][%s][%s][%s][%s][%s]\n", strstr(s, s), strstr(s, "baz"), strstr(s, "bar"), strstr(s, "barba"),
            strstr(strstr(s, "baz"), strstr(s, "zba")), strstr(s, ""), strstr("", ""), strstr(s, "barbarf"));
        c = "fooeyfooeyfoo";
        printf("[%s][%s][%s][%s][%s][%s][%s][%s]\n", strchr(c, 'f'), strrchr(c, 'f'), strchr(c, 'y'), strrchr(c, 'y'),
            strrchr(strchr(c, 'y'), 'y'), strchr(c, 'a'), strrchr(c, 'a'), strchr(c, 0));
        exit(0);
    }"#;
    assert_eq!(
        printed(p),
        "[foobarbarbazbarbop][bazbarbop][barbarbazbarbop][barbarbazbarbop][zbarbop][foobarbarbazbarbop][][]\n\
         [fooeyfooeyfoo][foo][yfooeyfoo][yfoo][yfoo][][][]\n"
    );
}

/// strtok(NULL, ...) goes on with the string the last strtok() was given, in later
/// clauses of the same firing too; "" (DTrace's NULL) once no token is left.
#[test]
fn strtok_keeps_its_place_through_the_firing() {
    let p = r#"BEGIN { this->str = ",,,Carrots,,Barley,Oatmeal,,,Beans,"; printf("[%s]", strtok(this->str, ",")); }
        BEGIN { printf("[%s]", strtok(NULL, ",")); printf("[%s]", strtok(NULL, ",")); }
        BEGIN { printf("[%s][%s][%s]\n", strtok(NULL, ","), strtok(NULL, ","), strtok(NULL, ",")); }
        BEGIN {
            x = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
            printf("%s|", strtok(x, "abcABC"));
            printf("%s|%s|", strtok(NULL, "MNO"), strtok(NULL, "MNO"));
            printf("%s|[%s]|", strtok(NULL, "0123456789"), strtok(NULL, "0123456789"));
            printf("[%s][%s][%s][%s]\n", strtok("", ""), strtok("foo", ""), strtok("", "foo"), strtok(" a  b ", " "));
            exit(0);
        }"#;
    assert_eq!(
        printed(p),
        "[Carrots][Barley][Oatmeal][Beans][][]\n\
         defghijklmnopqrstuvwxyz|ABCDEFGHIJKL|PQRSTUVWXYZabcdefghijklmnopqrstuvwxyzABCDEFGHIJKL|MNOPQRSTUVWXYZ|[]|[][foo][][a]\n"
    );
}

/// DTrace's idiom for "no more tokens": a D string compared with NULL is compared with "",
/// which crumbs gives where DTrace gives NULL; NULL is 0 elsewhere (a kernel pointer
/// compared with it).
#[test]
fn strings_compare_with_null() {
    let p = r#"BEGIN { str = ",,,Carrots,,Barley"; }
        BEGIN /(field = strtok(str, ",")) == NULL/ { exit(1); }
        BEGIN { printf("%s ", field); }
        BEGIN /(field = strtok(NULL, ",")) != NULL/ { printf("%s ", field); }
        BEGIN /strtok(NULL, ",") == NULL && NULL == strstr("abc", "d") && strchr("abc", 'b') != NULL/ { printf("%d %d\n", curthread != NULL, NULL); exit(0); }"#;
    assert_eq!(printed(p), "Carrots Barley 1 0\n");
}

/// strtok(NULL, ...) before any string in the firing is DTrace's invalid address: the
/// ERROR probe fires with DTRACEFLT_BADADDR (1) and 0.
#[test]
fn strtok_of_null_first_is_an_error() {
    let p = r#"BEGIN { trace(strtok(NULL, ",")); } BEGIN { exit(0); } ERROR { printf("error %d %d %d\n", arg2, arg4, arg5); }"#;
    let out = run(&["-q", "-e", p]);
    out.assert_ok();
    assert_eq!(out.stdout, "error 1 1 0\n\n", "{}", out.dump());
}

/// Each firing starts with no string: the END probe's strtok(NULL, ...) sees nothing
/// BEGIN left, and faults as dtrace's does (invalid address 0); the clause's output goes
/// with it, the next clause runs.
#[test]
fn strtok_state_does_not_outlive_the_firing() {
    let p = r#"BEGIN { x = strtok("a b c", " "); exit(0); } END { printf("[%s]", x); printf("[%s]\n", strtok(NULL, " ")); } END { printf("<%s>\n", x); }"#;
    let out = run(&["-q", "-e", p]);
    out.assert_ok();
    assert_eq!(out.stdout, "<a>\n\n", "{}", out.dump());
    assert!(out.stderr.contains("dtrace:::END): invalid address (0x0) in action #2"), "{}", out.dump());
}

#[test]
fn lltostr_writes_signed_decimals() {
    let p = r#"BEGIN {
        printf("%s %s %s %s %s %s %s %s %s\n", lltostr(0), lltostr(1), lltostr(-1), lltostr(123456789), lltostr(-123456789),
            lltostr(1LL << 62), lltostr(0x7fffffffffffffff), lltostr(0x8000000000000000), lltostr(0x8000000000000001));
        exit(0);
    }"#;
    assert_eq!(printed(p), "0 1 -1 123456789 -123456789 4611686018427387904 9223372036854775807 -9223372036854775808 -9223372036854775807\n");
    // Cut to strsize - 1 bytes (crumbs' strsize counts the NUL, spec §4.3).
    let p = r#"BEGIN { printf("%s %s %s %s %s\n", lltostr(123456), lltostr(12345678), lltostr(-12345), lltostr(-1000000), lltostr(999999)); exit(0); }"#;
    assert_eq!(printed_at(7, p), "123456 123456 -12345 -10000 999999\n");
}

/// The base argument, as illumos' DTrace: digits 0-9a-z; only decimal has a sign (another
/// base writes the 64 bits unsigned); 16 after "0x" ("0x0" for 0), 8 after "0" (but 0 is
/// "0"). A base known only when the probe fires is checked then: outside 2..36 the clause
/// faults (illegal operation) and ERROR sees DTRACEFLT_ILLOP.
#[test]
fn lltostr_in_another_base() {
    let p = r#"BEGIN {
        printf("%s %s %s %s %s %s|", lltostr(255, 16), lltostr(0, 16), lltostr(-1, 16), lltostr(8, 8), lltostr(0, 8), lltostr(-1, 8));
        printf("%s %s %s %s %s %s|", lltostr(5, 2), lltostr(0, 2), lltostr(-1, 2), lltostr(35, 36), lltostr(-35, 10), lltostr(0x8000000000000000, 10));
        printf("%s %s\n", lltostr(123456789, 36), lltostr(0x7fffffffffffffff, 3));
        exit(0);
    }"#;
    let ones = "1".repeat(64);
    assert_eq!(printed(p), format!("0xff 0x0 0xffffffffffffffff 010 0 01777777777777777777777|101 0 {ones} z -35 -9223372036854775808|21i3v9 2021110011022210012102010021220101220221\n"));
    // The same with the base known only when the probe fires, and cut to strsize - 1.
    let p = r#"BEGIN { b = 16; o = 8; t = 2; d = 10; z = 36;
        printf("%s %s %s %s %s %s %s %s %s\n", lltostr(255, b), lltostr(0, b), lltostr(-1, b), lltostr(8, o), lltostr(0, o), lltostr(-1, t), lltostr(-35, d), lltostr(35, z), lltostr(0x8000000000000000, d));
        exit(0);
    }"#;
    assert_eq!(printed(p), format!("0xff 0x0 0xffffffffffffffff 010 0 {ones} -35 z -9223372036854775808\n"));
    let p = r#"BEGIN { b = 2; printf("%s %s\n", lltostr(-1, b), lltostr(-1, 16)); exit(0); }"#;
    assert_eq!(printed_at(7, p), "111111 0xffff\n");
    let p = r#"BEGIN { b = 1; trace(lltostr(10, b)); } BEGIN { b = 37; trace(lltostr(10, b)); } ERROR { printf("fault %d %d\n", arg4 == DTRACEFLT_ILLOP, arg5); } BEGIN { printf("on\n"); exit(0); }"#;
    let out = run(&["-q", "-e", p]);
    out.assert_ok();
    assert_eq!(out.stdout, "fault 1 0\nfault 1 0\non\n\n", "{}", out.dump());
    assert_eq!(out.stderr.matches("illegal operation in action #2").count(), 2, "{}", out.dump());
}

/// On x86-64 (little-endian) each swaps the bytes of its width; the result has the
/// unsigned type of that width.
#[test]
fn byte_order_swaps() {
    let p = r#"BEGIN {
        printf("%x %x %x %x %x %x|", htons(0x1234), htonl(0x12345678), htonll(0x0102030405060708), ntohs(0xabcd1234), ntohl(1), ntohll(1));
        printf("%d %d %d\n", htons(0xff00) > 0, ntohl(htonl(0xc0a80117)) == 0xc0a80117, sizeof(htons(1)) + sizeof(htonl(1)) + sizeof(htonll(1)));
        exit(0);
    }"#;
    assert_eq!(printed(p), "3412 78563412 807060504030201 3412 1000000 100000000000000|1 1 14\n");
}

/// rand() is an int: 32 random bits, sign-extended; two calls differ (almost always).
#[test]
fn rand_is_a_random_int() {
    let p = r#"BEGIN { a = rand(); b = rand(); c = rand(); printf("%d %d %d\n", a >= -2147483648 && a <= 2147483647, sizeof(rand()), a != b || b != c); exit(0); }"#;
    assert_eq!(printed(p), "1 4 1\n");
}

/// progenyof(pid): the current process itself, its ancestors up to init and the idle
/// task (0) count; an unrelated process does not.
#[test]
fn progenyof_walks_the_parents() {
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::openat:entry /pid == $target/ { printf("%d %d %d %d %d\n", progenyof($target), progenyof(ppid), progenyof(1), progenyof(0), progenyof(999999999)); exit(0); }"#,
        "-c",
        "cat /etc/hostname",
    ]);
    out.assert_ok();
    assert!(out.stdout.contains("1 1 1 1 0\n"), "{}", out.dump());
}

/// The searches work on strings read when the probe fires: a path copied in from the
/// traced process.
#[test]
fn subroutines_on_a_path_read_at_run_time() {
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::openat:entry /pid == $target && basename(copyinstr(arg1)) == "hostname"/ {
            this->p = copyinstr(arg1);
            printf("%d %d %d [%s] [%s] [%s] [%s] ", index(this->p, "/"), rindex(this->p, "/"), index(this->p, "host"), strstr(this->p, "etc"), strchr(this->p, 'h'), strrchr(this->p, 't'), strtok(this->p, "/"));
            printf("[%s] [%s] %s\n", strtok(NULL, "/"), strtok(NULL, "/"), lltostr(strlen(this->p)));
            exit(0);
        }"#,
        "-c",
        "cat /etc/hostname",
    ]);
    out.assert_ok();
    assert!(out.stdout.contains("0 4 5 [etc/hostname] [hostname] [tname] [etc] [hostname] [] 13\n"), "{}", out.dump());
}

/// The loops over strings load at larger string sizes too, many in one clause: they run
/// on the kernel's iterator, which the verifier checks once.
#[test]
fn subroutines_at_larger_string_sizes() {
    let p = r#"BEGIN {
        x = "foobarbaz";
        printf("%d %d %d %d [%s][%s][%s][%s] %s ", index(x, "bar"), rindex(x, "a"), index(x, "baz", 2), rindex(x, "o", 1), strstr(x, "ba"), strchr(x, 'a'), strrchr(x, 'a'), strtok(x, "a"), lltostr(-42));
        printf("[%s][%s][%s]\n", strtok(NULL, "a"), strtok(NULL, "a"), strtok(NULL, "a"));
        exit(0);
    }"#;
    for strsize in [256, 1024, 2048] {
        assert_eq!(printed_at(strsize, p), "3 7 6 1 [barbaz][arbaz][az][foob] -42 [rb][z][]\n", "strsize={strsize}");
    }
    // The largest strsize, and as many strings as a record of it holds.
    let p = r#"BEGIN { x = "a b c d e"; printf("[%s][%s][%s][%s][%s][%s][%s]\n", strtok(x, " "), strtok(NULL, " "), strtok(NULL, " "), strtok(NULL, " "), strchr(x, 'c'), strrchr(x, 'c'), strtok(NULL, " ")); exit(0); }"#;
    assert_eq!(printed_at(4096, p), "[a][b][c][d][c d e][c d e][e]\n");
}

/// A process that makes getpid() calls whose unused arguments are `0x1234`, the index,
/// then an address's 16 bytes: raw_syscalls:sys_enter records them in kernel memory, where
/// `&args->args[2]` points at the address.
const ADDRESSES: &str = r#"import ctypes, struct
libc = ctypes.CDLL(None)
for i, v in enumerate(["fe8000000000000002144ffffe0b76c8", "10800000000000000000080800 0c417a".replace(" ", ""),
        "00000000000000000000000000000001", "00000000000000000000000000000000", "0000000000000000000000007f000001",
        "00000000000000000000ffff7f000001", "00000000000000000000fffe7f000001", "ffffffffffffffffffffffffffffffff",
        "fe123456789abcde0214000000000000", "fe123456789abcde02144ffffe0b0000", "00010000000000020000000000030004",
        "00010000000200030004000500060007", "c0a80117000000000000000000000000", "7f000001000000000000000000000000"]):
    a, b = struct.unpack("<QQ", bytes.fromhex(v))
    libc.syscall(39, 0x1234, i, ctypes.c_ulong(a), ctypes.c_ulong(b), 0, 0)
"#;

/// DTrace's address forms (its inet_ntop and inet_ntoa6 tests' addresses and more): zeros
/// shortened to the first longest run of two or more; IPv4-mapped and -compatible
/// addresses dotted, with their prefix only in inet_ntop()'s (strict) form. inet_ntop() of
/// another family is an illegal operation, an address that cannot be read an invalid
/// address: the ERROR probe fires with the fault (arg4) and the address (arg5).
#[test]
fn inet_addresses_in_dtraces_forms() {
    let script = TempPath::with_contents("addresses.py", ADDRESSES);
    let out = run(&[
        "-q",
        "-e",
        r#"tracepoint:raw_syscalls:sys_enter /pid == $target && args->id == 39 && args->args[0] == 0x1234/ {
            printf("%d %s %s %s %s\n", args->args[1], inet_ntoa6(&args->args[2]), inet_ntop(10, &args->args[2]), inet_ntoa6(&args->args[2], 1), inet_ntoa(&args->args[2]));
        }
        tracepoint:raw_syscalls:sys_enter /pid == $target && args->id == 39 && args->args[0] == 0x1234 && args->args[1] == 0/ { printf("%s", inet_ntop(7, &args->args[2])); }
        END { printf("%s", inet_ntoa(0)); }
        END { printf("%s", inet_ntoa6(8)); }
        END { printf("%s", inet_ntop(2, 0)); }
        ERROR { printf("<%d %d %d>", arg2, arg4, arg5); }"#,
        "-c",
        &format!("python3 {}", script.str()),
    ]);
    out.assert_ok();
    let expected = "0 fe80::214:4fff:fe0b:76c8 fe80::214:4fff:fe0b:76c8 fe80::214:4fff:fe0b:76c8 254.128.0.0
<1 3 0>1 1080::808:c:417a 1080::808:c:417a 1080::808:c:417a 16.128.0.0
2 ::1 ::1 ::1 0.0.0.0
3 :: :: :: 0.0.0.0
4 127.0.0.1 ::127.0.0.1 ::127.0.0.1 0.0.0.0
5 127.0.0.1 ::ffff:127.0.0.1 ::ffff:127.0.0.1 0.0.0.0
6 ::fffe:7f00:1 ::fffe:7f00:1 ::fffe:7f00:1 0.0.0.0
7 ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff 255.255.255.255
8 fe12:3456:789a:bcde:214:: fe12:3456:789a:bcde:214:: fe12:3456:789a:bcde:214:: 254.18.52.86
9 fe12:3456:789a:bcde:214:4fff:fe0b:0 fe12:3456:789a:bcde:214:4fff:fe0b:0 fe12:3456:789a:bcde:214:4fff:fe0b:0 254.18.52.86
10 1::2:0:0:3:4 1::2:0:0:3:4 1::2:0:0:3:4 0.1.0.0
11 1:0:2:3:4:5:6:7 1:0:2:3:4:5:6:7 1:0:2:3:4:5:6:7 0.1.0.0
12 c0a8:117:: c0a8:117:: c0a8:117:: 192.168.1.23
13 7f00:1:: 7f00:1:: 7f00:1:: 127.0.0.1
<1 1 0><1 1 8><1 1 0>
";
    assert_eq!(out.stdout.trim_end_matches('\n'), expected.trim_end_matches('\n'), "{}", out.dump());
}

/// An address copied in from the traced process (DTrace's inet_ntoa_copyin test): copyin()
/// gives scratch memory the address functions read like kernel memory.
#[test]
fn inet_of_copied_in_addresses() {
    let out = run(&[
        "-q",
        "-e",
        r#"syscall::write:entry /pid == $target && arg2 == 16/ { printf("%s %s %s\n", inet_ntoa(copyin(arg1, 4)), inet_ntoa6(copyin(arg1, 16)), inet_ntop(10, copyin(arg1, 16))); }"#,
        "-c",
        r#"python3 -c 'import os; f = os.open("/dev/null", os.O_WRONLY); os.write(f, bytes.fromhex("c0a80117000000000000ffff7f000001")); os.write(f, bytes.fromhex("00000000000000000000ffff7f000001"))'"#,
    ]);
    out.assert_ok();
    assert_eq!(out.stdout, "192.168.1.23 c0a8:117::ffff:7f00:1 c0a8:117::ffff:7f00:1\n0.0.0.0 127.0.0.1 ::ffff:127.0.0.1\n\n", "{}", out.dump());
}

/// The addresses of a TCP socket changing state, from the tracepoint's record: a connect
/// to 127.0.0.1 (refused: nothing listens on port 1).
#[test]
fn inet_ntop_of_a_sockets_addresses() {
    let out = run(&[
        "-q",
        "-e",
        r#"tracepoint:sock:inet_sock_set_state /pid == $target && args->family == 2/ {
            printf("%s %s %s %d\n", inet_ntop(args->family, &args->saddr[0]), inet_ntop(args->family, &args->daddr), inet_ntoa(&args->daddr), args->dport);
        }"#,
        "-c",
        "bash -c 'echo > /dev/tcp/127.0.0.1/1' 2>/dev/null",
    ]);
    out.assert_ok();
    assert!(out.stdout.contains("127.0.0.1 127.0.0.1 127.0.0.1 1\n"), "{}", out.dump());
}

/// printf's %S escapes what is not printable, as DTrace's: C's letter escapes, `\"` and
/// `\\`, octal for the rest; width and precision apply to the escaped text.
#[test]
fn printf_percent_capital_s_escapes() {
    let p = r#"BEGIN { s = "tab\there \"q\" back\\slash\a\001"; printf("[%S] [%S] [%-6S] [%.3S] [%S]\n", s, "x y", "\n", "\\\\\\", execname); exit(0); }"#;
    assert_eq!(printed(p), r#"[tab\there \"q\" back\\slash\a\001] [x y] [\n    ] [\\\] [crumbs]"#.to_string() + "\n");
}

/// tracemem() prints DTrace's hex dump (dt_print_rawbytes()): a header of the columns,
/// then 16 bytes a line with their offset and as characters; dsize shows fewer, a
/// negative one all.
#[test]
fn tracemem_prints_dtraces_hex_dump() {
    let script = TempPath::with_contents(
        "tracemem.py",
        "import ctypes, struct\nlibc = ctypes.CDLL(None)\na, b, c = struct.unpack('<QQQ', b'hello, world\\x00\\x01\\x7f\\xffABCDEFGH')\nlibc.syscall(39, 0x1234, ctypes.c_ulong(a), ctypes.c_ulong(b), ctypes.c_ulong(c), 0, 0)\n",
    );
    let out = run(&[
        "-q",
        "-e",
        r#"tracepoint:raw_syscalls:sys_enter /pid == $target && args->id == 39 && args->args[0] == 0x1234/ { tracemem(&args->args[1], 24); tracemem(&args->args[1], 24, 5); tracemem(&args->args[1], 8, -1); printf("end\n"); }"#,
        "-c",
        &format!("python3 {}", script.str()),
    ]);
    out.assert_ok();
    let header = "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n";
    let expected = format!(
        "{header}         0: 68 65 6c 6c 6f 2c 20 77 6f 72 6c 64 00 01 7f ff  hello, world....\n        10: 41 42 43 44 45 46 47 48                          ABCDEFGH\n\
         {header}         0: 68 65 6c 6c 6f                                   hello\n\
         {header}         0: 68 65 6c 6c 6f 2c 20 77                          hello, w\nend\n\n"
    );
    assert_eq!(out.stdout, expected, "{}", out.dump());
}

#[test]
fn subroutine_errors() {
    assert_error_at(r#"BEGIN { trace(strchr("abc")); }"#, 15, "strchr() takes 2 arguments, but 1 given", "strchr(s, c)");
    assert_error_at(r#"BEGIN { trace(index("a", "b", 1, 2)); }"#, 15, "index() takes 2 or 3 arguments, but 4 given", "index(s, t [, start])");
    assert_error_at(r#"BEGIN { trace(rand(1)); }"#, 15, "rand() takes 0 arguments, but 1 given", "rand()");
    assert_error_at(r#"BEGIN { trace(strstr("abc", 1)); }"#, 29, "strstr() needs a string here, but this is an integer", "copyinstr");
    assert_error_at(r#"BEGIN { trace(strtok(1, ",")); }"#, 22, "strtok() needs a string here, but this is an integer", "copyinstr");
    assert_error_at(r#"BEGIN { trace(strchr("abc", "b")); }"#, 29, "strchr() needs an integer here, but this is a string", "strchr(s, c)");
    assert_error_at(r#"BEGIN { trace(lltostr("1")); }"#, 23, "lltostr() needs an integer here, but this is a string", "lltostr(n [, base])");
    assert_error_at(r#"BEGIN { trace(lltostr(1, 37)); }"#, 26, "lltostr() base 37 is out of range", "from 2 to 36");
    assert_error_at(r#"BEGIN { trace(lltostr(1, -1)); }"#, 26, "lltostr() base -1 is out of range", "from 2 to 36");
    assert_error_at(r#"BEGIN { trace(lltostr(1, "16")); }"#, 26, "lltostr() needs an integer here, but this is a string", "lltostr(n [, base])");
    assert_error_at(r#"BEGIN { trace(lltostr(1, 2, 3)); }"#, 15, "lltostr() takes 1 or 2 arguments, but 3 given", "lltostr(n [, base])");
    assert_error_at(r#"BEGIN { trace(progenyof(execname)); }"#, 25, "progenyof() needs an integer here, but this is a string", "progenyof(pid)");
    assert_error_at(r#"BEGIN { x = 1; trace(inet_ntoa6(0, x)); }"#, 36, "argument 2 of inet_ntoa6() must be a constant", "inet_ntoa6(addr [, strict])");
    assert_error_at(r#"BEGIN { trace(stroke("a", ",")); }"#, 15, "unknown function `stroke`", "strtok");
    assert_error_at(r#"BEGIN { x = 8; tracemem(curthread, x); }"#, 36, "tracemem() needs a constant size", "tracemem(addr, 64)");
    assert_error_at(r#"BEGIN { tracemem(curthread, 0); }"#, 29, "tracemem() size 0 is out of range", "1 to 16384");
    assert_error_at(r#"BEGIN { tracemem(curthread); }"#, 9, "tracemem() takes 2 or 3 arguments, but 1 given", "tracemem(addr, size [, dsize])");
}

/// Found by review: strtok() evaluates both arguments before it replaces its state (a
/// delimiter string made by another strtok() of another string), and tracemem() takes a
/// kernel char pointer as its address.
#[test]
fn strtok_arguments_first_and_tracemem_of_a_char_pointer() {
    let out = run(&["-q", "-e", r#"BEGIN { printf("[%s][%s][%s]\n", strtok("a,b", strtok("x,y", "y")), strtok(NULL, ","), strtok(NULL, ",")); exit(0); }"#]);
    out.assert_ok();
    assert_eq!(out.stdout, "[a][b][]\n\n", "{}", out.dump());
    let out = run(&["-q", "-e", r#"BEGIN { tracemem((char *)&curthread->comm, 16); exit(0); }"#]);
    out.assert_ok();
    assert!(out.stdout.contains("63 72 75 6d 62 73 00") && out.stdout.contains("crumbs"), "{}", out.dump());
}
