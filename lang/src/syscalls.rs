//! The system call table (number <-> name) for the running architecture, from stdlib/.

use std::sync::OnceLock;

const X86_64: &str = include_str!("../../stdlib/syscalls-x86_64.tbl");

pub struct SyscallTable {
    by_nr: Vec<Option<&'static str>>,
}

impl SyscallTable {
    pub fn get() -> &'static SyscallTable {
        static T: OnceLock<SyscallTable> = OnceLock::new();
        T.get_or_init(|| {
            let mut by_nr = Vec::new();
            for line in X86_64.lines() {
                let mut w = line.split_whitespace();
                let (Some(nr), Some(name)) = (w.next(), w.next()) else { continue };
                let Ok(nr) = nr.parse::<usize>() else { continue };
                if by_nr.len() <= nr {
                    by_nr.resize(nr + 1, None);
                }
                by_nr[nr] = Some(name);
            }
            SyscallTable { by_nr }
        })
    }

    pub fn name(&self, nr: u32) -> Option<&'static str> {
        self.by_nr.get(nr as usize).copied().flatten()
    }

    pub fn number(&self, name: &str) -> Option<u32> {
        self.by_nr.iter().position(|n| *n == Some(name)).map(|i| i as u32)
    }

    /// The highest system call number the table names.
    pub fn highest(&self) -> u32 {
        self.by_nr.len().saturating_sub(1) as u32
    }

    /// All (number, name) pairs in number order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &'static str)> + '_ {
        self.by_nr.iter().enumerate().filter_map(|(i, n)| n.map(|n| (i as u32, n)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_read_and_clock_gettime() {
        let t = SyscallTable::get();
        assert_eq!(t.number("read"), Some(0));
        assert_eq!(t.name(228), Some("clock_gettime"));
        assert!(t.iter().count() > 300);
    }
}
