//! The qstat reader against the SIMD JSON crates, end to end for the read: each reader takes the
//! same `qstat -f -F json` text to the same `JobSet` (the attributes `order` binds, converted by
//! `fairsort::jobs::raw::add_job`, then `finish`ed), on one core and on two.
//!
//! * `fairsort` — the product's reader (`fairsort::pbs::read_qstat_json`): its strict scanner,
//!   the `Jobs` object cut in parts read on every thread of rayon's pool;
//! * `serde_json` — serde_json's streaming deserializer with a visitor per job, in one pass (what
//!   the product falls back to, written here again on the public `add_job`);
//! * `sonic-rs` — its lazy API: `to_object_iter` over the top level and each job, the bound
//!   attributes taken from their `LazyValue`s, everything else skipped unread;
//! * `simd-json` — its tape (`to_tape`) over a copy of the text (simd-json parses in place), the
//!   tape walked for the bound attributes.
//!
//! Input: `FAIRSORT_QSTAT_FILE=/path/jobs.json` (e.g. the 1.7 GB file of
//! `benches/peers/run.sh`'s `order1m` case), else a generated text of `FAIRSORT_QSTAT_JOBS` jobs
//! (default 100 000, ~170 MB) in `benches/peers/gen.py`'s layout. Throughput is in bytes of input
//! per second (criterion prints GB/s).
//!
//! Run: `cargo bench --bench qstat_reader`; figures in docs/perf.md, "The qstat reader".

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fairsort::jobs::raw::{add_job, Raw, RawJob, RawResources, QSTAT_FIELDS};
use fairsort::jobs::JobSet;
use std::borrow::Cow;
use std::hint::black_box;
use std::time::Duration;

/// The text to read: a file named by `FAIRSORT_QSTAT_FILE`, else a generated one.
fn input() -> Vec<u8> {
    if let Ok(path) = std::env::var("FAIRSORT_QSTAT_FILE") {
        return std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    let jobs = std::env::var("FAIRSORT_QSTAT_JOBS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    generated(jobs).into_bytes()
}

/// `jobs` jobs in the layout of `benches/peers/gen.py qstat` (every attribute a PBS server
/// prints for a job, `Variable_List` included): ~1.7 KB a job.
fn generated(jobs: usize) -> String {
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    let mut s = String::with_capacity(jobs * 1800);
    s.push_str("{\n    \"timestamp\":1767261600,\n    \"pbs_version\":\"2025.2.0\",\n    \"pbs_server\":\"pbs\",\n    \"Jobs\":{\n");
    let queues = ["workq", "express", "long"];
    for i in 0..jobs {
        let user = next(20_000);
        let (group, login) = (user % 200, user % 4);
        let (state, accrue) = match next(100) {
            0..90 => ("Q", 2),
            90..97 => ("R", 3),
            _ => ("H", 1),
        };
        let (mem, ncpus, hours) = (1 + next(256), 1 << next(7), 1 + next(48));
        let queue = queues[next(3) as usize];
        let prio = next(10);
        let el = next(86_400);
        let (day, h, m, sec) = (1 + i * 28 / jobs.max(1), next(24), next(60), next(60));
        let ct = format!("Thu Jan {day:2} {h:02}:{m:02}:{sec:02} 2026");
        let id = 1000 + i;
        if i > 0 {
            s.push_str(",\n");
        }
        s.push_str(&format!(
            r#"        "{id}.pbs":{{
            "Job_Name":"job{id}",
            "Job_Owner":"u{user}@login{login}",
            "job_state":"{state}",
            "queue":"{queue}",
            "server":"pbs",
            "Checkpoint":"u",
            "ctime":"{ct}",
            "Error_Path":"login{login}:/home/u{user}/run/job{id}.e{id}",
            "Hold_Types":"n",
            "Join_Path":"n",
            "Keep_Files":"n",
            "Mail_Points":"a",
            "mtime":"{ct}",
            "Output_Path":"login{login}:/home/u{user}/run/job{id}.o{id}",
            "Priority":{prio},
            "qtime":"{ct}",
            "Rerunable":"True",
            "Resource_List":{{
                "mem":"{mem}gb",
                "ncpus":{ncpus},
                "nodect":1,
                "place":"free",
                "select":"1:ncpus={ncpus}:mem={mem}gb",
                "walltime":"{hours:02}:00:00"
            }},
            "substate":10,
            "Variable_List":{{
                "PBS_O_HOME":"/home/u{user}",
                "PBS_O_LOGNAME":"u{user}",
                "PBS_O_PATH":"/usr/local/bin:/usr/bin:/bin:/opt/pbs/bin",
                "PBS_O_MAIL":"/var/spool/mail/u{user}",
                "PBS_O_SHELL":"/bin/bash",
                "PBS_O_WORKDIR":"/home/u{user}/run",
                "PBS_O_QUEUE":"{queue}",
                "PBS_O_HOST":"login{login}"
            }},
            "euser":"u{user}",
            "egroup":"grp{group}",
            "etime":"{ct}",
            "eligible_time":"{:02}:{:02}:{:02}",
            "Submit_arguments":"-l walltime={hours:02}:00:00 job.sh",
            "project":"_pbs_project_default",
            "Submit_Host":"login{login}",
            "accrue_type":{accrue}
        }}"#,
            el / 3600,
            el % 3600 / 60,
            el % 60
        ));
    }
    s.push_str("\n    }\n}\n");
    s
}

