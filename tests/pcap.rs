//! `pcap(skb, protocol)` (spec §7.18): packets captured from the loopback device as the
//! test's own UDP datagrams leave, written to the capture file freopen() names, or shown
//! as hex dumps. Live: each program runs in the kernel.

mod common;

use common::{assert_compile_error as assert_error, run, TempPath};

/// Two datagrams to closed ports ("hi\n" to 9999, "yo\n" to 9998); bash writes them itself.
const SEND: &str = "bash -c 'echo hi > /dev/udp/127.0.0.1/9999; echo yo > /dev/udp/127.0.0.1/9998'";

/// The UDP packets the traced process queues on a device (not the ICMP errors the
/// kernel answers them with): byte 23 of an Ethernet frame is the IP protocol.
const UDP_OUT: &str = "tracepoint:net:net_dev_queue /pid == $target && *(uint8_t *)(((struct sk_buff *)args->skbaddr)->data + 23) == 17/";

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// A pcap file's records after its 24-byte header: each one's seconds and whole packet
/// (captured length = length), with no bytes left after the last.
fn records(d: &[u8]) -> Vec<(u32, Vec<u8>)> {
    let mut at = 24;
    let mut out = Vec::new();
    while at < d.len() {
        let (sec, caplen, len) = (u32_at(d, at), u32_at(d, at + 8) as usize, u32_at(d, at + 12) as usize);
        assert_eq!(caplen, len);
        out.push((sec, d[at + 16..at + 16 + caplen].to_vec()));
        at += 16 + caplen;
    }
    assert_eq!(at, d.len(), "no bytes after the last packet");
    out
}

