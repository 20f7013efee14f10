//! bpftrace's iterator probes (`iter:task`, ...): a program with one has no other probe
//! (BEGIN and END aside), as in bpftrace, since reading the iterator is the whole of its
//! tracing; and `ctx.NAME` (bpftrace's name for the iterator's context) reads `args.NAME`.

use super::*;

impl Checker<'_> {
    /// Whether every probe of the clause being checked is an iterator.
    pub(super) fn clause_on_iter(&self) -> bool {
        !self.clause_probes.is_empty() && self.clause_probes.iter().all(|p| matches!(p.attach, AttachPoint::Iter(..)))
    }

    /// A pinned iterator's output items (`items`, of the statement at `span`): printf()s the
    /// kernel can format itself (bpf_seq_printf, [`crate::seq_printf`]), as crumbs has
    /// exited when the pin is read; anything else is an error.
    pub(super) fn pinned_output(&self, items: &[Item], span: &Span) -> Result<(), Diagnostic> {
        let Some(pin) = self.clause_probes.iter().find_map(|p| match p.attach {
            AttachPoint::Iter(_, pin) => pin,
            _ => None,
        }) else {
            return Ok(());
        };
        let hint = format!("crumbs has exited when {pin} is read, so the kernel writes the text: printf() of integers and strings alone");
        for item in items {
            let Item::Printf { pieces, args } = item else {
                return Err(Diagnostic::new(span.clone(), "a pinned iterator prints with printf() alone").label("output crumbs would print").hint(hint));
            };
            if let Err(why) = crate::seq_printf::format(pieces, args) {
                return Err(Diagnostic::new(span.clone(), format!("printf() in a pinned iterator: {why}")).label("not for the kernel's bpf_seq_printf").hint(hint));
            }
        }
        Ok(())
    }
}

/// An iterator among other probes (BEGIN, END and ERROR aside), or two iterators (two
/// clauses on one included): bpftrace's error, at the last of them.
pub(super) fn alone(groups: &BTreeMap<AttachPoint, Vec<Clause>>) -> Result<(), Diagnostic> {
    let special = |a: &AttachPoint| matches!(a, AttachPoint::Begin | AttachPoint::End | AttachPoint::Error);
    let iters: Vec<(&AttachPoint, &Vec<Clause>)> = groups.iter().filter(|(a, _)| matches!(a, AttachPoint::Iter(..))).collect();
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