/// The slot of `job` an attribute of a qstat job fills (`None`: not bound, skipped).
fn slot<'j, 'a>(job: &'j mut RawJob<'a>, key: &str) -> Option<&'j mut Option<Raw<'a>>> {
    Some(match key {
        "Job_Owner" => &mut job.owner,
        "euser" => &mut job.euser,
        "egroup" => &mut job.egroup,
        "Account_Name" => &mut job.account,
        "queue" => &mut job.queue,
        "job_state" => &mut job.state,
        "Priority" => &mut job.priority,
        "qtime" => &mut job.qtime,
        "eligible_time" => &mut job.eligible_time,
        "accrue_type" => &mut job.accrue_type,
        _ => return None,
    })
}

/// A number's text as serde_json reads it (correctly rounded), or `None` out of range.
fn number(text: &str) -> Option<f64> {
    let v: f64 = text.parse().ok()?;
    v.is_finite().then_some(v)
}

/// The serde_json reader: one pass, each job deserialized as it is reached.
mod serde_reader {
    use super::*;
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
    use std::fmt;

    /// One job's bound attributes.
    struct Job<'a>(RawJob<'a>);

    impl<'de: 'a, 'a> serde::Deserialize<'de> for Job<'a> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Job<'de>;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("a job")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Job<'de>, A::Error> {
                    let mut job = RawJob::default();
                    while let Some(key) = m.next_key::<Cow<'de, str>>()? {
                        if key == "Resource_List" {
                            job.resources = m.next_value()?;
                        } else if let Some(slot) = slot(&mut job, &key) {
                            *slot = m.next_value()?;
                        } else {
                            m.next_value::<IgnoredAny>()?;
                        }
                    }
                    Ok(Job(job))
                }
            }
            d.deserialize_map(V)
        }
    }

    /// The `Jobs` object, each job added to the set as it is parsed.
    struct Jobs<'s>(&'s mut JobSet);

    impl<'de> DeserializeSeed<'de> for Jobs<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_map(self)
        }
    }

    impl<'de> Visitor<'de> for Jobs<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("jobs")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
            while let Some(id) = m.next_key::<Cow<'de, str>>()? {
                let job: Job = m.next_value()?;
                add_job(self.0, &id, job.0, &QSTAT_FIELDS).map_err(serde::de::Error::custom)?;
            }
            Ok(())
        }
    }

    /// The top level.
    struct Top<'s>(&'s mut JobSet);

    impl<'de> Visitor<'de> for Top<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("qstat output")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
            while let Some(key) = m.next_key::<Cow<'de, str>>()? {
                if key == "Jobs" {
                    m.next_value_seed(Jobs(&mut *self.0))?;
                } else {
                    m.next_value::<IgnoredAny>()?;
                }
            }
            Ok(())
        }
    }

    /// Reads a whole text on this thread.
    pub fn read(bytes: &[u8]) -> Option<JobSet> {
        let mut set = JobSet::default();
        let mut de = serde_json::Deserializer::from_slice(bytes);
        de.deserialize_map(Top(&mut set)).ok()?;
        de.end().ok()?;
        set.finish().ok()?;
        Some(set)
    }
}

/// The sonic-rs reader: lazy iterators, bound values converted from their raw text.
mod sonic {
    use super::*;
    use sonic_rs::{JsonType, JsonValueTrait, LazyValue};

