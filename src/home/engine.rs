//! The home's bridge to the formula engine (`crate::formula`): validating a formula against
//! the known keywords and a home's resources (`HomeState::resource_table`).

use crate::formula::{compile, ResourceTable};
use crate::pbs::defs::codes;

/// Why a formula was refused: PBS's code and message, and fairsort's caret lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormulaProblem {
    /// 15123 (syntax), 15124 (unknown keyword), 15125 (non-numeric resource).
    pub code: u32,
    /// PBS's message for the code.
    pub message: String,
    /// The formula engine's explanation with a caret under the problem.
    pub detail: String,
}

/// Whether a `job_sort_formula` is `""`, an empty Python string: PBS's server accepts and
/// stores it (and its scheduler cannot use it, `crate::formula::pbs_hazards`); fairsort stores
/// it as PBS does, and refuses it only where a job is to be sorted by it.
pub(crate) fn is_empty_string_formula(src: &str) -> bool {
    src.trim() == "\"\""
}

/// The names of `src` that the server's validation does not reach and a job would fail on
/// (unknown names, string or boolean resources); empty when the formula does not validate.
pub(crate) fn unreached_names(src: &str, table: &ResourceTable) -> Vec<String> {
    crate::formula::parse(src)
        .ok()
        .and_then(|expr| crate::formula::validate::check(src, &expr, table).ok())
        .map(|c| c.warnings.into_iter().map(|w| w.name).collect())
        .unwrap_or_default()
}

/// Validates `src` as PBS does before storing it; returns the keywords it uses. Problems the
/// engine has no PBS code for (length or nesting limits) are reported as 15123, as PBS would
/// refuse such a formula as malformed.
pub(crate) fn check_formula(
    src: &str,
    table: &ResourceTable,
) -> Result<Vec<String>, FormulaProblem> {
    match compile(src, table) {
        Ok(program) => Ok(program.keywords().to_vec()),
        Err(e) => {
            let pbs = e.pbs_code().unwrap_or(codes::BAD_FORMULA);
            Err(FormulaProblem {
                code: pbs.number,
                message: pbs.message.to_string(),
                detail: e.render(src),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::state::{HomeState, ResourceDef};

    #[test]
    fn pbs_codes_for_bad_formulas() {
        let mut st = HomeState::initial("alice");
        assert!(check_formula(
            "pow(2, -(fairshare_tree_usage/fairshare_perc))",
            &st.resource_table()
        )
        .is_ok());
        assert_eq!(
            check_formula("fair_share_factor", &st.resource_table())
                .unwrap_err()
                .code,
            15124
        );
        assert_eq!(
            check_formula("ncpus *", &st.resource_table())
                .unwrap_err()
                .code,
            15123
        );
        st.resources.insert(
            "s".into(),
            ResourceDef {
                kind: "string".into(),
                flag: None,
            },
        );
        st.resources.insert(
            "foo".into(),
            ResourceDef {
                kind: "float".into(),
                flag: None,
            },
        );
        let p = check_formula("s", &st.resource_table()).unwrap_err();
        assert_eq!(
            (p.code, p.message.as_str()),
            (15125, "Formula contains a resource of an invalid type")
        );
        assert!(check_formula("foo * 2", &st.resource_table())
            .unwrap()
            .contains(&"foo".to_string()));
    }
}
