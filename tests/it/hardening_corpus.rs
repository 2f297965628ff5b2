//! The bad-input corpus: every file under `tests/bad_inputs/<reader>/` is fed to that reader
//! and must fail with exactly the message in its `.expected` sibling (the whole rendered error,
//! with the input's path written as `<file>`). A case without `.expected`, an expected file
//! without its input, or a reader directory this runner does not know fails the test.
//!
//! Set `BLESS=1` to print the actual messages of the cases whose message differs (it never
//! writes files: a new message must be read and copied by hand).

use fairsort::fairshare::Tree;
use fairsort::formula::{compile, ResourceTable};
use fairsort::home::{current_host, current_user, Home};
use fairsort::inputs::{read_jobs_bytes, JobsFormat};
use fairsort::inputs::{read_tree, TreeFormat};
use fairsort::pbs::accounting::PbsLogReader;
use fairsort::pbs::defs::FairshareEntity;
use fairsort::qmgr::{run_request, script_requests};
use fairsort::usage::usage_res_charge;
use std::path::{Path, PathBuf};

/// tests/bad_inputs, absolute.
fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_inputs")
}

/// Runs `input` through the reader named by its directory; `Ok(())` if it was accepted.
fn run_case(reader: &str, input: &Path) -> Result<(), String> {
    let bytes = std::fs::read(input).map_err(|e| format!("cannot read the case: {e}"))?;
    let tree = |format: TreeFormat| {
        let spec = read_tree(input, Some(format)).map_err(|e| e.to_string())?;
        Tree::build(spec).map(drop).map_err(|e| e.to_string())
    };
    let jobs = |format: JobsFormat| {
        read_jobs_bytes("jobs", &bytes, Some(format))
            .map(drop)
            .map_err(|e| e.to_string())
    };
    let text = || String::from_utf8(bytes.clone()).map_err(|e| format!("not UTF-8: {e}"));
    match reader {
        "tree-pbs" => tree(TreeFormat::Pbs),
        "tree-sshare" => tree(TreeFormat::Sshare),
        "tree-sacctmgr" => tree(TreeFormat::Sacctmgr),
        "tree-toml" => tree(TreeFormat::Toml),
        "tree-json" => tree(TreeFormat::Json),
        "pbs-usage" => fairsort::pbs::read_usage_binary(&bytes)
            .map(drop)
            .map_err(|e| e.to_string()),
        "jobs-qstat" => jobs(JobsFormat::Qstat),
        "jobs-json" => jobs(JobsFormat::Json),
        "jobs-csv" => jobs(JobsFormat::Csv),
        "acct-pbs" => {
            let charge = usage_res_charge("ncpus*walltime", &ResourceTable::builtin())?;
            let mut reader = PbsLogReader::new(FairshareEntity::Euser, charge.as_ref());
            let mut malformed = Vec::new();
            reader
                .read(
                    &mut bytes.as_slice(),
                    Path::new("<file>"),
                    &mut |_| Ok(()),
                    &mut malformed,
                )
                .map_err(|e| e.to_string())?;
            first_malformed(&malformed)
        }
        "acct-sacct" => {
            let mut malformed = Vec::new();
            fairsort::slurm::read_sacct(
                &mut bytes.as_slice(),
                Path::new("<file>"),
                &Default::default(),
                &mut |_| Ok(()),
                &mut malformed,
            )
            .map_err(|e| e.to_string())?;
            first_malformed(&malformed)
        }
        "formula" => {
            let src = text()?;
            let src = src.strip_suffix('\n').unwrap_or(&src);
            compile(src, &ResourceTable::builtin())
                .map(drop)
                .map_err(|e| e.render(src))
        }
        "qmgr" => {
            let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
            let home = Home::open(Some(dir.path())).map_err(|e| e.to_string())?;
            let (user, host) = (current_user(), current_host());
            for line in script_requests(&text()?) {
                run_request(&home, &user, &host, &line, false).map_err(|e| e.render())?;
            }
            Ok(())
        }
        "test-file" => fairsort::ftest::load(input)
            .map(drop)
            .map_err(|e| e.render()),
        other => Err(format!("no reader `{other}` in the corpus runner")),
    }
}

fn first_malformed(m: &[fairsort::usage::Malformed]) -> Result<(), String> {
    match m.first() {
        Some(m) => Err(m.to_string()),
        None => Ok(()),
    }
}

fn cases() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(corpus())
        .expect("tests/bad_inputs exists")
        .map(|e| e.expect("readable corpus").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let reader = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("UTF-8 reader directory name")
            .to_string();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("readable reader directory")
            .map(|e| e.expect("readable entry").path())
            .collect();
        files.sort();
        for f in files {
            let is_expected = f.extension().is_some_and(|e| e == "expected");
            if is_expected {
                let input = f.with_extension("");
                assert!(input.exists(), "{} has no input file", f.display());
            } else {
                out.push((reader.clone(), f));
            }
        }
    }
    out
}

fn expected_path(input: &Path) -> PathBuf {
    let mut name = input.as_os_str().to_owned();
    name.push(".expected");
    PathBuf::from(name)
}

#[test]
fn every_bad_input_fails_with_its_message() {
    let bless = std::env::var_os("BLESS").is_some();
    let cases = cases();
    assert!(cases.len() >= 60, "the corpus lost cases: {}", cases.len());
    let mut failures = Vec::new();
    for (reader, input) in &cases {
        let expected = std::fs::read_to_string(expected_path(input))
            .map(|s| s.trim_end_matches('\n').to_string())
            .unwrap_or_else(|_| format!("<missing {}>", expected_path(input).display()));
        let actual = match run_case(reader, input) {
            Ok(()) => "<accepted>".to_string(),
            Err(e) => e.replace(&input.display().to_string(), "<file>"),
        };
        if actual != expected {
            if bless {
                eprintln!("== {}\n{actual}", input.display());
            }
            failures.push(format!(
                "{}:\n  expected: {expected:?}\n  actual:   {actual:?}",
                input.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
