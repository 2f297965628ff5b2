//! Slurm `PriorityFlags=DEPTH_OBLIVIOUS` (seed 000, slurm.md §2), in its steady state: the
//! effective usage ratio R = R_parent · r_l^k with r_l = (U/S) / (Σ sibling U_N / S_parent),
//! k = 1/(1 + (5 ln R_parent)²) when the parent and the node lean opposite ways, else 1;
//! U_E = R · S and F = 2^(-R/d) as in classic.
//!
//! Slurm recomputes the sibling sum for every node (O(Σ siblings²): 6.8 s for 100k users in 10
//! accounts) and reads siblings' *stored* usage, which is stale or NO_VAL on the first pass
//! after a restart. Here each fs parent's sum is computed once from fresh values (O(n)), which
//! is what Slurm converges to after two cycles (slurm.md Table 5, "steady state").

use crate::fairshare::slurm::classic;
use crate::fairshare::slurm::links::Links;
use crate::fairshare::{Algorithm, ShareResult, Tree};

/// Slurm's hard-coded `f` ("FIXME: could be a tunable").
const F: f64 = 5.0;

/// The intermediate numbers of one association, for `--explain`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Step {
    /// U_E(fs parent) / S(fs parent).
    pub r_p: f64,
    /// Σ U_N over the fs parent's non-`parent` children / S(fs parent).
    pub r_s: f64,
    /// (U/S) / r_s.
    pub r_l: f64,
    /// The exponent k.
    pub k: f64,
}

/// One node's step, or None where Slurm falls back to U_E = U (zero usage, zero shares, a
/// parent without usage).
pub(crate) fn step(s: f64, s_p: f64, ue_p: f64, u: f64, sibling_usage: f64) -> Option<Step> {
    if s == 0.0 || s_p == 0.0 || ue_p == 0.0 || u == 0.0 {
        return None;
    }
    let r_p = ue_p / s_p;
    Some(step_with(s, s_p, r_p, r_p.ln(), u, sibling_usage))
}

/// The step once the parent's r_p and ln(r_p) are known (they are shared by all siblings, so
/// the pass takes one logarithm per account, not per user). ln(r_p)·ln(r_l) >= 0 is decided
/// by the signs of r_p − 1 and r_l − 1, which are those of the logarithms for positive values.
fn step_with(s: f64, s_p: f64, r_p: f64, ln_r_p: f64, u: f64, sibling_usage: f64) -> Step {
    let r_s = sibling_usage / s_p;
    let r_l = (u / s) / r_s;
    let same_side = (r_p - 1.0) * (r_l - 1.0) >= 0.0;
    let k = if r_p == 0.0 || r_l == 0.0 || same_side {
        1.0
    } else {
        let x = F * ln_r_p;
        1.0 / (1.0 + x * x)
    };
    Step { r_p, r_s, r_l, k }
}

/// Σ U_N over each node's fs children that are not `parent` (indexed by the parent).
pub(crate) fn sibling_usage(links: &Links) -> Vec<f64> {
    let mut sum = vec![0.0; links.len()];
    for id in 1..links.len() {
        if !links.is_parent[id] {
            sum[links.fs_parent[id]] += links.usage_norm[id];
        }
    }
    sum
}

/// Effective usage top-down (`_set_assoc_usage_efctv` with the depth-oblivious rule).
pub(crate) fn effective_usage(links: &Links, s: &[f64]) -> Vec<f64> {
    let sums = sibling_usage(links);
    // ln(r_p) of each fs parent, taken when its first child needs it (once per account).
    let mut ln_r: Vec<Option<f64>> = vec![None; links.len()];
    classic::effective_usage_by(links, |id, fp, u, ue| {
        if s[id] == 0.0 || s[fp] == 0.0 || ue[fp] == 0.0 || u == 0.0 {
            return u;
        }
        let r_p = ue[fp] / s[fp];
        let ln_r_p = *ln_r[fp].get_or_insert_with(|| r_p.ln());
        let st = step_with(s[id], s[fp], r_p, ln_r_p, u, sums[fp]);
        let r = if st.k == 1.0 {
            st.r_l
        } else {
            st.r_l.powf(st.k)
        };
        st.r_p * r * s[id]
    })
}

