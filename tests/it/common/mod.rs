//! Helpers shared by the test modules: the `fairsort` binary (isolated from the home of
//! whoever runs the tests), paths into `tests/data`, scratch files, server-home state and the
//! flux-accounting databases the flux tests build.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use fairsort::fairshare::spec::{NodeSpec, TreeSpec};
use fairsort::home::Home;

pub mod flux_db;

/// Where `XDG_DATA_HOME` points in [`fairsort`]: a directory that never exists, so the default
/// home is never found (and never created).
pub const NO_XDG_DATA_HOME: &str = "/nonexistent/fairsort-test-data";

/// The binary cargo built for these tests, never on a home of the user running them: no
/// `FAIRSORT_HOME` and no default home (a home's custom resources, formula or tree would change
/// what the commands print). A test that wants a home passes `--home`, or sets `FAIRSORT_HOME` /
/// `XDG_DATA_HOME` on the command, which overrides these.
pub fn fairsort() -> Command {
    let mut c = Command::cargo_bin("fairsort").unwrap_or_else(|e| panic!("{e}"));
    c.env_remove("FAIRSORT_HOME");
    c.env("XDG_DATA_HOME", NO_XDG_DATA_HOME);
    // Dates without a zone are local time: one zone for every test, whatever the machine's.
    c.env("TZ", "UTC");
    c
}

/// [`fairsort`] on the home `home` (`--home HOME`), which `fairsort init` creates first
/// if it holds no `server.toml` yet (no other command creates a home).
pub fn fairsort_home(home: &Path) -> Command {
    if !home.join("server.toml").exists() {
        let _ = fairsort().arg("--home").arg(home).arg("init").output();
    }
    let mut c = fairsort();
    c.arg("--home").arg(home);
    c
}

/// `fairsort --home HOME qmgr -c REQ`, run, for asserting on.
pub fn qmgr(home: &Path, req: &str) -> assert_cmd::assert::Assert {
    fairsort_home(home).args(["qmgr", "-c", req]).assert()
}

/// The binary's path, for tests that spawn it with `std::process::Command` (to kill it, run it
/// under `sh` or `setpriv`).
pub fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("fairsort")
}

/// `tests/data/REL`, absolute (the data stays beside the tests, whatever the current directory).
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

/// [`data`] as a string, for argument lists of `&str`.
pub fn data_str(rel: &str) -> String {
    data(rel)
        .to_str()
        .unwrap_or_else(|| panic!("non-UTF-8 path to tests/data/{rel}"))
        .to_string()
}

/// Writes `text` to `dir/name` and returns that path.
pub fn write(dir: impl AsRef<Path>, name: &str, text: &str) -> PathBuf {
    let p = dir.as_ref().join(name);
    std::fs::write(&p, text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    p
}

/// A command's stdout as JSON.
pub fn json_of(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

/// The node called `name` of a tree as read.
pub fn node<'a>(t: &'a TreeSpec, name: &str) -> &'a NodeSpec {
    t.nodes.iter().find(|n| n.name == name).unwrap()
}

/// The `Priority` of queue `q` in the home `home`; its state file must always parse.
pub fn queue_q_priority(home: &Path) -> Option<i64> {
    let state = Home::open(Some(home))
        .unwrap()
        .load()
        .expect("state file must always parse");
    state.queues.get("q").and_then(|q| q.priority)
}

/// A small deterministic generator (xorshift), so failures of randomized tests reproduce.
pub struct Rng(pub u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

/// What a suite whose oracle is python3 does when python3 cannot run: under CI (`CI=true`,
/// where `.ci/run` installs it) the suite fails; elsewhere it says loudly that it was skipped.
pub fn python_missing(what: &str) {
    let message = format!("python3 is not available; {what} did not run");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{message} (CI=true: python3 is required)");
    }
    eprintln!("SKIPPED: {message}");
}

/// A report's text without its leading `sources:` block (the lines up to and including the
/// first blank line), for tests that compare the table below it with a real tool's layout.
pub fn table_part(text: &str) -> &str {
    if !text.starts_with("sources:") {
        return text;
    }
    text.split_once("\n\n").map_or("", |(_, rest)| rest)
}

/// A JSON report without its `sources` object, to compare the results of two runs whose
/// inputs came from different places (a home, files, an example).
pub fn without_sources(mut doc: serde_json::Value) -> serde_json::Value {
    if let Some(o) = doc.as_object_mut() {
        o.remove("sources");
    }
    doc
}

/// Calls the macro `$m` with the name of every captured pbs_sched cycle fairsort reproduces
/// (`tests/data/pbs_cycles`: all but the crashes and `formula_dquote_after`), one test each.
#[macro_export]
macro_rules! pbs_cycle_scenarios {
    ($m:ident) => {
        $m!(
            by_queue_default,
            by_queue_off,
            by_queue_equal_prio,
            by_queue_no_formula,
            prime_non_prime,
            prime_non_prime_in_prime,
            round_robin,
            express_preempt_on,
            express_preempt_off,
            express_preempt_by_queue,
            express_prio_90,
            threshold,
            threshold_negative,
            nan_threshold,
            formula_errors,
            float_division_error,
            nan_inf,
            float32_ties,
            eligible_time,
            job_states,
            sort_key_no_formula,
            sort_key_priority,
            sort_key_with_formula,
            fairshare_no_formula,
            fairshare_with_formula,
            fairshare_factor_formula,
            fairshare_formula_no_fair_share,
            fairshare_egroup,
            unknown_shares_0,
            unknown_shares_10,
            unknown_shares_0_formula,
            unknown_shares_0_formula_no_touch,
            preempt_fairshare,
            job_arrays,
        );
    };
}

/// Imports the PBS site of capture directory `d` (`print_server.txt`, `list_sched.txt`,
/// `sched_config`, `resource_group`, `pbsfs.txt`, `holidays` when there) into a new home at
/// `home`, with `fairsort init` then `fairsort pbs import`, as an admin does.
pub fn import_pbs_capture(d: &Path, home: &Path) {
    let mut c = fairsort_home(home);
    c.args(["pbs", "import"]);
    for (flag, file) in [
        ("--server", "print_server.txt"),
        ("--sched", "list_sched.txt"),
        ("--sched-config", "sched_config"),
        ("--resource-group", "resource_group"),
        ("--usage", "pbsfs.txt"),
        ("--holidays", "holidays"),
    ] {
        if d.join(file).exists() {
            c.arg(flag).arg(d.join(file));
        }
    }
    c.assert().success();
}
