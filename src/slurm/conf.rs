//! `slurm.conf` as the multifactor priority plugin reads it: every `Priority*` parameter,
//! `FairShareDampeningFactor`, `PartitionName` lines (`PriorityJobFactor`, `PriorityTier`, the old
//! `Priority`, `MaxTime`, `Nodes`, `TRESBillingWeights`) and `NodeName` lines (CPU, memory and GRES
//! counts for the job-size and TRES normalisations). Keys are case-insensitive, as slurmctld's.
//! Other parameters are ignored. `Include` files are followed (`conf_source`). The text
//! `scontrol show config` prints (`Key = Value` lines under a `Configuration data as of` header,
//! `(null)` for unset) is read as the same configuration, for sites without a slurm.conf.

use crate::files::FormatError;
use crate::slurm::conf_source::ConfSource;
pub use crate::slurm::hostlist::expand_hostlist;
use crate::slurm::hostlist::{expand_hostlist_within, Budget};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Slurm's INFINITE (`0xffffffff`): an unlimited time limit.
pub const INFINITE: u32 = u32::MAX;

/// `PriorityFlags`, one field per flag.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PriorityFlags {
    /// `ACCRUE_ALWAYS`: accrue age from eligibility, ignoring limits.
    pub accrue_always: bool,
    /// `CALCULATE_RUNNING`: running jobs are recalculated too.
    pub calculate_running: bool,
    /// `DEPTH_OBLIVIOUS`.
    pub depth_oblivious: bool,
    /// `NO_FAIR_TREE` (classic).
    pub no_fair_tree: bool,
    /// `INCR_ONLY`.
    pub incr_only: bool,
    /// `MAX_TRES` (billing).
    pub max_tres: bool,
    /// `NO_NORMAL_ASSOC` (or `NO_NORMAL_ALL`).
    pub no_normal_assoc: bool,
    /// `NO_NORMAL_PART`.
    pub no_normal_part: bool,
    /// `NO_NORMAL_QOS`.
    pub no_normal_qos: bool,
    /// `NO_NORMAL_TRES`.
    pub no_normal_tres: bool,
    /// `SMALL_RELATIVE_TO_TIME`.
    pub small_relative_to_time: bool,
}

/// One `PartitionName` line (after `PartitionName=DEFAULT`).
#[derive(Debug, Clone, PartialEq)]
pub struct Partition {
    /// The name.
    pub name: String,
    /// `PriorityJobFactor` (or `Priority` of old configurations); default 1.
    pub job_factor: u32,
    /// `PriorityTier` (or `Priority`); default 1.
    pub tier: u32,
    /// `MaxTime` in minutes; [`INFINITE`] when unlimited (the default).
    pub max_time: u32,
    /// Indexes into [`SlurmConf::nodes`].
    pub nodes: Vec<usize>,
    /// `TRESBillingWeights` as written (lower-case TRES name → weight per unit; `mem` per MB).
    pub billing_weights: Vec<(String, f64)>,
}

/// One node (`NodeName` lines expanded).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Host name.
    pub name: String,
    /// CPUs (`CPUs`, else Boards × Sockets × CoresPerSocket × ThreadsPerCore).
    pub cpus: u32,
    /// `RealMemory` in MB (default 1).
    pub memory: u64,
    /// `Gres` counts: `gres/gpu` and `gres/gpu:a100` style names.
    pub gres: Vec<(String, u64)>,
    /// `State=FUTURE` nodes do not count.
    pub future: bool,
}

