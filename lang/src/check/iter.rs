//! bpftrace's iterator probes (`iter:task`, ...): a program with one has no other probe
//! (BEGIN and END aside), as in bpftrace, since reading the iterator is the whole of its
//! tracing; and `ctx.NAME` (bpftrace's name for the iterator's context) reads `args.NAME`.

use super::*;

impl Checker<'_> {
    /// Whether every probe of the clause being checked is an iterator.
    pub(super) fn clause_on_iter(&self) -> bool {
        !self.clause_probes.is_empty() && self.clause_probes.iter().all(|p| matches!(p.attach, AttachPoint::Iter(_)))
    }
}

/// An iterator among other probes (BEGIN, END and ERROR aside), or two iterators (two
/// clauses on one included): bpftrace's error, at the last of them.
pub(super) fn alone(groups: &BTreeMap<AttachPoint, Vec<Clause>>) -> Result<(), Diagnostic> {
    let special = |a: &AttachPoint| matches!(a, AttachPoint::Begin | AttachPoint::End | AttachPoint::Error);
    let iters: Vec<(&AttachPoint, &Vec<Clause>)> = groups.iter().filter(|(a, _)| matches!(a, AttachPoint::Iter(_))).collect();
    let Some((_, clauses)) = iters.first() else { return Ok(()) };
    // Each clause is a probe of its own, as bpftrace counts them: two clauses on one
    // iterator are two.
    let others: usize = groups.iter().filter(|(a, _)| !special(a)).map(|(_, c)| c.len()).sum();
    if others > 1 {
        let span = groups.iter().filter(|(a, _)| !special(a)).flat_map(|(_, c)| c).map(|c| c.span.clone()).max_by_key(|s| s.start).unwrap_or_else(|| clauses[0].span.clone());
        return Err(Diagnostic::new(span, "Iterator probe cannot be used with other probes")
            .label("another probe")
            .hint("an iterator is read once and tracing ends: run it alone (BEGIN and END may stay)"));
    }
    Ok(())
}
