//! The server's bridge to the formula engine (`crate::formula`): validating a formula against
//! the known keywords and the home's resource definitions, and the built-in resource list.
//!
//! INTERIM: `crate::formula` has not landed on main yet. Until it does, every formula is refused
//! with PBS's internal-error code (never accepted unchecked) and no built-in resources are known.

use super::state::ServerState;

/// Why a formula was refused: PBS's code and message, and fairsort's caret lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormulaProblem {
    /// 15123 (syntax), 15124 (unknown keyword), 15125 (non-numeric resource), ...
    pub code: u32,
    /// PBS's message for the code.
    pub message: String,
    /// The formula with a caret under the problem.
    pub detail: String,
}

/// Validates `src` as PBS does before storing it; returns the keywords it uses.
pub fn check_formula(src: &str, state: &ServerState) -> Result<Vec<String>, FormulaProblem> {
    let _ = (src, state);
    Err(FormulaProblem {
        code: 15011,
        message: "PBS server internal error".to_string(),
        detail: "fairsort: this build has no formula engine yet (crate::formula not merged)"
            .to_string(),
    })
}

/// True for PBS's built-in resources.
pub fn is_builtin_resource(name: &str) -> bool {
    builtin_resources().iter().any(|(n, _)| n == name)
}

/// PBS's built-in resources as (name, type name).
pub fn builtin_resources() -> Vec<(String, String)> {
    Vec::new()
}
