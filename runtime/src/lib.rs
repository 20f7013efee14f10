//! The crumbs runtime: load and attach with aya, stream events, read aggregations, print.
//!
//! [`session::run`] drives a whole session; [`output`] holds DTrace's text layouts.

pub mod actions;
pub mod aggregate;
mod attach;
mod build_ids;
/// Kernel features turned off for the process (bpftrace's `--no-feature`).
pub use attach::features;
pub mod driver;
pub mod drops;
pub mod events;
pub mod kernel;
pub mod output;
pub mod process;
mod progress;
pub mod session;
pub mod stacks;
pub mod stop;
pub mod sys;
pub mod table;
pub mod ustacks;
pub mod value_maps;
pub mod verify;