    /// A `LazyValue` as `Raw` (objects and arrays are `Other`, as they are bound nowhere).
    fn raw<'a>(v: &LazyValue<'a>) -> Option<Raw<'a>> {
        Some(match v.get_type() {
            JsonType::String => {
                let text = v.as_raw_cow();
                match text {
                    Cow::Borrowed(t) if !t.contains('\\') => {
                        Raw::Str(Cow::Borrowed(t.get(1..t.len() - 1)?))
                    }
                    t => Raw::Str(Cow::Owned(sonic_rs::from_str::<String>(&t).ok()?)),
                }
            }
            JsonType::Number => Raw::Num(number(v.as_raw_str().trim_end())?),
            JsonType::Boolean => Raw::Bool(v.as_bool()?),
            _ => Raw::Other,
        })
    }

    /// Reads a whole text on this thread.
    pub fn read(bytes: &[u8]) -> Option<JobSet> {
        let mut set = JobSet::default();
        for member in sonic_rs::to_object_iter(bytes) {
            let (key, value) = member.ok()?;
            if key != "Jobs" {
                continue;
            }
            for entry in value.into_object_iter()? {
                let (id, job) = entry.ok()?;
                let mut job_raw = RawJob::default();
                let mut have_resources = false;
                for attr in job.into_object_iter()? {
                    let (key, value) = attr.ok()?;
                    if key == "Resource_List" {
                        if have_resources {
                            return None;
                        }
                        have_resources = true;
                        let mut out = Vec::with_capacity(8);
                        for r in value.into_object_iter()? {
                            let (name, v) = r.ok()?;
                            out.push((name, raw(&v)?));
                        }
                        job_raw.resources = RawResources(out);
                    } else if let Some(slot) = slot(&mut job_raw, &key) {
                        if slot.is_some() {
                            return None;
                        }
                        *slot = if value.is_null() {
                            None
                        } else {
                            Some(raw(&value)?)
                        };
                    }
                }
                add_job(&mut set, &id, job_raw, &QSTAT_FIELDS).ok()?;
            }
        }
        set.finish().ok()?;
        Some(set)
    }
}

/// The simd-json reader: the tape of a copy of the text, walked node by node.
mod simd {
    use super::*;
    use simd_json::{Node, StaticNode};

    /// Nodes a value spans on the tape (itself included).
    fn span(node: &Node) -> usize {
        match node {
            Node::Object { count, .. } | Node::Array { count, .. } => count + 1,
            _ => 1,
        }
    }

    /// A scalar node as `Raw` (containers are `Other`); `None` for `null`.
    fn raw<'a>(node: &Node<'a>) -> Option<Raw<'a>> {
        Some(match *node {
            Node::String(s) => Raw::Str(Cow::Borrowed(s)),
            Node::Static(StaticNode::I64(n)) => Raw::Num(n as f64),
            Node::Static(StaticNode::U64(n)) => Raw::Num(n as f64),
            Node::Static(StaticNode::F64(n)) => Raw::Num(n),
            Node::Static(StaticNode::Bool(b)) => Raw::Bool(b),
            Node::Static(StaticNode::Null) => return None,
            _ => Raw::Other,
        })
    }

    /// Reads a whole text on this thread (copying it first: simd-json unescapes in place).
    pub fn read(bytes: &[u8]) -> Option<JobSet> {
        let mut copy = bytes.to_vec();
        let tape = simd_json::to_tape(&mut copy).ok()?;
        let nodes = &tape.0;
        let mut set = JobSet::default();
        let Node::Object { len, .. } = *nodes.first()? else {
            return None;
        };
        let mut i = 1;
        for _ in 0..len {
            let Node::String(key) = nodes[i] else {
                return None;
            };
            let value = i + 1;
            i = value + span(&nodes[value]);
            if key != "Jobs" {
                continue;
            }
            let Node::Object { len: jobs, .. } = nodes[value] else {
                return None;
            };
            let mut j = value + 1;
            for _ in 0..jobs {
                let Node::String(id) = nodes[j] else {
                    return None;
                };
                let Node::Object { len: attrs, .. } = nodes[j + 1] else {
                    return None;
                };
                let mut a = j + 2;
                j = j + 1 + span(&nodes[j + 1]);
                let mut job = RawJob::default();
                let mut have_resources = false;
                for _ in 0..attrs {
                    let Node::String(key) = nodes[a] else {
                        return None;
                    };
                    let v = a + 1;
                    a = v + span(&nodes[v]);
                    if key == "Resource_List" {
                        if have_resources {
                            return None;
                        }
                        have_resources = true;
                        let Node::Object { len: n, .. } = nodes[v] else {
                            return None;
                        };
                        let mut r = v + 1;
                        let mut out = Vec::with_capacity(8);
                        for _ in 0..n {
                            let Node::String(name) = nodes[r] else {
                                return None;
                            };
                            out.push((
                                Cow::Borrowed(name),
                                raw(&nodes[r + 1]).unwrap_or(Raw::Other),
                            ));
                            r += 1 + span(&nodes[r + 1]);
                        }
                        job.resources = RawResources(out);
                    } else if let Some(slot) = slot(&mut job, key) {
                        if slot.is_some() {
                            return None;
                        }
                        *slot = raw(&nodes[v]);
                    }
                }
                add_job(&mut set, id, job, &QSTAT_FIELDS).ok()?;
            }
        }
        set.finish().ok()?;
        Some(set)
    }
}

