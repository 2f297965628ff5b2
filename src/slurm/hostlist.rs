//! Slurm hostlist expressions (`node[01-04,7],login1`, `rack[1-2]n[1-3]`) expanded into host
//! names, within a [`Budget`]: the names and bytes an expression would give are counted before any
//! is made, so `n[0-999999999]` or a 20 KB prefix repeated a million times is refused at once
//! instead of filling memory, and the work done is linear in the output allowed.

/// Most host names one hostlist expression may expand to.
pub const MAX_NAMES: usize = 1 << 20;
/// Most bytes of host names one hostlist expression may expand to (64 MiB).
pub const MAX_BYTES: usize = 64 << 20;
/// Most host names all the expressions of one file may expand to together.
pub const FILE_MAX_NAMES: usize = 1 << 23;
/// Most bytes of host names all the expressions of one file may expand to together (512 MiB).
pub const FILE_MAX_BYTES: usize = 512 << 20;

/// What expansions may still produce: one file's readers share one, so a file of many
/// expressions is bounded as a whole, not only each expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    /// Host names still allowed.
    pub names: usize,
    /// Bytes of host names still allowed.
    pub bytes: usize,
}

impl Budget {
    /// A whole file's allowance ([`FILE_MAX_NAMES`], [`FILE_MAX_BYTES`]).
    pub fn file() -> Budget {
        Budget {
            names: FILE_MAX_NAMES,
            bytes: FILE_MAX_BYTES,
        }
    }

    /// Takes `names` names of `bytes` bytes in all, or says which limit they pass (`expr`
    /// names the expression in the message).
    pub fn take(&mut self, names: usize, bytes: usize, expr: &str) -> Result<(), String> {
        let shown = shorten(expr);
        if names > MAX_NAMES || bytes > MAX_BYTES {
            return Err(format!(
                "`{shown}` expands to more than {MAX_NAMES} host names or {MAX_BYTES} bytes of them"
            ));
        }
        if names > self.names || bytes > self.bytes {
            return Err(format!(
                "`{shown}`: the file's hostlists expand to more than {FILE_MAX_NAMES} host names \
                 or {FILE_MAX_BYTES} bytes of them"
            ));
        }
        self.names -= names;
        self.bytes -= bytes;
        Ok(())
    }
}

/// An expression as an error shows it: at most 80 characters.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// One part of a host name pattern.
enum Part<'a> {
    /// Text as written.
    Text(&'a str),
    /// `[01-04,7]`: (first, last, zero-padded width) ranges.
    Ranges(Vec<(u64, u64, usize)>),
}

/// Expands a hostlist with a fresh budget of one expression.
pub fn expand_hostlist(s: &str) -> Result<Vec<String>, String> {
    expand_hostlist_within(s, &mut Budget::file())
}

/// Expands a hostlist, taking its names and bytes from `budget` before making any.
pub fn expand_hostlist_within(s: &str, budget: &mut Budget) -> Result<Vec<String>, String> {
    let items = split_items(s)?;
    let mut patterns = Vec::with_capacity(items.len());
    let (mut names, mut bytes) = (0usize, 0usize);
    for item in items {
        let parts = parse_item(item)?;
        let (n, b) = size(&parts);
        names = names.saturating_add(n);
        bytes = bytes.saturating_add(b);
        patterns.push(parts);
    }
    budget.take(names, bytes, s)?;
    let mut out = Vec::with_capacity(names);
    for parts in &patterns {
        emit(parts, &mut out);
    }
    Ok(out)
}

/// The comma-separated items at bracket depth 0, trimmed, empty ones left out.
fn split_items(s: &str) -> Result<Vec<&str>, String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        match b {
            b'[' if depth == 0 => depth = 1,
            b'[' => return Err(format!("`{}`: `[` inside `[...]`", shorten(s))),
            b']' if depth == 0 => return Err(format!("`{}`: `]` without `[`", shorten(s))),
            b']' => depth = 0,
            b',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(format!("`{}`: `[` without `]`", shorten(s)));
    }
    out.push(s[start..].trim());
    out.retain(|i| !i.is_empty());
    Ok(out)
}

/// `rack[1-2]n[01-03]` → its text and range parts (brackets are balanced: [`split_items`]).
fn parse_item(item: &str) -> Result<Vec<Part<'_>>, String> {
    let mut parts = Vec::new();
    let mut rest = item;
    while let Some(open) = rest.find('[') {
        let close = rest[open..].find(']').map_or(rest.len(), |c| c + open);
        if open > 0 {
            parts.push(Part::Text(&rest[..open]));
        }
        let mut ranges = Vec::new();
        for range in rest[open + 1..close].split(',') {
            let bad = || format!("`{}`: bad range `{range}`", shorten(item));
            let (lo, hi) = range.split_once('-').unwrap_or((range, range));
            let (lo, hi) = (lo.trim(), hi.trim());
            if lo.is_empty() || !lo.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            if hi.is_empty() || !hi.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            let a: u64 = lo.parse().map_err(|_| bad())?;
            let b: u64 = hi.parse().map_err(|_| bad())?;
            if b < a {
                return Err(bad());
            }
            ranges.push((a, b, lo.len()));
        }
        parts.push(Part::Ranges(ranges));
        rest = rest.get(close + 1..).unwrap_or("");
    }
    if !rest.is_empty() {
        parts.push(Part::Text(rest));
    }
    Ok(parts)
}

