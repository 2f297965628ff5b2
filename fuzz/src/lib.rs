//! Shared checks of the fuzz targets: what must hold for any input a reader accepts.

use fairsort::fairshare::{compute, Algorithm, Options, Shares, Tree, TreeSpec};

/// Builds the tree a reader produced and runs every algorithm over it: nothing may panic, and
/// every factor an algorithm reports must be a number in [0, 1].
pub fn check_tree(spec: TreeSpec) {
    let Ok(tree) = Tree::build(spec) else {
        return;
    };
    for algorithm in Algorithm::ALL {
        let Ok(result) = compute(&tree, algorithm, &Options::default()) else {
            continue;
        };
        for id in tree.users() {
            // Slurm 14.11 scores a FairShare=parent user with its fs parent's tickets over the
            // largest *user* ticket count (`_get_fairshare_priority`), which can exceed 1;
            // fairsort reproduces that (found by tree_sshare/tree_sacctmgr, kept in
            // tests/it/hardening_regressions.rs).
            if algorithm == Algorithm::Ticket && tree.node(id).shares == Shares::Parent {
                continue;
            }
            if let Some(f) = result.factor(id) {
                assert!(
                    (0.0..=1.0).contains(&f),
                    "{algorithm}: factor {f} of {} is outside [0, 1]",
                    tree.label(id)
                );
            }
        }
    }
}

/// Splits fuzz bytes at the first NUL: the text before it and the bytes after it.
pub fn split_nul(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[]),
    }
}

/// Reads little-endian f64 values from raw bytes (a short tail is ignored).
pub fn f64s(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(8)
        .map(|c| {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            f64::from_le_bytes(a)
        })
        .collect()
}