/// What the multifactor plugin reads from `slurm.conf`.
#[derive(Debug, Clone, PartialEq)]
pub struct SlurmConf {
    /// `PriorityType`.
    pub priority_type: String,
    /// `AccountingStorageType` (default `accounting_storage/none`).
    pub accounting_storage_type: String,
    /// `PriorityWeightAge`.
    pub weight_age: u32,
    /// `PriorityWeightAssoc`.
    pub weight_assoc: u32,
    /// `PriorityWeightFairshare`.
    pub weight_fairshare: u32,
    /// `PriorityWeightJobSize`.
    pub weight_jobsize: u32,
    /// `PriorityWeightPartition`.
    pub weight_partition: u32,
    /// `PriorityWeightQOS`.
    pub weight_qos: u32,
    /// `PriorityWeightTRES` (lower-case TRES name → weight).
    pub weight_tres: Vec<(String, f64)>,
    /// `PriorityMaxAge` in seconds (default 7-0).
    pub max_age: u32,
    /// `PriorityDecayHalfLife` in seconds (default 7-0).
    pub decay_half_life: u32,
    /// `PriorityFavorSmall`.
    pub favor_small: bool,
    /// `PriorityFlags`.
    pub flags: PriorityFlags,
    /// `FairShareDampeningFactor` (default 1).
    pub dampening: u32,
    /// Every other `Priority*` parameter, as written (`PriorityCalcPeriod`, ...).
    pub other_priority: BTreeMap<String, String>,
    /// Nodes, in file order.
    pub nodes: Vec<Node>,
    /// Partitions, in file order.
    pub partitions: Vec<Partition>,
    /// `SchedulerParameters` as written (the last such line wins, as in slurmctld) and its
    /// 1-based line: the backfill parameters are read from it (`slurm::snapshot`).
    pub scheduler_parameters: Option<(usize, String)>,
    /// Notes for the reader (an unknown flag, a configuration without nodes).
    pub notes: Vec<String>,
}

impl Default for SlurmConf {
    fn default() -> Self {
        SlurmConf {
            priority_type: "priority/basic".into(),
            accounting_storage_type: "accounting_storage/none".into(),
            weight_age: 0,
            weight_assoc: 0,
            weight_fairshare: 0,
            weight_jobsize: 0,
            weight_partition: 0,
            weight_qos: 0,
            weight_tres: Vec::new(),
            max_age: 7 * 86400,
            decay_half_life: 7 * 86400,
            favor_small: false,
            flags: PriorityFlags::default(),
            dampening: 1,
            other_priority: BTreeMap::new(),
            nodes: Vec::new(),
            partitions: Vec::new(),
            scheduler_parameters: None,
            notes: Vec::new(),
        }
    }
}

impl SlurmConf {
    /// Whether slurmctld runs with SlurmDBD (`slurm_with_slurmdbd`): without it the multifactor
    /// plugin ignores `PriorityWeightAge` and `PriorityWeightFairshare` ("can only be used with
    /// SlurmDBD, ignoring"), though `sprio -w` still prints them.
    pub fn with_slurmdbd(&self) -> bool {
        self.accounting_storage_type
            .eq_ignore_ascii_case("accounting_storage/slurmdbd")
    }

    /// Nodes that count (not `State=FUTURE`): slurmctld's `active_node_record_count`.
    pub fn node_count(&self) -> u32 {
        self.nodes.iter().filter(|n| !n.future).count() as u32
    }

    /// The CPUs of those nodes: slurmctld's `cluster_cpus`.
    pub fn cluster_cpus(&self) -> u64 {
        self.nodes
            .iter()
            .filter(|n| !n.future)
            .map(|n| u64::from(n.cpus))
            .sum()
    }

    /// The partition named `name`.
    pub fn partition(&self, name: &str) -> Option<&Partition> {
        self.partitions.iter().find(|p| p.name == name)
    }

    /// The largest `PriorityJobFactor` (the partition factor's normaliser).
    pub fn max_job_factor(&self) -> u32 {
        self.partitions
            .iter()
            .map(|p| p.job_factor)
            .max()
            .unwrap_or(0)
    }

    /// The partition's TRES totals (`cpu`, `mem` in MB, `node`, `billing`, `gres/...`), as
    /// slurmctld's `part_ptr->tres_cnt`.
    pub fn partition_tres(&self, p: &Partition) -> BTreeMap<String, f64> {
        let mut t: BTreeMap<String, f64> = BTreeMap::new();
        let (mut cpu, mut mem, mut nodes) = (0.0, 0.0, 0.0);
        for &i in &p.nodes {
            let Some(n) = self.nodes.get(i) else { continue };
            if n.future {
                continue;
            }
            cpu += f64::from(n.cpus);
            mem += n.memory as f64;
            nodes += 1.0;
            for (g, c) in &n.gres {
                *t.entry(g.clone()).or_default() += *c as f64;
            }
        }
        t.insert("cpu".into(), cpu);
        t.insert("mem".into(), mem);
        t.insert("node".into(), nodes);
        let billing = if p.billing_weights.is_empty() {
            cpu
        } else {
            let weighted = p
                .billing_weights
                .iter()
                .map(|(name, w)| w * t.get(name).copied().unwrap_or(0.0));
            if self.flags.max_tres {
                weighted.fold(0.0, f64::max)
            } else {
                weighted.sum()
            }
        };
        t.insert("billing".into(), billing);
        t
    }
}

