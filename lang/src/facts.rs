//! What the checker needs to know of the running kernel, asked through one interface: lang
//! never touches the kernel. The runtime answers from the machine (runtime/src/kernel); unit
//! tests and the fuzzer answer with fixed facts, so they see the same kernel everywhere.
//! (BTF types, function prototypes and symbols join the tracepoints here as the language
//! needs them.)

use std::cell::OnceCell;
use std::rc::Rc;

/// Every (category, event) pair of the kernel's tracepoints, or why they cannot be listed.
pub type Listing = Result<Rc<[(String, String)]>, String>;

pub trait KernelFacts: std::fmt::Debug {
    /// Every tracepoint, as (category, event).
    fn tracepoints(&self) -> Listing;
    /// The text of a tracepoint's `format` file.
    fn tracepoint_format(&self, category: &str, event: &str) -> Result<String, String>;
}

/// Facts that list the tracepoints of the ones they wrap at most once: listing tracefs reads
/// thousands of directories, and a program may name tracepoints in a thousand clauses.
#[derive(Debug)]
pub struct Memo {
    inner: Rc<dyn KernelFacts>,
    tracepoints: OnceCell<Listing>,
}

impl Memo {
    pub fn new(inner: Rc<dyn KernelFacts>) -> Memo {
        Memo { inner, tracepoints: OnceCell::new() }
    }
}

impl KernelFacts for Memo {
    fn tracepoints(&self) -> Listing {
        self.tracepoints.get_or_init(|| self.inner.tracepoints()).clone()
    }

    fn tracepoint_format(&self, category: &str, event: &str) -> Result<String, String> {
        self.inner.tracepoint_format(category, event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default)]
    struct Counting(std::cell::Cell<usize>);

    impl KernelFacts for Counting {
        fn tracepoints(&self) -> Listing {
            self.0.set(self.0.get() + 1);
            Ok(vec![("sched".to_string(), "sched_switch".to_string())].into())
        }
        fn tracepoint_format(&self, _: &str, _: &str) -> Result<String, String> {
            Ok(String::new())
        }
    }

    #[test]
    fn memo_lists_once() {
        let inner = Rc::new(Counting::default());
        let memo = Memo::new(inner.clone());
        for _ in 0..3 {
            assert_eq!(memo.tracepoints().unwrap().len(), 1);
        }
        assert_eq!(inner.0.get(), 1);
    }
}
