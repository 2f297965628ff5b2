//! `fairsort demo`: an alias of `fairsort order --example` (the README's first command).

use crate::common::fairsort;

fn stdout(args: &[&str]) -> String {
    let out = fairsort().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {:?}", out);
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn demo_prints_what_order_example_prints() {
    let demo = stdout(&["demo"]);
    assert!(
        demo.contains("fairsort order: PBS cluster (seed 004 share tree)"),
        "{demo}"
    );
    // pbs_sched's order under the shipped sched_config: the express queue first (by_queue).
    assert!(demo.contains("   1  105.pbs  scott  express  0.5937  eligible"));
    assert!(demo.contains("   2  101.pbs  bob    workq    0.7311  eligible"));
    assert_eq!(demo, stdout(&["order", "--example"]));
}

#[test]
fn demo_takes_order_flags() {
    assert_eq!(
        stdout(&["demo", "--example", "slurm", "--json"]),
        stdout(&["order", "--example", "slurm", "--json"])
    );
    let top = stdout(&["demo", "--top", "2"]);
    // The first two pbs_sched considers: the express queue's job, then workq's best.
    assert!(
        top.contains("105.pbs") && top.contains("101.pbs") && !top.contains("102.pbs"),
        "{top}"
    );
}

#[test]
fn plain_order_still_needs_jobs() {
    fairsort().args(["order"]).assert().code(2);
}

/// `--against` compares the orders pbs_sched would consider the jobs in: the express job is
/// first under the example's formula and falls below the threshold under the other.
#[test]
fn against_compares_pbs_sched_orders() {
    let out = stdout(&[
        "order",
        "--example",
        "--against",
        "fairshare_factor",
        "--json",
    ]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let row = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["id"] == "105.pbs")
        .unwrap()
        .clone();
    assert_eq!(
        (row["rank"].as_u64(), row["rank_against"].as_u64()),
        (Some(1), Some(6))
    );
    assert_eq!(row["queue"], "express");
}
