//! `fairsort check`, `eval` and `qmgr set server job_sort_formula` give PBS's server's verdict:
//! the server evaluates the formula with every keyword and resource = 1, so only
//! a name that evaluation reaches is refused (15124, or 15125 for a string/boolean resource);
//! names it does not reach are accepted and fairsort warns about them. PBS's built-in resources
//! are OpenPBS's; `ngpus` is valid once defined; fairsort's own keywords are flagged.

use fairsort::formula::{parse, validate, ResourceTable};
use predicates::prelude::*;
use std::io::Write;

use crate::common::{data, fairsort, json_of, qmgr, Rng};

#[test]
fn unreached_unknown_name_is_accepted_with_a_warning() {
    let out = fairsort()
        .args(["check", "1 if walltime else nosuchname"])
        .assert()
        .code(0);
    let o = out.get_output();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stdout.starts_with("valid: (1 if walltime else nosuchname)\n"),
        "{stdout}"
    );
    assert!(
        stderr.starts_with("fairsort: warning: `nosuchname` is not a keyword, resource or function: PBS accepts the formula"),
        "{stderr}"
    );
    assert!(
        stderr.contains("(name 'nosuchname' is not defined)"),
        "{stderr}"
    );
    assert!(stderr.contains("at line 1, column 20"), "{stderr}");
    let out = fairsort()
        .args(["check", "--json", "1 if walltime else nosuchname"])
        .assert()
        .code(0);
    let j = json_of(&out.get_output().stdout);
    assert_eq!(j["pbs"]["accepted"], true, "{j}");
    assert_eq!(j["warnings"][0]["name"], "nosuchname", "{j}");
    assert_eq!(j["warnings"][0]["column"], 20, "{j}");
}

#[test]
fn reached_names_are_refused_with_pbs_codes() {
    for (f, code) in [
        ("nosuchname", 15124),
        ("1 if 0 else nosuchname", 15124),
        ("arch + 1", 15125),
        ("host", 15125),
        ("arch/0", 15125),
        ("ncpus *", 15123),
    ] {
        let out = fairsort().args(["check", "--json", f]).assert().code(1);
        let j = json_of(&out.get_output().stdout);
        assert_eq!(j["code"], code, "{f}: {j}");
    }
    // other errors during the server's evaluation are accepted
    for f in [
        "1/(ncpus-1)",
        "1/0 + nosuch",
        "sqrt(-ncpus) + arch",
        "0 and arch",
    ] {
        fairsort().args(["check", f]).assert().code(0);
    }
}

#[test]
fn a_job_reaching_an_unknown_name_gets_zero() {
    let out = fairsort()
        .args(["eval", "--json", "1 if walltime else nosuchname"])
        .assert()
        .success();
    let j = json_of(&out.get_output().stdout);
    assert_eq!(j["sort_value"], 0.0, "{j}");
    assert_eq!(j["error"], "name 'nosuchname' is not defined", "{j}");
    let out = fairsort()
        .args([
            "eval",
            "--json",
            "1 if walltime else nosuchname",
            "-D",
            "walltime=60",
        ])
        .assert()
        .success();
    assert_eq!(json_of(&out.get_output().stdout)["value"], 1.0);
}

