//! Where each record of a JSON document starts: the 1-based line of every element of a
//! top-level list (`jobs` of `squeue --json` or `flux jobs --json`, `nodes` of `sinfo --json`), found in one pass over
//! the bytes, so a reader that parsed the document with serde (which keeps no positions) can name
//! the line of the record it refuses. Only asked for when there is something to report.

/// The line each element of the top-level object's `key` list starts on; empty when the
/// document has no such list (or is not JSON: the parser has said so already).
pub fn element_lines(bytes: &[u8], key: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut line = 1usize;
    // Depth of objects and arrays; the last string read at depth 1 (a key of the top object).
    let mut depth = 0usize;
    let mut last_key: Option<(usize, usize)> = None;
    // Depth of the list we are in (2 inside the wanted list), and whether an element may start.
    let mut in_list = false;
    let mut expect_element = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\n' => line += 1,
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    } else if bytes[i] == b'\n' {
                        line += 1;
                    }
                    i += 1;
                }
                if in_list && depth == 2 && expect_element {
                    out.push(line);
                    expect_element = false;
                }
                if depth == 1 {
                    last_key = Some((start, i.min(bytes.len())));
                }
            }
            b'{' | b'[' => {
                if in_list && depth == 2 && expect_element {
                    out.push(line);
                    expect_element = false;
                }
                depth += 1;
                if b == b'[' && depth == 2 {
                    let named = last_key.is_some_and(|(s, e)| &bytes[s..e] == key.as_bytes());
                    if named && !in_list {
                        in_list = true;
                        expect_element = true;
                    }
                }
            }
            b'}' | b']' => {
                if depth == 2 && in_list {
                    return out;
                }
                depth = depth.saturating_sub(1);
            }
            b',' if in_list && depth == 2 => expect_element = true,
            b' ' | b'\t' | b'\r' | b':' | b',' => {}
            _ => {
                if in_list && depth == 2 && expect_element {
                    out.push(line);
                    expect_element = false;
                }
            }
        }
        i += 1;
    }
    out
}

/// The line of element `index` (0-based) of `key`'s list, 1 when it cannot be found.
pub fn element_line(bytes: &[u8], key: &str, index: usize) -> usize {
    element_lines(bytes, key).get(index).copied().unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_each_element_of_the_named_list() {
        let doc = b"{\"meta\": {\"jobs\": [1]},\n \"jobs\": [\n {\"a\": \"x\\\"\ny\"},\n\n {\"b\": [1,\n2]}, 7\n]}";
        assert_eq!(element_lines(doc, "jobs"), [3, 6, 7]);
        assert_eq!(element_lines(doc, "nodes"), Vec::<usize>::new());
        assert_eq!(element_line(doc, "jobs", 9), 1);
        assert_eq!(element_lines(b"{\"jobs\":[]}", "jobs"), Vec::<usize>::new());
    }
}
