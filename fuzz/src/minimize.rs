//! Shrinks a failing input while it still fails the same way: remove chunks of characters,
//! halving the chunk size (delta debugging without the complements), within a time budget.
//! The result is small enough to read, not necessarily minimal.

use std::time::Instant;

pub fn minimize(input: &str, deadline: Instant, still_fails: &mut dyn FnMut(&str) -> bool) -> String {
    let mut chars: Vec<char> = input.chars().collect();
    let mut chunk = chars.len() / 2;
    while chunk > 0 {
        let mut at = 0;
        while at < chars.len() {
            if Instant::now() >= deadline {
                return chars.into_iter().collect();
            }
            let end = (at + chunk).min(chars.len());
            let candidate: String = chars[..at].iter().chain(&chars[end..]).collect();
            if still_fails(&candidate) {
                chars.drain(at..end);
            } else {
                at += chunk;
            }
        }
        chunk /= 2;
    }
    chars.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn keeps_what_matters() {
        let far = Instant::now() + Duration::from_secs(60);
        let got = minimize("BEGIN { printf(\"%£\", 1); x = 2; }", far, &mut |s| s.contains("%£"));
        assert_eq!(got, "%£");
        let got = minimize("a(((((b)))))c", far, &mut |s| s.matches('(').count() >= 3);
        assert_eq!(got, "(((");
    }
}
