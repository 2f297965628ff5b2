//! Gauge sample lines written straight into a buffer, byte for byte what `prometheus-client`'s
//! Prometheus text encoder writes for the same name, labels and value (its label escaping,
//! dtoa's shortest digits, `+Inf`/`-Inf`/`NaN`), for the per-association families, whose
//! million rows the crate's encoder takes about five times longer to write
//! (`cargo bench --bench metrics`). The crate still writes every descriptor and every other
//! family, and the tests hold this writer to its bytes.

/// Appends the label value `v` as the text format quotes it: `\`, `"` and a newline escaped.
fn label_value(out: &mut Vec<u8>, v: &str) {
    let bytes = v.as_bytes();
    if !bytes.iter().any(|b| matches!(b, b'\\' | b'"' | b'\n')) {
        out.extend_from_slice(bytes);
        return;
    }
    for &b in bytes {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\n' => out.extend_from_slice(b"\\n"),
            b => out.push(b),
        }
    }
}

/// Appends one gauge sample, `name{k="v",...} value` and a newline; no braces when there is
/// no label.
pub(crate) fn gauge(out: &mut Vec<u8>, name: &str, labels: &[(&str, &str)], v: f64) {
    out.extend_from_slice(name.as_bytes());
    for (i, (k, val)) in labels.iter().enumerate() {
        out.extend_from_slice(if i == 0 { b"{" } else { b"," });
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(b"=\"");
        label_value(out, val);
        out.push(b'"');
    }
    if !labels.is_empty() {
        out.push(b'}');
    }
    out.push(b' ');
    if v.is_finite() {
        out.extend_from_slice(dtoa::Buffer::new().format_finite(v).as_bytes());
    } else if v.is_nan() {
        out.extend_from_slice(b"NaN");
    } else if v > 0.0 {
        out.extend_from_slice(b"+Inf");
    } else {
        out.extend_from_slice(b"-Inf");
    }
    out.push(b'\n');
}