/// Splits a line into `Key=Value` words (values may be double-quoted; blanks around `=`).
fn words(line: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if chars.peek().is_none() {
            break;
        }
        let mut key = String::new();
        while let Some(&c) = chars.peek() {
            if c == '=' || c.is_whitespace() {
                break;
            }
            key.push(c);
            chars.next();
        }
        let mut value = String::new();
        // Slurm's parser allows blanks around `=` (`Key = Value`, as scontrol prints it).
        let mut ahead = chars.clone();
        while ahead.peek().is_some_and(|c| c.is_whitespace()) {
            ahead.next();
        }
        if ahead.peek() == Some(&'=') {
            chars = ahead;
            chars.next();
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            if chars.peek() == Some(&'"') {
                chars.next();
                for c in chars.by_ref() {
                    if c == '"' {
                        break;
                    }
                    value.push(c);
                }
            } else {
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() {
                        break;
                    }
                    value.push(c);
                    chars.next();
                }
            }
        }
        out.push((key, value));
    }
    out
}

/// A Slurm time string in minutes (`time_str2mins`): `MM`, `MM:SS`, `HH:MM:SS`, `D-HH`,
/// `D-HH:MM`, `D-HH:MM:SS`; seconds round up to a minute; `UNLIMITED`/`INFINITE` → [`INFINITE`].
pub fn time_minutes(s: &str) -> Option<u32> {
    let s = s.trim();
    if s.eq_ignore_ascii_case("unlimited") || s.eq_ignore_ascii_case("infinite") || s == "-1" {
        return Some(INFINITE);
    }
    let num = |t: &str| t.trim().parse::<u64>().ok();
    let (days, rest) = match s.split_once('-') {
        Some((d, r)) => (num(d)?, Some(r)),
        None => (0, None),
    };
    let secs: u64 = match rest {
        Some(r) => {
            let p: Vec<&str> = r.split(':').collect();
            let (h, m, sec) = match p.as_slice() {
                [h] => (num(h)?, 0, 0),
                [h, m] => (num(h)?, num(m)?, 0),
                [h, m, sec] => (num(h)?, num(m)?, num(sec)?),
                _ => return None,
            };
            days * 86400 + h * 3600 + m * 60 + sec
        }
        None => {
            let p: Vec<&str> = s.split(':').collect();
            match p.as_slice() {
                [m] => num(m)? * 60,
                [m, sec] => num(m)? * 60 + num(sec)?,
                [h, m, sec] => num(h)? * 3600 + num(m)? * 60 + num(sec)?,
                _ => return None,
            }
        }
    };
    u32::try_from(secs.div_ceil(60)).ok()
}

/// `CPU=1000,Mem=0.25G,GRES/gpu=2` → lower-case names and weights (a `G`/`T`/`K`/`M` suffix on a
/// `mem` weight makes it per GB/TB/KB/MB; stored per MB).
pub fn parse_tres_weights(s: &str) -> Result<Vec<(String, f64)>, String> {
    let mut out = Vec::new();
    for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| format!("`{item}` is not NAME=WEIGHT"))?;
        let name = name.trim().to_ascii_lowercase();
        let value = value.trim();
        let (num, per_mb) = match value.chars().last() {
            Some('K' | 'k') => (&value[..value.len() - 1], 1024.0),
            Some('M' | 'm') => (&value[..value.len() - 1], 1.0),
            Some('G' | 'g') => (&value[..value.len() - 1], 1.0 / 1024.0),
            Some('T' | 't') => (&value[..value.len() - 1], 1.0 / (1024.0 * 1024.0)),
            _ => (value, 1.0),
        };
        let w: f64 = num
            .parse()
            .ok()
            .filter(|w: &f64| w.is_finite())
            .ok_or_else(|| format!("`{item}`: `{value}` is not a number"))?;
        out.push((name, w * per_mb));
    }
    Ok(out)
}

