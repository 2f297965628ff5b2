//! `fairsort usage record` and `fairsort replay` read each accounting format through one
//! reader: fed the same PBS log, `sacct -P` and `sacct --json` output and flux-accounting
//! database, they see the same jobs — the same ids, users and accounts, and the same cores ×
//! run time (`usage record` charging cores × seconds, `replay` holding cores for end − start).
//! The inputs are the real Slurm 22.05 capture (tests/data/slurm_priority/real_2205_dbd), its
//! jobs written as `sacct -P`, the PBS logs of tests/data/usage, a PBS log with quoted values,
//! and a flux-accounting database.

use crate::common::{data, fairsort_home, write};
use fairsort::replay::{read_trace, TraceFormat, TraceJob};
use std::collections::BTreeMap;
use std::path::Path;

/// One job of the home's ledger (`source id end entity account charge`).
#[derive(Debug, Clone, PartialEq)]
struct Charged {
    id: String,
    end: i64,
    entity: String,
    account: Option<String>,
    charge: f64,
}

/// Records `input` into a new home with `args` and returns its ledger, by job id.
fn usage_record(dir: &Path, name: &str, input: &Path, args: &[&str]) -> BTreeMap<String, Charged> {
    let home = dir.join(name);
    fairsort_home(&home)
        .args(["usage", "record"])
        .arg(input)
        .args(args)
        .assert()
        .success();
    let text = std::fs::read_to_string(home.join("usage.ledger")).unwrap();
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 6, "{l}");
            let job = Charged {
                id: f[1].to_string(),
                end: f[2].parse().unwrap(),
                entity: f[3].to_string(),
                account: (f[4] != "-").then(|| f[4].to_string()),
                charge: f[5].parse().unwrap(),
            };
            (job.id.clone(), job)
        })
        .collect()
}

/// The jobs `replay` reads from `input`, by id.
fn replay_jobs(input: &Path, format: TraceFormat) -> (BTreeMap<String, TraceJob>, Vec<String>) {
    let t = read_trace(input, Some(format)).unwrap_or_else(|e| panic!("{e}"));
    let left_out = t
        .left_out
        .iter()
        .map(|(r, n)| format!("{r}: {n}"))
        .collect();
    (
        t.jobs.into_iter().map(|j| (j.id.clone(), j)).collect(),
        left_out,
    )
}

/// Both commands saw the same jobs, with the same user and account, and usage's charge is
/// replay's cores × run time.
fn same_jobs(usage: &BTreeMap<String, Charged>, replay: &BTreeMap<String, TraceJob>) {
    assert_eq!(
        usage.keys().collect::<Vec<_>>(),
        replay.keys().collect::<Vec<_>>()
    );
    for (id, u) in usage {
        let r = &replay[id];
        assert_eq!(u.entity, r.user, "job {id}");
        assert_eq!(u.account.as_deref(), Some(r.account.as_str()), "job {id}");
        assert_eq!(
            u.charge,
            (r.cores as i64 * r.run) as f64,
            "job {id}: {u:?} {r:?}"
        );
    }
}

