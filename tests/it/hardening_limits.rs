//! Resource limits: 100 MB lines (generated at run time, never committed) are refused with a
//! clear message by every line-oriented reader, without reading the whole line into memory
//! where the reader streams; and the home survives a full disk and a read-only mount.

use fairsort::formula::{compile, ResourceTable};
use fairsort::home::{current_host, current_user, Home};
use fairsort::inputs::{read_tree, TreeFormat};
use fairsort::pbs::accounting::PbsLogReader;
use fairsort::pbs::defs::FairshareEntity;
use fairsort::qmgr::run_request;
use fairsort::usage::usage_res_charge;
use std::io::{BufReader, Read, Write};
use std::path::Path;

use crate::common::fairsort_home;

const HUGE: usize = 100 * 1024 * 1024;

/// A reader producing `prefix`, then `len` bytes of `x`, then `suffix`, without holding them.
struct Generated {
    prefix: Vec<u8>,
    len: usize,
    suffix: Vec<u8>,
    pos: usize,
}

impl Read for Generated {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let (a, b) = (self.prefix.len(), self.prefix.len() + self.len);
        let p = self.pos;
        let n = if p < a {
            let n = buf.len().min(a - p);
            buf[..n].copy_from_slice(&self.prefix[p..p + n]);
            n
        } else if p < b {
            let n = buf.len().min(b - p);
            buf[..n].fill(b'x');
            n
        } else {
            let rest = &self.suffix[(p - b).min(self.suffix.len())..];
            let n = buf.len().min(rest.len());
            buf[..n].copy_from_slice(&rest[..n]);
            n
        };
        self.pos += n;
        Ok(n)
    }
}

fn huge_stream(prefix: &str, suffix: &str) -> BufReader<Generated> {
    BufReader::with_capacity(
        1 << 16,
        Generated {
            prefix: prefix.as_bytes().to_vec(),
            len: HUGE,
            suffix: suffix.as_bytes().to_vec(),
            pos: 0,
        },
    )
}

/// Writes `prefix`, a 100 MB line, `suffix` to a file in chunks.
fn huge_file(dir: &Path, name: &str, prefix: &str, suffix: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
    f.write_all(prefix.as_bytes()).unwrap();
    let block = vec![b'x'; 1 << 20];
    for _ in 0..HUGE / block.len() {
        f.write_all(&block).unwrap();
    }
    f.write_all(suffix.as_bytes()).unwrap();
    f.flush().unwrap();
    p
}

#[test]
fn tree_readers_refuse_a_100_mb_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (TreeFormat::Pbs, "grp 10 root 5\n"),
        (
            TreeFormat::Sshare,
            "Account|User|RawShares|NormShares|RawUsage\n",
        ),
        (
            TreeFormat::Sacctmgr,
            "Cluster|Account|User|Partition|Share|QOS|ParentName\n",
        ),
        (TreeFormat::Toml, "root = \"r\"\n"),
    ];
    // One file serves every format: the line is refused before any parsing.
    let path = huge_file(dir.path(), "tree", cases[0].1, "\nlast 1 root 1\n");
    for (format, _) in cases {
        let e = read_tree(&path, Some(format)).unwrap_err().to_string();
        assert_eq!(
            e,
            format!("{}:2: line is longer than 1048576 bytes", path.display()),
            "{format}"
        );
    }
}

#[test]
fn accounting_readers_skip_a_100_mb_line_and_read_on() {
    let charge = usage_res_charge("ncpus*walltime", &ResourceTable::builtin()).unwrap();
    let mut reader = PbsLogReader::new(FairshareEntity::Euser, charge.as_ref());
    let mut jobs = Vec::new();
    let mut malformed = Vec::new();
    let mut r = huge_stream(
        "04/15/2024 08:01:00;E;1.pbs;user=",
        "\n04/15/2024 08:02:00;E;2.pbs;user=amy end=1713168120 resources_used.walltime=00:01:00 Resource_List.ncpus=2\n",
    );
    let stats = reader
        .read(
            &mut r,
            Path::new("log"),
            &mut |j| {
                jobs.push(j);
                Ok(())
            },
            &mut malformed,
        )
        .unwrap();
    assert_eq!(stats.lines, 2);
    assert_eq!(malformed.len(), 1);
    assert_eq!(
        malformed[0].to_string(),
        "log:1: line is longer than 1048576 bytes"
    );
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].entity, "amy");
    assert_eq!(jobs[0].charge, 120.0);

    let mut jobs = Vec::new();
    let mut malformed = Vec::new();
    let mut r = huge_stream(
        "JobID|User|Account|End|ElapsedRaw|AllocCPUS|State\n1|",
        "|p|2024-04-13T11:00:00|60|1|COMPLETED\n2|amy|p|2024-04-13T11:00:00|60|2|COMPLETED\n",
    );
    fairsort::slurm::read_sacct(
        &mut r,
        Path::new("sacct"),
        &Default::default(),
        &mut |j| {
            jobs.push(j);
            Ok(())
        },
        &mut malformed,
    )
    .unwrap();
    assert_eq!(
        malformed
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["sacct:2: line is longer than 1048576 bytes"]
    );
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].charge, 120.0);
}

#[test]
fn formula_and_qmgr_refuse_a_100_mb_formula() {
    let huge = "1".repeat(HUGE);
    let e = compile(&huge, &ResourceTable::builtin()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "formula is too long: 104857600 bytes (the limit is 65536)"
    );
    let dir = tempfile::tempdir().unwrap();
    let home = Home::open(Some(dir.path())).unwrap();
    let line = format!("set server job_sort_formula = \"{huge}\"");
    let e = run_request(&home, &current_user(), &current_host(), &line, false)
        .unwrap_err()
        .render();
    assert!(
        e.starts_with("qmgr obj= svr=default: Invalid Formula Format\n"),
        "{}",
        e.get(..300).unwrap_or(&e)
    );
    assert!(e.len() < 2000, "the message must not echo 100 MB");
    assert!(home.load().unwrap().server.job_sort_formula.is_none());
}

/// Inputs parsed whole (CSV job lists, `fairsort test` files, qmgr scripts on stdin) refuse a
/// line over 1 MiB by number instead of parsing it.
#[test]
fn whole_file_inputs_refuse_an_overlong_line() {
    let long = "x".repeat(2 * 1024 * 1024);
    let csv = format!("id,user,queue\n1.s,amy,workq\n2.s,{long},workq\n");
    let e = fairsort::native::read_job_list_csv(csv.as_bytes()).unwrap_err();
    assert_eq!(e.to_string(), "3: line is longer than 1048576 bytes");

    let test_file = format!("[formulas]\n# {long}\n");
    let e = fairsort::ftest::file::parse("t.toml", &test_file).unwrap_err();
    assert_eq!(e.to_string(), "t.toml:2: line is longer than 1048576 bytes");

    let dir = tempfile::tempdir().unwrap();
    let out = fairsort_home(dir.path())
        .arg("qmgr")
        .write_stdin(format!(
            "list server\nset server job_sort_formula = \"{long}\"\n"
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("<stdin>:2: line is longer than 1048576 bytes"),
        "{}",
        err.get(..300).unwrap_or(&err)
    );
}
