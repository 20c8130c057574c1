//! Numbers and counts as the app writes them (issue 13, point 12): digits
//! grouped by thousands (`1,000,000`), and a count agreeing with its noun
//! (`1 event`, `2 events`).

/// `n` with its digits grouped by thousands: `1000000` → `1,000,000`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `n` and the noun for it: `1 event`, `2,000 events`.
pub fn count(n: u64, singular: &str, plural: &str) -> String {
    format!(
        "{} {}",
        thousands(n),
        if n == 1 { singular } else { plural }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(45_000), "45,000");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(123_456_789), "123,456,789");
    }

    #[test]
    fn a_count_agrees_with_its_noun() {
        assert_eq!(count(1, "event", "events"), "1 event");
        assert_eq!(count(0, "event", "events"), "0 events");
        assert_eq!(count(1_000_000, "event", "events"), "1,000,000 events");
    }
}
