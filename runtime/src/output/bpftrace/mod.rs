//! bpftrace 0.17's text output, byte for byte: maps and aggregations as it prints them at
//! exit and for `print(@m)` ([`maps`], with its [`hist`] tables and [`keys`]), and the
//! sink of the bpftrace dialect ([`text`]); and its JSON output (`-f json`): the records
//! ([`records`]) and their sink ([`json`]). Pure functions, values in, text out; every
//! expected string in the tests was checked against the real bpftrace 0.17.
//!
//! Names are given without the `@` (as `crumbs_lang::ir::Aggregation::name` has them,
//! `""` for the map `@`) and printed with it.
//!
//! At exit bpftrace prints two newlines (always, even with `-q` and with no maps:
//! [`AT_EXIT`]), then every map, sorted by name, each as [`maps`] says.

pub mod args;
pub mod every;
pub mod hist;
pub mod json;
pub mod keys;
pub mod maps;
pub mod records;
pub mod structs;
pub mod text;
pub mod tseries;

pub use maps::{print_aggregation, print_stats, print_value_map, AggMap, Limits};
pub use json::BpftraceJson;
pub use text::{BpftraceText, ValueMap};

/// What bpftrace prints when tracing ends, before the maps.
pub const AT_EXIT: &str = "\n\n";

/// A writer tests read back after the sink that wrote it is gone (a sink may hold two:
/// its output and the console).
#[cfg(test)]
pub(crate) mod shared {
    use std::cell::RefCell;
    use std::io::{self, Write};
    use std::rc::Rc;

    #[derive(Clone, Default)]
    pub struct Shared(Rc<RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        pub fn text(&self) -> String {
            String::from_utf8(self.0.borrow().clone()).unwrap()
        }
    }
}
