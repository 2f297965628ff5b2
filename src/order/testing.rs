//! Test helpers: a `SortFormula` from a Rust closure, so binding and ordering can be checked
//! against the reference vectors independently of the formula engine.

use crate::order::formula_api::SortFormula;

/// A formula given as keywords and a closure over their slot values.
pub struct ClosureFormula<F: Fn(&[f64]) -> Result<f64, String>> {
    pub text: String,
    pub keywords: Vec<String>,
    pub f: F,
}

impl<F: Fn(&[f64]) -> Result<f64, String>> ClosureFormula<F> {
    /// A formula over `keywords`.
    pub fn new(text: &str, keywords: &[&str], f: F) -> Self {
        ClosureFormula {
            text: text.to_string(),
            keywords: keywords.iter().map(|k| k.to_string()).collect(),
            f,
        }
    }
}

impl<F: Fn(&[f64]) -> Result<f64, String> + Sync> SortFormula for ClosureFormula<F> {
    fn source(&self) -> &str {
        &self.text
    }
    fn keywords(&self) -> &[String] {
        &self.keywords
    }
    fn evaluate(&self, slots: &[f64]) -> Result<f64, String> {
        (self.f)(slots)
    }
}

/// The share tree of openpbs.md §4.1 (pbs_fairshare.py): group1 (pbsuser, pbsuser1),
/// group2 (pbsuser2, pbsuser3), usage 100/100/1/1000, `unknown_shares` 0.
pub(crate) fn pbs_4_1_tree() -> crate::fairshare::Tree {
    use crate::fairshare::{NodeKind, NodeSpec, Shares, Tree, TreeSource, TreeSpec};
    let n = |name: &str, parent: Option<&str>, kind, shares, usage: Option<f64>| {
        let mut s = NodeSpec::new(
            name,
            parent.map(str::to_string),
            kind,
            Shares::Count(shares),
        );
        s.usage = usage;
        s
    };
    let spec = TreeSpec {
        source: TreeSource::Pbs,
        root_name: "TREEROOT".into(),
        root_usage: None,
        unknown_shares: Some(0),
        nodes: vec![
            n("group1", None, NodeKind::Account, 40, None),
            n("group2", None, NodeKind::Account, 60, None),
            n("pbsuser", Some("group1"), NodeKind::User, 50, Some(100.0)),
            n("pbsuser1", Some("group1"), NodeKind::User, 50, Some(100.0)),
            n("pbsuser2", Some("group2"), NodeKind::User, 60, Some(1.0)),
            n("pbsuser3", Some("group2"), NodeKind::User, 40, Some(1000.0)),
        ],
    };
    match Tree::build(spec) {
        Ok(t) => t,
        Err(e) => panic!("test tree: {e}"),
    }
}