fn parse_gres(s: &str) -> Result<Vec<(String, u64)>, String> {
    let mut out: Vec<(String, u64)> = Vec::new();
    for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let item = item.split('(').next().unwrap_or(item);
        let parts: Vec<&str> = item.split(':').collect();
        let (name, ty, count) = match parts.as_slice() {
            [n] => (*n, None, "1"),
            [n, c] if c.chars().all(|ch| ch.is_ascii_digit()) => (*n, None, *c),
            [n, t] => (*n, Some(*t), "1"),
            [n, t, c, ..] => (*n, Some(*t), *c),
            _ => return Err(format!("bad Gres `{item}`")),
        };
        let count: u64 = count
            .parse()
            .map_err(|_| format!("bad Gres count in `{item}`"))?;
        let mut add = |k: String| match out.iter_mut().find(|(n, _)| *n == k) {
            Some(e) => e.1 += count,
            None => out.push((k, count)),
        };
        add(format!("gres/{}", name.to_ascii_lowercase()));
        if let Some(t) = ty {
            add(format!("gres/{}:{}", name.to_ascii_lowercase(), t));
        }
    }
    Ok(out)
}

fn u32_value(key: &str, v: &str) -> Result<u32, String> {
    v.trim()
        .parse()
        .map_err(|_| format!("{key}={v}: not an unsigned integer"))
}

fn flag_yes(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "yes" | "y" | "1" | "true"
    )
}

/// Whether `text` is what `scontrol show config` prints (its first line).
pub fn is_scontrol_show_config(text: &str) -> bool {
    text.trim_start_matches('\u{feff}')
        .lines()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.trim_start().starts_with("Configuration data as of"))
}

/// Reads `slurm.conf` text (or `scontrol show config` output); `file` is the path it was read
/// from: it names the text in errors, and `Include` files are found beside it.
pub fn parse_slurm_conf(text: &str, file: &str) -> Result<SlurmConf, FormatError> {
    parse_source(&ConfSource::load(text, file)?)
}

/// The text of `slurm.conf` with its `Include` files pasted in, as `fairsort slurm import`
/// stores it (`file` as for [`parse_slurm_conf`]).
pub fn inline_includes(text: &str, file: &str) -> Result<String, FormatError> {
    Ok(ConfSource::load(text, file)?.flattened())
}

