//! The checks every usage value and name passes (readers, the store, the ledger, `usage set`).

/// Checks a usage value: finite and not negative (what every reader and `usage set` demand).
pub fn check_usage(v: f64) -> Result<(), String> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(format!("usage must be a finite number >= 0, got {v}"))
    }
}

/// Checks an entity, user or account name: not empty, no control characters, at most
/// [`MAX_NAME_BYTES`] bytes.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("empty name".to_string());
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(format!(
            "name {name:?} contains the control character {c:?}"
        ));
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(format!(
            "name is {} bytes long; at most {MAX_NAME_BYTES}",
            name.len()
        ));
    }
    Ok(())
}

/// Longest entity, user or account name, in bytes.
pub const MAX_NAME_BYTES: usize = 1024;