/// `2026-11-25T19:09:05` for an epoch second (UTC), as `sacct -P` prints times.
fn iso(t: i64) -> String {
    let (days, secs) = (t.div_euclid(86_400), t.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// The real capture's jobs as `sacct -P --format=JobID,User,Account,Partition,QOS,Submit,Start,
/// End,Elapsed,Timelimit,AllocCPUS,AllocTRES,ReqTRES,State` prints them.
fn real_sacct_p() -> String {
    let doc: serde_json::Value = serde_json::from_slice(
        &std::fs::read(data("slurm_priority/real_2205_dbd/sacct.json")).unwrap(),
    )
    .unwrap();
    let mut out = String::from(
        "JobID|User|Account|Partition|QOS|Submit|Start|End|Elapsed|Timelimit|AllocCPUS|AllocTRES|ReqTRES|State\n",
    );
    for j in doc["jobs"].as_array().unwrap() {
        let t = &j["time"];
        let at = |k: &str| match t[k].as_i64().unwrap() {
            0 => "Unknown".to_string(),
            s => iso(s),
        };
        let elapsed = t["elapsed"].as_i64().unwrap();
        let limit = match t["limit"].as_i64() {
            Some(m) => format!("{:02}:{:02}:00", m / 60, m % 60),
            None => "UNLIMITED".into(),
        };
        let list = |kind: &str| -> Vec<String> {
            j["tres"][kind]
                .as_array()
                .unwrap()
                .iter()
                .filter(|x| x["count"].is_number())
                .map(|x| match x["type"].as_str().unwrap() {
                    "mem" => format!("mem={}M", x["count"]),
                    ty => format!("{ty}={}", x["count"]),
                })
                .collect()
        };
        let (tres, req_tres) = (list("allocated"), list("requested"));
        let cpus = tres
            .iter()
            .find_map(|x| x.strip_prefix("cpu="))
            .unwrap_or("0");
        out += &format!(
            "{}|{}|{}|{}|{}|{}|{}|{}|{:02}:{:02}:{:02}|{limit}|{cpus}|{}|{}|{}\n",
            j["job_id"],
            j["user"].as_str().unwrap(),
            j["account"].as_str().unwrap(),
            j["partition"].as_str().unwrap(),
            j["qos"].as_str().unwrap(),
            iso(t["submission"].as_i64().unwrap()),
            at("start"),
            at("end"),
            elapsed / 3600,
            elapsed / 60 % 60,
            elapsed % 60,
            tres.join(","),
            req_tres.join(","),
            j["state"]["current"].as_str().unwrap(),
        );
        // Each job that ran has its batch step: neither command counts it as a job.
        if t["start"].as_i64().unwrap() > 0 {
            out += &format!(
                "{}.batch|||||{}|{}|{}||||cpu={cpus}||COMPLETED\n",
                j["job_id"],
                iso(t["submission"].as_i64().unwrap()),
                at("start"),
                at("end")
            );
        }
    }
    out
}

#[test]
fn iso_times_are_utc() {
    assert_eq!(iso(0), "1970-01-01T00:00:00");
    assert_eq!(iso(1_713_002_400), "2024-04-13T10:00:00");
    assert_eq!(iso(1_795_633_745), "2026-11-25T19:09:05");
}

#[test]
fn sacct_json_and_pipe_of_a_real_capture_are_the_same_jobs_to_both() {
    let dir = tempfile::tempdir().unwrap();
    let json = data("slurm_priority/real_2205_dbd/sacct.json");
    let pipe = write(dir.path(), "sacct.txt", &real_sacct_p());
    let (from_json, left_json) = replay_jobs(&json, TraceFormat::Sacct);
    let (from_pipe, left_pipe) = replay_jobs(&pipe, TraceFormat::Sacct);
    // The capture's README: jobs 1-3 completed, 5 and 7 were cancelled after 23 s.
    assert_eq!(
        from_json.keys().collect::<Vec<_>>(),
        ["1", "2", "3", "5", "7"]
    );
    assert_eq!(left_json, ["never started: 7"]);
    assert_eq!((&from_pipe, &left_pipe), (&from_json, &left_json));
    let charged_json = usage_record(dir.path(), "json", &json, &["--format", "slurm"]);
    let charged_pipe = usage_record(dir.path(), "pipe", &pipe, &["--format", "slurm"]);
    same_jobs(&charged_json, &from_json);
    same_jobs(&charged_pipe, &from_pipe);
    // The charges end when the jobs ended, and replay runs them from their recorded start.
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    for j in doc["jobs"].as_array().unwrap() {
        let id = j["job_id"].to_string();
        let Some(c) = charged_pipe.get(&id) else {
            continue;
        };
        assert_eq!(charged_json[&id], *c);
        let (start, end) = (j["time"]["start"].as_i64(), j["time"]["end"].as_i64());
        assert_eq!(
            (Some(c.end), Some(c.end - from_pipe[&id].run)),
            (end, start)
        );
    }
    assert_eq!(charged_json["7"].end, 1_795_633_793);
    assert_eq!((from_json["7"].run, from_json["7"].cores), (23, 12));
}

/// A PBS log whose values are quoted, as PBS writes values with spaces: an account with a
/// space, a job name that looks like attributes, a `select` with `=` inside.
const QUOTED: &str = r#"11/20/2026 10:00:00;Q;7.srv;queue=workq
11/20/2026 11:00:00;E;7.srv;user=ann group=phys account="big project" jobname="x Resource_List.ncpus=64 start=1" queue=workq qtime=1795168800 start=1795169100 end=1795172400 Resource_List.ncpus=4 Resource_List.select="1:ncpus=4:mem=1gb" Resource_List.walltime=02:00:00 resources_used.walltime=00:55:00
11/20/2026 11:00:00;E;8.srv;user=bob group=chem account=solo queue=workq start=1795169000 end=1795169600 Resource_List.ncpus=2 resources_used.walltime=00:10:00
"#;

#[test]
fn pbs_logs_with_quoted_values_are_the_same_jobs_to_both() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    for f in ["20240413", "20240414"] {
        std::fs::copy(data(&format!("usage/pbs_logs/{f}")), logs.join(f)).unwrap();
    }
    std::fs::write(logs.join("20261120"), QUOTED).unwrap();
    let (replay, left_out) = replay_jobs(&logs, TraceFormat::Pbs);
    let by_user = usage_record(dir.path(), "u", &logs, &["--usage-res", "ncpus"]);
    let by_account = usage_record(
        dir.path(),
        "a",
        &logs,
        &["--usage-res", "ncpus", "--entity", "Account_Name"],
    );
    // `usage record` charges every E record; replay keeps those that say when they started.
    let started: Vec<&String> = replay.keys().collect();
    assert_eq!(started, ["101.pbs", "7.srv", "8.srv"]);
    assert_eq!(
        left_out,
        [format!("never started: {}", by_user.len() - started.len())]
    );
    for (id, r) in &replay {
        let (u, a) = (&by_user[id], &by_account[id]);
        assert_eq!(u.entity, r.user, "{id}");
        // Account_Name: the account, else egroup:euser; replay's account is the group then.
        let account = a
            .entity
            .rsplit_once(':')
            .map_or(a.entity.as_str(), |(g, _)| g);
        assert_eq!(account, r.account, "{id}");
        assert_eq!(u.charge, r.cores as f64, "{id}");
        assert_eq!(u.end, a.end, "{id}");
    }
    let q = &replay["7.srv"];
    assert_eq!(q.account, "big project");
    assert_eq!(by_account["7.srv"].entity, "big project");
    // The quoted job name is one value: 4 cores and the real start, not 64 and 1.
    assert_eq!((q.cores, q.run, q.submit), (4, 3300, 1_795_168_800));
    assert_eq!(by_user["7.srv"].end, 1_795_172_400);
    assert_eq!(q.walltime, Some(7200));
    assert_eq!(q.mem, 0);
}

#[test]
fn a_flux_jobs_table_is_the_same_jobs_to_both() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("accounting.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(
        r#"CREATE TABLE association_table (username tinytext, userid int, bank tinytext,
               default_bank tinytext);
           INSERT INTO association_table VALUES ('alice', 1001, 'physics', 'physics'),
               ('bob', 1002, 'chem', 'chem');
           CREATE TABLE config_table (key text PRIMARY KEY, value);
           INSERT INTO config_table VALUES ('node_weight', 0), ('core_weight', 1);
           CREATE TABLE jobs (id int, userid int, t_submit real, t_run real, t_inactive real,
               ranks text, R text, jobspec text, project text, bank text);
           INSERT INTO jobs VALUES
             (11, 1001, 100, 100, 400, '0', '{"execution":{"R_lite":[{"rank":"0","children":{"core":"0-3"}}]}}',
              '{"attributes":{"system":{"duration":600}}}', '*', 'physics'),
             (12, 1002, 150, 400, 500, '0', '{"execution":{"R_lite":[{"rank":"0-1","children":{"core":"0-1"}}]}}',
              '{"attributes":{"system":{"duration":0}}}', '*', ''),
             (13, 1002, 160, 0, 170, '', '', '{}', '*', 'chem'),
             (14, 1001, 200, 500, 560, '0', '{"execution":{"R_lite":[{"rank":"0","children":{"core":"0"}}]}}',
              '{"attributes":{"system":{"duration":120.5}}}', '*', 'physics');"#,
    )
    .unwrap();
    drop(c);
    let (replay, left_out) = replay_jobs(&db, TraceFormat::Flux);
    let charged = usage_record(dir.path(), "f", &db, &[]);
    assert_eq!(replay.keys().collect::<Vec<_>>(), ["11", "12", "14"]);
    assert_eq!(left_out, ["never ran (t_run 0): 1"]);
    same_jobs(&charged, &replay);
    assert_eq!(charged["12"].account.as_deref(), Some("chem"));
    assert_eq!((charged["11"].end, replay["11"].run), (400, 300));
}