/// Reads the lines of a configuration, its `Include` files' in their place.
fn parse_source(src: &ConfSource) -> Result<SlurmConf, FormatError> {
    let scontrol = src
        .lines
        .iter()
        .find(|l| !l.text.trim().is_empty())
        .is_some_and(|l| is_scontrol_show_config(&l.text));
    let mut conf = SlurmConf::default();
    let mut node_default: BTreeMap<String, String> = BTreeMap::new();
    let mut part_default: BTreeMap<String, String> = BTreeMap::new();
    // Every hostlist of the file draws on one budget; nodes are found by name in O(1).
    let mut budget = Budget::file();
    let mut node_index: HashMap<String, usize> = HashMap::new();
    // Partition lines are resolved after every node is known (Nodes=ALL, forward names).
    let mut part_lines: Vec<((usize, usize), BTreeMap<String, String>)> = Vec::new();
    let mut joined = String::new();
    let mut start = (0, 0);
    for l in &src.lines {
        let raw = l.text.strip_prefix('\u{feff}').unwrap_or(&l.text);
        let line = raw.split('#').next().unwrap_or("");
        if joined.is_empty() {
            start = (l.file, l.line);
        }
        if let Some(head) = line.trim_end().strip_suffix('\\') {
            joined.push_str(head);
            joined.push(' ');
            continue;
        }
        joined.push_str(line);
        let line = std::mem::take(&mut joined);
        let (file, start_line) = (src.files[start.0].as_str(), start.1);
        let err = |m: String| FormatError::line(file, start_line, m);
        let mut ws = words(&line);
        if scontrol {
            // `(null)` is scontrol's word for unset.
            ws.retain(|(_, v)| v != "(null)");
        }
        let Some((first, first_value)) = ws.first() else {
            continue;
        };
        let lower = first.to_ascii_lowercase();
        let map = || -> BTreeMap<String, String> {
            ws.iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
                .collect()
        };
        match lower.as_str() {
            "nodename" => {
                let mut m = node_default.clone();
                m.extend(map());
                if first_value.eq_ignore_ascii_case("default") {
                    m.remove("nodename");
                    node_default = m;
                    continue;
                }
                let get = |k: &str| m.get(k).map(String::as_str);
                let int = |k: &str, d: u32| -> Result<u32, FormatError> {
                    get(k).map_or(Ok(d), |v| u32_value(k, v).map_err(err))
                };
                let cpus = match get("cpus").or_else(|| get("procs")) {
                    Some(v) => u32_value("CPUs", v).map_err(err)?,
                    None => int("boards", 1)?
                        .saturating_mul(int("sockets", 1)?)
                        .saturating_mul(int("corespersocket", 1)?)
                        .saturating_mul(int("threadspercore", 1)?),
                };
                let memory = match get("realmemory") {
                    Some(v) => v
                        .trim()
                        .parse()
                        .map_err(|_| err(format!("RealMemory={v}: not an integer")))?,
                    None => 1,
                };
                let gres = get("gres").map_or(Ok(Vec::new()), |g| parse_gres(g).map_err(err))?;
                let future = get("state").is_some_and(|s| s.eq_ignore_ascii_case("future"));
                for name in expand_hostlist_within(first_value, &mut budget).map_err(err)? {
                    if let Some(&i) = node_index.get(&name) {
                        let n = &mut conf.nodes[i];
                        n.cpus = cpus;
                        n.memory = memory;
                        n.gres = gres.clone();
                        n.future = future;
                    } else {
                        node_index.insert(name.clone(), conf.nodes.len());
                        conf.nodes.push(Node {
                            name,
                            cpus,
                            memory,
                            gres: gres.clone(),
                            future,
                        });
                    }
                }
            }
            "partitionname" => {
                let mut m = part_default.clone();
                m.extend(map());
                if first_value.eq_ignore_ascii_case("default") {
                    m.remove("partitionname");
                    part_default = m;
                } else {
                    part_lines.push((start, m));
                }
            }
            _ => {
                for (k, v) in &ws {
                    if k.eq_ignore_ascii_case("SchedulerParameters") {
                        conf.scheduler_parameters = Some((start_line, v.clone()));
                    }
                    set_parameter(&mut conf, k, v).map_err(err)?;
                }
            }
        }
    }
    if scontrol && conf.nodes.is_empty() && part_lines.is_empty() {
        conf.notes.push(
            "scontrol show config lists no nodes or partitions: the JOBSIZE, PARTITION and TRES \
             factors see none (give slurm.conf for them)"
                .to_string(),
        );
    }
    for ((file, line), m) in part_lines {
        let file = src.files[file].as_str();
        let err = |msg: String| FormatError::line(file, line, msg);
        let get = |k: &str| m.get(k).map(String::as_str);
        let name = get("partitionname").unwrap_or("").to_string();
        let old = get("priority")
            .map(|v| u32_value("Priority", v))
            .transpose()
            .map_err(err)?;
        let job_factor = match get("priorityjobfactor") {
            Some(v) => u32_value("PriorityJobFactor", v).map_err(err)?,
            None => old.unwrap_or(1),
        };
        let tier = match get("prioritytier") {
            Some(v) => u32_value("PriorityTier", v).map_err(err)?,
            None => old.unwrap_or(1),
        };
        let max_time = match get("maxtime") {
            Some(v) => time_minutes(v).ok_or_else(|| err(format!("MaxTime={v}: not a time")))?,
            None => INFINITE,
        };
        let nodes: Vec<usize> = match get("nodes") {
            None => Vec::new(),
            Some(v) if v.eq_ignore_ascii_case("all") => {
                let all = conf.nodes.len();
                budget
                    .take(all, 0, v)
                    .map_err(|m| err(format!("partition {name}: {m}")))?;
                (0..all).collect()
            }
            Some(v) => {
                let mut idx = Vec::new();
                let mut seen = HashSet::new();
                for host in expand_hostlist_within(v, &mut budget).map_err(err)? {
                    let i = *node_index.get(&host).ok_or_else(|| {
                        err(format!(
                            "partition {name}: node `{host}` has no NodeName line"
                        ))
                    })?;
                    if seen.insert(i) {
                        idx.push(i);
                    }
                }
                idx
            }
        };
        let billing_weights = get("tresbillingweights")
            .map_or(Ok(Vec::new()), parse_tres_weights)
            .map_err(|m| err(format!("TRESBillingWeights: {m}")))?;
        conf.partitions.push(Partition {
            name,
            job_factor,
            tier,
            max_time,
            nodes,
            billing_weights,
        });
    }
    if !conf.with_slurmdbd() {
        for (name, w) in [
            ("PriorityWeightAge", conf.weight_age),
            ("PriorityWeightFairshare", conf.weight_fairshare),
        ] {
            if w != 0 {
                conf.notes.push(format!(
                    "{name} can only be used with SlurmDBD, ignoring (AccountingStorageType={}), as slurmctld does",
                    conf.accounting_storage_type
                ));
            }
        }
    }
    Ok(conf)
}