/// Decimal digits of `k` at least `width` wide.
fn digits(k: u64, width: usize) -> usize {
    let mut n = 1;
    let mut x = k;
    while x >= 10 {
        x /= 10;
        n += 1;
    }
    n.max(width)
}

/// How many names a pattern gives and an upper bound on their bytes (each range part counted
/// at its widest number), saturating.
fn size(parts: &[Part<'_>]) -> (usize, usize) {
    let (mut names, mut longest) = (1usize, 0usize);
    for p in parts {
        match p {
            Part::Text(t) => longest = longest.saturating_add(t.len()),
            Part::Ranges(rs) => {
                let count = rs.iter().fold(0usize, |acc, &(a, b, _)| {
                    let n = usize::try_from(b - a).map_or(usize::MAX, |n| n.saturating_add(1));
                    acc.saturating_add(n)
                });
                let widest = rs.iter().map(|&(_, b, w)| digits(b, w)).max().unwrap_or(0);
                names = names.saturating_mul(count);
                longest = longest.saturating_add(widest);
            }
        }
    }
    (names, names.saturating_mul(longest))
}

/// Appends every name of the pattern, in order (the first range part varies slowest): an
/// odometer over the range parts, so deep patterns need no recursion.
fn emit(parts: &[Part<'_>], out: &mut Vec<String>) {
    use std::fmt::Write;
    // For each range part: (which range, the number in it).
    let mut state: Vec<(usize, u64)> = parts
        .iter()
        .filter_map(|p| match p {
            Part::Ranges(rs) => rs.first().map(|&(a, _, _)| (0, a)),
            Part::Text(_) => None,
        })
        .collect();
    let ranges: Vec<&Vec<(u64, u64, usize)>> = parts
        .iter()
        .filter_map(|p| match p {
            Part::Ranges(rs) => Some(rs),
            Part::Text(_) => None,
        })
        .collect();
    if ranges.iter().any(|rs| rs.is_empty()) {
        return;
    }
    loop {
        let mut name = String::new();
        let mut r = 0;
        for p in parts {
            match p {
                Part::Text(t) => name.push_str(t),
                Part::Ranges(rs) => {
                    let (i, k) = state[r];
                    let width = rs[i].2;
                    let _ = write!(name, "{k:0width$}");
                    r += 1;
                }
            }
        }
        out.push(name);
        // Advance the last range part first.
        let mut d = state.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            let (i, k) = state[d];
            let rs = ranges[d];
            if k < rs[i].1 {
                state[d] = (i, k + 1);
                break;
            }
            if i + 1 < rs.len() {
                state[d] = (i + 1, rs[i + 1].0);
                break;
            }
            state[d] = (0, rs[0].0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn expands_ranges_lists_and_several_brackets() {
        assert_eq!(
            expand_hostlist("n[01-03,7],login").unwrap(),
            ["n01", "n02", "n03", "n7", "login"]
        );
        assert_eq!(
            expand_hostlist("r[1-2]n[8-9]x").unwrap(),
            ["r1n8x", "r1n9x", "r2n8x", "r2n9x"]
        );
        assert_eq!(expand_hostlist(" a , ,b").unwrap(), ["a", "b"]);
        for bad in ["n[1-", "n]", "n[[1]]", "n[2-1]", "n[a-b]", "n[-3]", "n[1-]"] {
            assert!(expand_hostlist(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn refuses_too_many_names_or_bytes_before_making_any() {
        let e = expand_hostlist("n[0-999999999]").unwrap_err();
        assert!(e.contains("more than 1048576 host names"), "{e}");
        // A million names of 20 KB each: 20 GB, refused by bytes though the count fits.
        let long = format!("{}[1-1048575]", "x".repeat(20_000));
        let e = expand_hostlist(&long).unwrap_err();
        assert!(e.contains("67108864 bytes") && e.len() < 400, "{e}");
        // Products of brackets are counted too.
        assert!(expand_hostlist("a[1-100000]b[1-100000]").is_err());
        // The budget is shared: a file's second expression sees what the first took.
        let mut b = Budget {
            names: 3,
            bytes: 100,
        };
        assert_eq!(expand_hostlist_within("n[1-2]", &mut b).unwrap().len(), 2);
        assert!(expand_hostlist_within("n[1-2]", &mut b).is_err());
        assert_eq!(b.names, 1);
    }

    /// Adversarial hostlists: whatever the expression, the output never passes what the budget
    /// took, and the budget never takes more than the limits; bytes are within the bound.
    fn expression() -> impl Strategy<Value = String> {
        let part = prop_oneof![
            "[a-z]{0,40}".prop_map(|s| s),
            (0u64..2000, 0u64..3000, 0usize..6)
                .prop_map(|(a, n, w)| format!("[{a:0w$}-{}]", a + n)),
            (0u64..u64::MAX / 2).prop_map(|a| format!("[{a}-{}]", a.saturating_mul(2))),
            Just(",".to_string()),
            Just("[".to_string()),
            Just("]".to_string()),
        ];
        proptest::collection::vec(part, 0..6).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn output_is_bounded_by_what_the_budget_took(s in expression(), names in 0usize..20_000, bytes in 0usize..400_000) {
            let mut budget = Budget { names, bytes };
            if let Ok(out) = expand_hostlist_within(&s, &mut budget) {
                let made = out.len();
                let made_bytes: usize = out.iter().map(String::len).sum();
                prop_assert!(made <= names && made == names - budget.names);
                prop_assert!(made_bytes <= bytes - budget.bytes);
                prop_assert!(made <= MAX_NAMES && made_bytes <= MAX_BYTES);
            }
        }
    }
}