/// Runs depth-oblivious over the whole tree.
pub(crate) fn compute(tree: &Tree, dampening: f64) -> ShareResult {
    let links = Links::new(tree);
    let s = links.classic_norm_shares();
    let ue = effective_usage(&links, &s);
    classic::rows(Algorithm::DepthOblivious, links, s, ue, dampening)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::slurm::testtrees::{id, t1, t2, TOL};
    use approx::assert_abs_diff_eq;

    #[test]
    fn table5_t1() {
        let t = t1();
        let r = compute(&t, 1.0);
        for (name, ue, f) in [
            ("AccountA", 0.45, 0.458502),
            ("AccountB", 0.228848, 0.589340),
            ("User1", 0.228848, 0.589340),
            ("AccountC", 0.25, 0.176777),
            ("User2", 0.25, 0.03125),
            ("User3", 0.0, 1.0),
            ("AccountD", 0.25, 0.749154),
            ("AccountE", 0.108790, 0.739613),
            ("User4", 0.108790, 0.739613),
            ("AccountF", 0.0, 1.0),
            ("User5", 0.0, 1.0),
            ("AccountG", 0.3, 0.0),
            ("User6", 0.3, 0.0),
        ] {
            let row = r.row(id(&t, name));
            assert_abs_diff_eq!(row.effective_usage.unwrap(), ue, epsilon = TOL);
            assert_abs_diff_eq!(row.fairshare.unwrap(), f, epsilon = TOL);
        }
        // The intermediate numbers of the table.
        let l = Links::new(&t);
        let s = l.classic_norm_shares();
        let sums = sibling_usage(&l);
        let b = id(&t, "AccountB");
        let a = id(&t, "AccountA");
        let st = step(s[b], s[a], 0.45, 0.2, sums[a]).unwrap();
        assert_abs_diff_eq!(st.r_p, 1.125, epsilon = TOL);
        assert_abs_diff_eq!(st.r_s, 1.125, epsilon = TOL);
        assert_abs_diff_eq!(st.r_l, 0.592593, epsilon = TOL);
        assert_abs_diff_eq!(st.k, 0.742489, epsilon = TOL);
    }

    #[test]
    fn table5_t2() {
        let t = t2();
        let r = compute(&t, 1.0);
        for (name, f, ue) in [
            ("u1", 1.0, Some(0.0)),
            ("u2", 0.548412, Some(0.041667)),
            ("uAA1", 0.669995, Some(0.083333)),
            ("uAB1", 0.051507, Some(0.102863)),
            ("uAB2", 1.0, Some(0.0)),
            ("uBA1", 0.772154, Some(0.044837)),
            ("uBB1", 1.0, None),
            ("uC1", 0.0, None),
            ("uD1", 0.266708, Some(0.458333)),
            ("uD2", 0.245563, Some(0.114583)),
            ("uD3", 0.245563, Some(0.143229)),
            ("uDA1", 0.266708, None),
            ("uDA2", 0.277409, Some(0.078475)),
            ("uDA3", 0.245563, None),
            ("aE1", 1.0, None),
            ("aE2", 1.0, None),
            ("uF1", 1.0, None),
            ("uF2", 1.0, None),
            ("uG1", 0.222725, Some(0.041667)),
            ("uGA1", 0.227422, Some(0.020544)),
            ("uGA2", 0.164938, Some(0.025)),
            ("aAB", 0.0, None),
        ] {
            let row = r.row(id(&t, name));
            if name != "aAB" {
                assert_abs_diff_eq!(row.fairshare.unwrap(), f, epsilon = TOL);
            }
            if let Some(ue) = ue {
                assert_abs_diff_eq!(row.effective_usage.unwrap(), ue, epsilon = TOL);
            }
        }
        assert_abs_diff_eq!(
            r.row(id(&t, "aAB")).effective_usage.unwrap(),
            0.102863,
            epsilon = TOL
        );
        assert_abs_diff_eq!(
            r.row(id(&t, "aBA")).effective_usage.unwrap(),
            0.044837,
            epsilon = TOL
        );
    }
}