fn set_parameter(conf: &mut SlurmConf, key: &str, v: &str) -> Result<(), String> {
    let k = key.to_ascii_lowercase();
    let time_secs = |v: &str| -> Result<u32, String> {
        match time_minutes(v) {
            Some(INFINITE) => Ok(INFINITE),
            Some(m) => Ok(m.saturating_mul(60)),
            None => Err(format!("{key}={v}: not a time")),
        }
    };
    match k.as_str() {
        "prioritytype" => conf.priority_type = v.to_string(),
        "accountingstoragetype" => conf.accounting_storage_type = v.to_string(),
        "priorityweightage" => conf.weight_age = u32_value(key, v)?,
        "priorityweightassoc" => conf.weight_assoc = u32_value(key, v)?,
        "priorityweightfairshare" => conf.weight_fairshare = u32_value(key, v)?,
        "priorityweightjobsize" => conf.weight_jobsize = u32_value(key, v)?,
        "priorityweightpartition" => conf.weight_partition = u32_value(key, v)?,
        "priorityweightqos" => conf.weight_qos = u32_value(key, v)?,
        "priorityweighttres" => {
            conf.weight_tres = parse_tres_weights(v).map_err(|m| format!("{key}: {m}"))?
        }
        "prioritymaxage" => conf.max_age = time_secs(v)?,
        "prioritydecayhalflife" => conf.decay_half_life = time_secs(v)?,
        "priorityfavorsmall" => conf.favor_small = flag_yes(v),
        "fairsharedampeningfactor" => conf.dampening = u32_value(key, v)?.max(1),
        "priorityflags" => {
            let f = &mut conf.flags;
            for flag in v.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                match flag.to_ascii_uppercase().as_str() {
                    "ACCRUE_ALWAYS" => f.accrue_always = true,
                    "CALCULATE_RUNNING" => f.calculate_running = true,
                    "DEPTH_OBLIVIOUS" => f.depth_oblivious = true,
                    "NO_FAIR_TREE" => f.no_fair_tree = true,
                    "FAIR_TREE" => {}
                    "INCR_ONLY" => f.incr_only = true,
                    "MAX_TRES" | "MAX_TRES_GRES" => f.max_tres = true,
                    "NO_NORMAL_ALL" => {
                        f.no_normal_assoc = true;
                        f.no_normal_part = true;
                        f.no_normal_qos = true;
                        f.no_normal_tres = true;
                    }
                    "NO_NORMAL_ASSOC" => f.no_normal_assoc = true,
                    "NO_NORMAL_PART" => f.no_normal_part = true,
                    "NO_NORMAL_QOS" => f.no_normal_qos = true,
                    "NO_NORMAL_TRES" => f.no_normal_tres = true,
                    "SMALL_RELATIVE_TO_TIME" => f.small_relative_to_time = true,
                    other => conf
                        .notes
                        .push(format!("PriorityFlags: `{other}` is not a known flag")),
                }
            }
        }
        _ if k.starts_with("priority") => {
            conf.other_priority.insert(key.to_string(), v.to_string());
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_hosts_weights() {
        assert_eq!(time_minutes("7-0"), Some(7 * 1440));
        assert_eq!(time_minutes("30"), Some(30));
        assert_eq!(time_minutes("1:00:00"), Some(60));
        assert_eq!(time_minutes("0:30"), Some(1));
        assert_eq!(time_minutes("UNLIMITED"), Some(INFINITE));
        assert_eq!(
            expand_hostlist("n[01-03,7],login").unwrap(),
            ["n01", "n02", "n03", "n7", "login"]
        );
        assert_eq!(
            parse_tres_weights("CPU=1.0,Mem=0.25G").unwrap(),
            [("cpu".to_string(), 1.0), ("mem".to_string(), 0.25 / 1024.0)]
        );
    }

    /// Every hostlist of a file draws on one budget, `Nodes=ALL` too: a few short lines cannot
    /// make nodes × partitions of work.
    #[test]
    fn a_files_hostlists_share_one_budget() {
        let mut text = String::from("NodeName=n[1-1000000]\n");
        for i in 0..8 {
            text.push_str(&format!("PartitionName=p{i} Nodes=ALL\n"));
        }
        let e = parse_slurm_conf(&text, "s.conf").unwrap_err().to_string();
        assert!(e.contains("s.conf:9: partition p7:"), "{e}");
        assert!(
            e.contains("the file's hostlists expand to more than 8388608"),
            "{e}"
        );
        // Blanks around `=` are Slurm's syntax too (and `scontrol show config`'s).
        let c =
            parse_slurm_conf("PriorityWeightAge = 7\nNodeName = a[1-2] CPUs = 3\n", "s").unwrap();
        assert_eq!((c.weight_age, c.cluster_cpus()), (7, 6));
        let c = parse_slurm_conf(
            "Configuration data as of 2024-04-13T12:00:00\nPriorityWeightTRES      = (null)\n\
             PriorityFlags           = \nPriorityWeightQOS       = 5\n",
            "scontrol.txt",
        )
        .unwrap();
        assert_eq!(c.weight_qos, 5);
        assert!(c.weight_tres.is_empty() && c.notes[0].contains("no nodes or partitions"));
        // Include needs a file.
        let e = parse_slurm_conf("Include\n", "s").unwrap_err().to_string();
        assert!(e.contains("Include without a file"), "{e}");
    }

    #[test]
    fn a_config() {
        let c = parse_slurm_conf(
            "PriorityType=priority/multifactor\nPriorityWeightAge=1000 PriorityWeightFairshare=10000\n\
             PriorityMaxAge=1-0\nPriorityFlags=SMALL_RELATIVE_TO_TIME,NO_FAIR_TREE\n\
             NodeName=n[1-4] Sockets=2 CoresPerSocket=8 RealMemory=64000 Gres=gpu:a100:2\n\
             PartitionName=batch Nodes=n[1-3] PriorityJobFactor=10 MaxTime=1-0 Default=YES\n\
             PartitionName=gpu Nodes=ALL Priority=20\n",
            "slurm.conf",
        )
        .unwrap();
        assert_eq!(c.weight_age, 1000);
        assert_eq!(c.max_age, 86400);
        assert!(c.flags.small_relative_to_time && c.flags.no_fair_tree);
        assert_eq!(c.node_count(), 4);
        assert_eq!(c.cluster_cpus(), 64);
        assert_eq!(c.max_job_factor(), 20);
        let b = &c.partitions[0];
        assert_eq!((b.job_factor, b.tier, b.max_time), (10, 1, 1440));
        let t = c.partition_tres(b);
        assert_eq!(t["cpu"], 48.0);
        assert_eq!(t["gres/gpu"], 6.0);
        assert_eq!(c.partitions[1].tier, 20);
        let e = parse_slurm_conf("PartitionName=x Nodes=zz\n", "s.conf").unwrap_err();
        assert!(e.to_string().contains("s.conf:1"), "{e}");
    }
}
