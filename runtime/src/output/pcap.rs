//! Capture files for `pcap()`: libpcap's classic format (a 24-byte file header, then a
//! 16-byte header before each packet), one file per name `freopen()` gave, created afresh
//! as DTrace's pcap_dump_open() does. Written here rather than with a crate: the format is
//! two fixed little headers, and crumbs only writes it.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};

const MAGIC: u32 = 0xa1b2_c3d4;

#[derive(Default)]
pub struct PcapFiles {
    /// By name: the file and its link type (every packet in one file has the same).
    open: HashMap<String, (BufWriter<File>, i64)>,
    /// What turns a probe's CLOCK_MONOTONIC time into the time of day, taken once.
    wall_offset: Option<i64>,
}

impl PcapFiles {
    /// Appends a packet captured at `monotonic_ns` (CLOCK_MONOTONIC, as the probe read it)
    /// whose first `bytes` were kept of `bytes.len()`; `snaplen` is the most any packet
    /// keeps. A packet of another link type than the file's is an error.
    pub fn write(&mut self, path: &str, linktype: i64, monotonic_ns: u64, bytes: &[u8], snaplen: u32) -> io::Result<()> {
        if !self.open.contains_key(path) {
            let mut f = BufWriter::new(File::create(path)?);
            // magic, version 2.4 (two u16s), time zone, accuracy, snaplen, link type.
            for v in [MAGIC, 2 | 4 << 16, 0, 0, snaplen, linktype as u32] {
                f.write_all(&v.to_le_bytes())?;
            }
            self.open.insert(path.to_string(), (f, linktype));
        }
        let (f, kind) = self.open.get_mut(path).expect("opened above");
        if *kind != linktype {
            return Err(io::Error::other(format!("pcap() of link type {linktype} into a capture file of link type {kind}")));
        }
        let offset = *self.wall_offset.get_or_insert_with(crate::kernel::codegen::wall_offset);
        let wall = monotonic_ns as i128 + offset as i128;
        let (sec, usec) = ((wall / 1_000_000_000) as u32, ((wall % 1_000_000_000) / 1000) as u32);
        for v in [sec, usec, bytes.len() as u32, bytes.len() as u32] {
            f.write_all(&v.to_le_bytes())?;
        }
        f.write_all(bytes)
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.open.values_mut().try_for_each(|(f, _)| f.flush())
    }
}