/// A pool of `threads` threads to run a reader in (the product's reader splits on rayon's pool).
fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// CPU time of the whole process so far, every live thread's (`/proc/self/task/*/schedstat`,
/// nanoseconds on CPU): on a shared machine wall time counts the other processes too.
fn process_cpu() -> Option<Duration> {
    let mut ns = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        ns += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(ns))
}

/// Runs `pass` `CPU_RUNS` times (default 3; 0: none) and prints its best and median wall and
/// CPU times and the throughputs they give, for a text of `bytes` bytes.
fn cpu_report<T>(label: &str, bytes: usize, mut pass: impl FnMut() -> T) {
    let runs: usize = std::env::var("CPU_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    for _ in 0..runs {
        let (cpu, wall) = (process_cpu(), std::time::Instant::now());
        drop(black_box(pass()));
        walls.push(wall.elapsed());
        if let (Some(a), Some(b)) = (cpu, process_cpu()) {
            cpus.push(b.saturating_sub(a));
        }
    }
    walls.sort();
    cpus.sort();
    let gb = bytes as f64 / 1e9;
    let show = |t: &[Duration]| match (t.first(), t.get(t.len() / 2)) {
        (Some(best), Some(median)) => format!(
            "best {:>7.3} s ({:>5.2} GB/s), median {:>7.3} s",
            best.as_secs_f64(),
            gb / best.as_secs_f64(),
            median.as_secs_f64()
        ),
        _ => "-".to_string(),
    };
    if runs > 0 {
        println!("{label:<28} wall {}   CPU {}", show(&walls), show(&cpus));
    }
}

fn readers(c: &mut Criterion) {
    let text = input();
    println!("qstat_reader: {} bytes", text.len());
    let want = fairsort::pbs::read_qstat_json(&text).expect("a valid qstat text");
    // Every reader gives the serde reader's jobs, field for field.
    let check = |name: &str, got: Option<JobSet>| {
        let got = got.unwrap_or_else(|| panic!("{name} refused the text"));
        assert_eq!(got.describe(), want.describe(), "{name}");
    };
    check("serde_json", serde_reader::read(&text));
    check("sonic-rs", sonic::read(&text));
    check("simd-json", simd::read(&text));
    drop(want);

    let pools = [pool(1), pool(2)];
    let n = text.len();
    for (threads, pool) in [1, 2].into_iter().zip(&pools) {
        cpu_report(&format!("fairsort/{threads}"), n, || {
            pool.install(|| fairsort::pbs::read_qstat_json(&text).ok())
        });
    }
    let one = &pools[0];
    cpu_report("serde_json/1", n, || {
        one.install(|| serde_reader::read(&text))
    });
    cpu_report("sonic-rs lazy/1", n, || one.install(|| sonic::read(&text)));
    cpu_report("simd-json tape/1", n, || one.install(|| simd::read(&text)));
    if std::env::var("CPU_ONLY").is_ok() {
        return;
    }

    let mut g = c.benchmark_group("qstat_reader");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(10));
    for (threads, pool) in [1, 2].into_iter().zip(&pools) {
        g.bench_function(format!("fairsort/{threads} threads"), |b| {
            b.iter(|| pool.install(|| black_box(fairsort::pbs::read_qstat_json(&text).ok())))
        });
    }
    g.bench_function("serde_json/1 thread", |b| {
        b.iter(|| one.install(|| black_box(serde_reader::read(&text))))
    });
    g.bench_function("sonic-rs lazy/1 thread", |b| {
        b.iter(|| one.install(|| black_box(sonic::read(&text))))
    });
    g.bench_function("simd-json tape/1 thread", |b| {
        b.iter(|| one.install(|| black_box(simd::read(&text))))
    });
    g.finish();
}

criterion_group!(benches, readers);
criterion_main!(benches);