#[test]
fn pbs_builtin_resources_and_ngpus() {
    fairsort()
        .args([
            "check",
            "cpupercent + nodect + pcput + pmem + pvmem + vmem + mpiprocs + ompthreads + nchunk",
        ])
        .assert()
        .code(0)
        .stderr("");
    let out = fairsort()
        .args(["check", "--json", "pcput + pmem + energy"])
        .assert()
        .code(0);
    let j = json_of(&out.get_output().stdout);
    let kinds: Vec<&str> = j["keywords"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|k| k["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["time resource", "size resource", "float resource"]);
    // unrequested: 0
    let out = fairsort()
        .args(["eval", "--json", "cpupercent + nchunk"])
        .assert()
        .success();
    assert_eq!(json_of(&out.get_output().stdout)["value"], 0.0);
    // ngpus is a custom resource on PBS
    let out = fairsort()
        .args(["check", "--json", "ngpus"])
        .assert()
        .code(1);
    assert_eq!(json_of(&out.get_output().stdout)["code"], 15124);
    fairsort()
        .args(["check", "ngpus", "-R", "ngpus=long"])
        .assert()
        .code(0);
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    qmgr(h, "set server job_sort_formula = ngpus")
        .code(20)
        .stderr(predicate::str::contains("Error (15124)"));
    qmgr(h, "create resource ngpus type=long").success();
    qmgr(h, "set server job_sort_formula = ngpus").success();
}

#[test]
fn fairsort_keywords_are_flagged_as_not_pbs() {
    let out = fairsort()
        .args(["check", "--json", "level_fs"])
        .assert()
        .code(1);
    let j = json_of(&out.get_output().stdout);
    assert_eq!(j["valid"], true);
    assert_eq!(j["pbs"]["accepted"], false, "{j}");
    assert_eq!(j["pbs"]["code"], 15124, "{j}");
    assert_eq!(j["warnings"][0]["name"], "level_fs", "{j}");
    fairsort()
        .args(["check", "fairtree_factor * 2"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "`fairtree_factor` is a fairsort keyword, not valid on a PBS server: a PBS server refuses this formula (15124 Formula contains invalid keyword)",
        ));
    fairsort()
        .args(["check", "fairshare_factor"])
        .assert()
        .code(0)
        .stderr("");
}

#[test]
fn qmgr_uses_the_same_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    qmgr(
        h,
        "set server job_sort_formula = \"1 if walltime else nosuchname\"",
    )
    .success();
    let out = qmgr(h, "list server").success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout)
        .contains("    job_sort_formula = 1 if walltime else nosuchname\n"));
    qmgr(h, "set server job_sort_formula = \"1 if 0 else nosuchname\"")
        .code(20)
        .stderr(predicate::str::starts_with(
            "qmgr obj= svr=default: Formula contains invalid keyword\nqmgr: Error (15124) returned from server\n",
        ));
    qmgr(h, "set server job_sort_formula = \"1/(ncpus-1)\"").success();
    // a resource the stored formula names stays protected, reached or not
    qmgr(h, "create resource foo type=float").success();
    qmgr(
        h,
        "set server job_sort_formula = \"1 if walltime else foo\"",
    )
    .success();
    qmgr(h, "delete resource foo")
        .code(70)
        .stderr(predicate::str::contains("Error (15174)"))
        .stderr(predicate::str::contains("uses foo"));
    qmgr(h, "set resource foo type=string")
        .code(70)
        .stderr(predicate::str::contains("Error (15174)"));
    qmgr(h, "set server job_sort_formula = \"walltime + arch\"")
        .code(21)
        .stderr(predicate::str::contains("Error (15125)"));
}

#[test]
fn python_that_could_run_code_stays_refused() {
    for (f, what) in [
        (
            "__import__(\"os\").system(\"ls\")",
            "`__import__` (a name of Python's internals) is refused",
        ),
        (
            "__import__(1)",
            "`__import__` (a name of Python's internals) is refused",
        ),
        ("ncpus.real", "attribute access (`.real`) is refused"),
        ("ncpus[0]", "a subscript (`x[...]`) is refused"),
        ("lambda: 1", "`lambda` is refused"),
        ("open(1)", "the Python builtin `open` is refused"),
        ("eval(1)", "the Python builtin `eval` is refused"),
        (
            "1 if ncpus else getattr(ncpus, 1)",
            "the Python builtin `getattr` is refused",
        ),
    ] {
        for cmd in ["check", "eval"] {
            let out = fairsort().args([cmd, "--json", f]).assert().code(1);
            let o = out.get_output();
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert!(
                stderr.starts_with(&format!("fairsort: {what}")),
                "{cmd} {f}: {stderr}"
            );
            assert!(
                stderr.contains("fairsort never runs Python code"),
                "{stderr}"
            );
            let j = json_of(&o.stdout);
            assert_eq!(
                j["code"],
                serde_json::Value::Null,
                "fairsort's refusal: {j}"
            );
        }
    }
    // where formulas are set, the refusal is qmgr's 15123 with fairsort's reason
    let dir = tempfile::tempdir().unwrap();
    qmgr(
        dir.path(),
        "set server job_sort_formula = \"__import__(1)\"",
    )
    .code(19)
    .stderr(predicate::str::starts_with(
        "qmgr obj= svr=default: Invalid Formula Format\nqmgr: Error (15123) returned from server\n",
    ))
    .stderr(predicate::str::contains("is refused: it could run code"));
}