#[test]
fn packets_go_to_the_capture_file_freopen_names() {
    let dir = TempPath::dir("pcap");
    let file = dir.path().join("out.pcap");
    let p = format!(r#"BEGIN {{ freopen("{}"); }} {UDP_OUT} {{ pcap(args->skbaddr, PCAP_ETHER); }} END {{ freopen(""); }}"#, file.display());
    let out = run(&["-w", "-q", "-e", &p, "-c", SEND]);
    out.assert_ok();
    let d = std::fs::read(&file).unwrap();
    // magic, version 2.4, zone, accuracy, snaplen 1514, Ethernet
    assert_eq!(&d[..24], [0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xea, 5, 0, 0, 1, 0, 0, 0], "{}", out.dump());
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    let packets: Vec<Vec<u8>> = records(&d)
        .into_iter()
        .map(|(sec, p)| {
            assert!((now - sec as i64).abs() < 120, "capture time {sec}, now {now}");
            p
        })
        .collect();
    assert_eq!(packets.len(), 2, "{}", out.dump());
    for (p, (port, text)) in packets.iter().zip([(9999u16, b"hi\n"), (9998, b"yo\n")]) {
        // Ethernet 14 + IPv4 20 + UDP 8 + the text; the UDP destination port at 36.
        assert_eq!(p.len(), 45);
        assert_eq!(&p[12..14], [8, 0], "an IPv4 frame");
        assert_eq!(u16::from_be_bytes([p[36], p[37]]), port);
        assert_eq!(&p[42..], text);
    }
}

/// Without a capture file a packet shows as tracemem() shows bytes.
#[test]
fn packets_show_as_hex_dumps_without_a_capture_file() {
    let p = format!("{UDP_OUT} {{ pcap(args->skbaddr, PCAP_ETHER); }} BEGIN {{ pcap(NULL, PCAP_IP); }}");
    let out = run(&["-q", "-e", &p, "-c", SEND]);
    out.assert_ok();
    let dumps: Vec<&str> = out.stdout.split("\n\n").filter(|s| s.contains("0123456789abcdef")).collect();
    assert_eq!(dumps.len(), 2, "{}", out.dump());
    for (dump, text) in dumps.iter().zip(["hi.", "yo."]) {
        let last = dump.lines().last().unwrap();
        assert!(last.trim_start().starts_with("20: ") && last.ends_with(text), "{}", out.dump());
    }
}

#[test]
fn pcap_errors() {
    assert_error("BEGIN { pcap(0); }", "pcap() takes 2 arguments, but 1 given", "usage: pcap(skb, protocol)");
    assert_error("BEGIN { pcap(0, \"x\"); }", "pcap()'s link type must be", "");
    assert_error("BEGIN { skboutput(1, 0, 10, 0); }", "skboutput() expects a string literal as the first argument", "name the capture file");
    assert_error("BEGIN { $o = 3; skboutput(\"a.pcap\", 0, 10, $o); }", "skboutput()'s offset must be a non-negative integer constant", "14 for an Ethernet header");
    assert_error("BEGIN { skboutput(\"a.pcap\", 0, 10); }", "skboutput() takes 4 arguments, but 3 given", "usage: skboutput(path, skb, length, offset)");
}

/// `pcapsize` bounds the bytes recorded, rounded up to whole 8 bytes; 0 or a size over
/// 65535 means the default, 1514 (DTrace on Linux's rules), by -x or pragma.
#[test]
fn pcapsize_bounds_the_bytes_recorded() {
    for (args, lines) in [(vec!["-x", "pcapsize=20"], 2), (vec!["-x", "pcapsize=70000"], 3)] {
        let p = format!("{UDP_OUT} {{ pcap(args->skbaddr, PCAP_ETHER); }}");
        let mut all = vec!["-q", "-e", &p, "-c", SEND];
        all.extend(args);
        let out = run(&all);
        out.assert_ok();
        let dumps: Vec<&str> = out.stdout.split("\n\n").filter(|s| s.contains("0123456789abcdef")).collect();
        assert_eq!(dumps.len(), 2, "{}", out.dump());
        // A header line, then one line per 16 bytes: 24 bytes are two, 45 three.
        assert!(dumps.iter().all(|d| d.trim_matches('\n').lines().count() == 1 + lines), "{}", out.dump());
    }
    let out = run(&["-q", "-e", &format!("#pragma D option pcapsize=8\n{UDP_OUT} {{ pcap(args->skbaddr, PCAP_ETHER); }}"), "-c", SEND]);
    out.assert_ok();
    assert_eq!(out.stdout.matches("\n         0: 00 00 00 00 00 00 00 00  ").count(), 2, "{}", out.dump());
}

/// bpftrace's `skboutput(path, skb, length, offset)` at a BTF tracepoint (tp_btf) whose
/// first argument is the sk_buff (this kernel's BTF does not name it): each packet appended to the capture file, raw IP (its Ethernet
/// header left out by the offset), and the call's value 0.
#[test]
fn skboutput_writes_raw_ip_capture_files() {
    let dir = TempPath::dir("skboutput");
    let file = dir.path().join("out.pcap");
    let p = format!(
        r#"rawtracepoint:net_dev_queue /pid == cpid && *(uint8 *)(((struct sk_buff *)arg0)->data + 23) == 17/ {{ $skb = (struct sk_buff *)arg0; $ret = skboutput("{}", $skb, $skb->len, 14); printf("skboutput returns %d\n", $ret); }}"#,
        file.display()
    );
    let out = run(&["--dialect", "bpftrace", "-q", "-e", &p, "-c", SEND]);
    out.assert_ok();
    assert_eq!(out.stdout, "skboutput returns 0\nskboutput returns 0\n\n\n", "{}", out.dump());
    let d = std::fs::read(&file).unwrap();
    // magic, version 2.4, zone, accuracy, snaplen 65535, raw IP (101)
    assert_eq!(&d[..24], [0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 101, 0, 0, 0], "{}", out.dump());
    let packets: Vec<Vec<u8>> = records(&d).into_iter().map(|(_, p)| p).collect();
    assert_eq!(packets.len(), 2, "{}", out.dump());
    for (p, (port, text)) in packets.iter().zip([(9999u16, b"hi\n"), (9998, b"yo\n")]) {
        // IPv4 20 + UDP 8 + the text; the UDP destination port at 22.
        assert_eq!(p.len(), 31);
        assert_eq!(p[0] >> 4, 4, "an IPv4 packet");
        assert_eq!(u16::from_be_bytes([p[22], p[23]]), port);
        assert_eq!(&p[28..], text);
    }
}
