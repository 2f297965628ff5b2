//! Inputs the fuzz targets (fuzz/, see docs/hardening.md) found, kept under
//! tests/data/regressions/ and replayed here with the behaviour now expected.

use fairsort::fairshare::{compute, Algorithm, Options, Tree};
use fairsort::formula::{compile, parse, FormulaError, ResourceTable};
use fairsort::inputs::{read_tree, TreeFormat};
use fairsort::pbs::{read_usage_text, write_usage_binary};
use std::path::Path;

use crate::common::data;

/// fuzz target usage_pbs: the text usage reader accepted an entity name with a BEL and a NUL,
/// which `write_usage_binary` then wrote into a file PBS (and fairsort) refuse as "Invalid
/// entity". The text reader now refuses such names.
#[test]
fn usage_text_refuses_unprintable_names() {
    let bytes = std::fs::read(data("regressions/usage_pbs_control_char_name.bin")).unwrap();
    let (mode, text) = bytes.split_first().unwrap();
    assert_eq!(mode % 2, 1, "the text reader's input");
    let text = std::str::from_utf8(text).unwrap();
    let e = read_usage_text(text).unwrap_err().to_string();
    assert_eq!(
        e,
        "usage:4: entity name `p\\u{7}\\0user3` is not printable ASCII"
    );
    // Whatever the text reader accepts, the binary writer's output reads back.
    let ok = read_usage_text("alice 10\nbob 2.5\n").unwrap();
    let back = fairsort::pbs::read_usage_binary(&write_usage_binary(&ok)).unwrap();
    assert_eq!(back.entries, ok.entries);
}

/// fuzz target formula: a formula within the nesting limit whose fully parenthesised print
/// (`check --json`'s `parsed`) is deeper than the limit. Printing must not panic and the
/// re-parse fails with the limit error, not a crash.
#[test]
fn printed_formula_may_exceed_the_depth_limit_cleanly() {
    let bytes = std::fs::read(data("regressions/formula_print_deeper_than_limit.bin")).unwrap();
    let src = bytes.split(|&b| b == 0).next().unwrap();
    let src = std::str::from_utf8(src).unwrap();
    let ast = parse(src).unwrap();
    let printed = ast.to_string();
    assert!(matches!(parse(&printed), Err(FormulaError::TooDeep { .. })));
    // Compiling the original names the unknown function, as PBS would.
    let e = compile(src, &ResourceTable::builtin()).unwrap_err();
    assert_eq!(e.to_string(), "Formula contains invalid keyword: `powr`");
}

/// fuzz targets tree_sshare/tree_sacctmgr: with the ticket-based algorithm, a
/// `FairShare=parent` user's factor exceeds 1. Not a fairsort bug: Slurm 14.11's
/// `_get_fairshare_priority` divides the fs parent's tickets by the largest *user* ticket
/// count, and fairsort reproduces it. Pinned so that a change is deliberate.
#[test]
fn ticket_factor_of_a_parent_share_user_follows_slurm() {
    let spec = read_tree(
        &data("regressions/ticket_parent_user_factor_above_one.psv"),
        Some(TreeFormat::Sacctmgr),
    )
    .unwrap();
    let tree = Tree::build(spec).unwrap();
    let r = compute(&tree, Algorithm::Ticket, &Options::default()).unwrap();
    let ud1 = tree.find_user(Some("aD"), "uD1").unwrap();
    let ad = tree.find_account("aD").unwrap();
    let ubb1 = tree.find_user(Some("aBB"), "uBB1").unwrap();
    let t = |id| r.row(id).tickets.unwrap();
    // uBB1 holds the most tickets of any user: its factor is 1.
    assert_eq!(r.factor(ubb1), Some(1.0));
    // Tolerance: one f64 division of two u32 ticket counts, exact to 1e-15.
    approx::assert_relative_eq!(
        r.factor(ud1).unwrap(),
        t(ad) / t(ubb1),
        max_relative = 1e-15
    );
    assert!(r.factor(ud1).unwrap() > 1.0);
}

/// fuzz target acct_sacct: a Start/End year of 19 digits overflowed the civil-day arithmetic
/// (`attempt to multiply with overflow` in debug builds, a wrong date in release). Years are now
/// four digits; such a row is malformed.
#[test]
fn sacct_huge_year_is_a_malformed_row() {
    let bytes = std::fs::read(data("regressions/sacct_huge_year_overflow.bin")).unwrap();
    let (_mode, text) = bytes.split_first().unwrap();
    let mut malformed = Vec::new();
    let mut jobs = 0;
    fairsort::slurm::read_sacct(
        &mut &text[..],
        Path::new("sacct"),
        &Default::default(),
        &mut |_| {
            jobs += 1;
            Ok(())
        },
        &mut malformed,
    )
    .unwrap();
    assert_eq!(jobs, 0);
    let messages: Vec<String> = malformed.iter().map(ToString::to_string).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.ends_with("bad End `22222222222224-04-13T10:00:00`")),
        "{messages:?}"
    );
}

/// fuzz target acct_flux_fields: an idset range `0-18446744073709551615` overflowed `b - a + 1`
/// (`attempt to add with overflow`). The count is now computed in f64.
#[test]
fn flux_idset_of_the_whole_u64_range_counts() {
    use fairsort::flux::jobs_table::idset_count;
    let text = std::fs::read_to_string(data("regressions/flux_idset_full_u64_range.txt")).unwrap();
    // The fuzz input itself is not a valid idset (a stray `^M`-separated tail)...
    assert!(idset_count(&text).is_err());
    // ...but its first range is, and counts 2^64 ids.
    assert_eq!(
        idset_count("0-18446744073709551615"),
        Ok(18446744073709551616.0)
    );
}

/// fuzz target tree_sshare: a group with a finite but huge RawUsage (3.3e102) gives its users a
/// NaN PBS fairshare_factor: its usage over the root's overflowed f32 and inf - inf gave NaN.
/// Fixed: a node's usage ratio is clamped to 1 (in PBS it never exceeds the root's).
#[test]
fn pbs_factor_stays_a_number_for_huge_usage() {
    for file in [
        "pbs_factor_nan_huge_group_usage.sshare",
        "pbs_factor_nan_huge_group_usage_2.sshare",
    ] {
        let spec = read_tree(
            &data(&format!("regressions/{file}")),
            Some(TreeFormat::Sshare),
        )
        .unwrap();
        let tree = Tree::build(spec).unwrap();
        let r = compute(&tree, Algorithm::Pbs, &Options::default()).unwrap();
        for u in tree.users() {
            let f = r.factor(u).unwrap();
            assert!((0.0..=1.0).contains(&f), "{file}: {}: {f}", tree.label(u));
        }
    }
}