/// Random formulas mixing numeric and string resources, keywords and unknown names in
/// conditionals and short-circuits.
fn gen_formula(r: &mut Rng, depth: u32) -> String {
    const LEAVES: &[&str] = &[
        "ncpus",
        "walltime",
        "mem",
        "pcput",
        "fairshare_perc",
        "queue_priority",
        "arch",
        "host",
        "accelerator",
        "nosuch",
        "foo",
        "0",
        "1",
        "2",
        "0.5",
        "pi",
    ];
    const OPS: &[&str] = &[
        "+", "-", "*", "/", "//", "%", "<", "<=", ">", "==", "!=", "and", "or",
    ];
    if depth == 0 || r.below(10) < 3 {
        return r.pick(LEAVES).to_string();
    }
    let sub = |r: &mut Rng| format!("({})", gen_formula(r, depth - 1));
    match r.below(8) {
        0..=3 => {
            let (a, b) = (sub(r), sub(r));
            format!("{a} {} {b}", r.pick(OPS))
        }
        4 => format!("{} if {} else {}", sub(r), sub(r), sub(r)),
        5 => format!("not {}", sub(r)),
        6 => format!(
            "{}({})",
            r.pick(&["sqrt", "log", "ceil", "abs", "exp"]),
            sub(r)
        ),
        _ => format!("{}({}, {})", r.pick(&["max", "min", "pow"]), sub(r), sub(r)),
    }
}

#[test]
fn verdicts_agree_with_pbs_servers_validation_in_python() {
    let mut r = Rng(0x005E_ED0F_0014);
    let formulas: Vec<String> = (0..1500)
        .map(|_| {
            let depth = 1 + r.below(4) as u32;
            gen_formula(&mut r, depth)
        })
        .collect();
    let Ok(mut child) = std::process::Command::new("python3")
        .arg(data("formula/pbs_validate.py"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    else {
        crate::common::python_missing("the validation differential");
        return;
    };
    let input: String = formulas.iter().map(|f| format!("{f}\n")).collect();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    let verdicts: Vec<Option<u64>> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Option<u64>>(l).unwrap())
        .collect();
    assert_eq!(verdicts.len(), formulas.len());
    let resources = ResourceTable::builtin();
    let mut failures = Vec::new();
    let (mut accepted, mut refused) = (0, 0);
    for (f, want) in formulas.iter().zip(&verdicts) {
        let expr = parse(f).unwrap_or_else(|e| panic!("{f}: {e}"));
        // a plain PBS server: fairsort's keywords unknown
        let got = validate::server_verdict(&expr, &resources, false)
            .err()
            .and_then(|e| e.code())
            .map(u64::from);
        if got != *want {
            failures.push(format!("{f}: fairsort {got:?}, PBS {want:?}"));
        }
        if want.is_some() {
            refused += 1;
        } else {
            accepted += 1;
        }
    }
    assert!(accepted > 300 && refused > 300, "{accepted} / {refused}");
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        formulas.len(),
        failures.join("\n")
    );
}
