//! Safety of the home under real processes: 50 concurrent `fairsort qmgr` writers lose
//! no update, a writer killed with SIGKILL at random moments never leaves a broken or
//! half-written state file, and every change that was committed is audited, exactly once and
//! in order, and no change that was not committed is.

use fairsort::home::Home;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::common::{bin, queue_q_priority};

#[test]
fn fifty_concurrent_writers_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    // Create the home first so every process races on changes, not on creation.
    Home::open(Some(home)).unwrap();
    let children: Vec<_> = (0..50)
        .map(|i| {
            Command::new(bin())
                // 50 writers queue for the lock; on a slow disk the last may wait past the
                // default 10 s.
                .env("FAIRSORT_LOCK_TIMEOUT", "120")
                .arg("--home")
                .arg(home)
                .arg("qmgr")
                .arg("-c")
                .arg(format!("create queue q{i:02} Priority = {}", i * 7 - 100))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let state = Home::open(Some(home)).unwrap().load().unwrap();
    assert_eq!(state.queues.len(), 50);
    for i in 0..50i64 {
        let q = &state.queues[&format!("q{i:02}")];
        assert_eq!(q.priority, Some(i * 7 - 100), "queue q{i:02}");
    }
    let audit = std::fs::read_to_string(home.join("audit.log")).unwrap();
    assert_eq!(audit.lines().count(), 51, "create home + 50 changes");
}

/// A small deterministic pseudo-random sequence (no extra crate needed).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound
    }
}

#[test]
fn writer_killed_mid_write_leaves_old_or_new_state() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    Home::open(Some(home)).unwrap();
    Command::new(bin())
        .arg("--home")
        .arg(home)
        .args(["qmgr", "-c", "create queue q Priority = 0"])
        .status()
        .unwrap();
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);
    let mut rng = Lcg(seed);
    // Each script sets strictly increasing priorities, so any surviving value must be one of
    // them and never go backwards.
    let mut last = 0i64;
    let mut base = 1i64;
    for round in 0..25 {
        let script: String = (0..40)
            .map(|k| format!("set queue q Priority = {}\n", (base + k) % 1000))
            .collect();
        let mut child = Command::new(bin())
            .arg("--home")
            .arg(home)
            .arg("qmgr")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            let _ = stdin.write_all(script.as_bytes());
        }
        std::thread::sleep(Duration::from_micros(rng.next(60_000)));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let p = queue_q_priority(home).expect("queue q must survive");
        let allowed: Vec<i64> = std::iter::once(last)
            .chain((0..40).map(|k| (base + k) % 1000))
            .collect();
        assert!(
            allowed.contains(&p),
            "round {round}: priority {p} is neither old ({last}) nor one of the new values"
        );
        last = p;
        base += 40;
    }
}

/// The `Priority = N` values of the audit log's `set queue q` records, in order.
fn audited_priorities(home: &std::path::Path) -> Vec<i64> {
    std::fs::read_to_string(home.join("audit.log"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.rsplit_once("\tset queue q Priority = "))
        .map(|(_, v)| v.trim().parse().unwrap())
        .collect()
}

/// `kills` rounds: a qmgr script of 20 changes, killed with SIGKILL after a random delay; after
/// each, the home is settled (what the next writer does first) and the audit log must list
/// exactly the changes committed: a prefix of the script whose last value is the state's.
/// Returns (changes committed, kills that interrupted a script, kills that left a change between
/// its intent record and its end, which the next writer finished or undid).
fn kill_rounds(kills: u32, max_delay_us: u64) -> (usize, u32, u32) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    Home::open(Some(home)).unwrap();
    let st = Command::new(bin())
        .arg("--home")
        .arg(home)
        .args(["qmgr", "-c", "create queue q Priority = 0"])
        .status()
        .unwrap();
    assert!(st.success());
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);
    let mut rng = Lcg(seed);
    let mut audited = 0usize;
    let mut interrupted = 0u32;
    let mut mid_commit = 0u32;
    let mut last = 0i64;
    for round in 0..kills {
        // Priorities run through -1000..999 (PBS's range is -1024..1023), each differing from
        // the one before, so every request is a change.
        let value = |k: i64| (i64::from(round) * 20 + k) % 2000 - 1000;
        let script: String = (0..20)
            .map(|k| format!("set queue q Priority = {}\n", value(k)))
            .collect();
        let mut child = Command::new(bin())
            .arg("--home")
            .arg(home)
            .arg("qmgr")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            let _ = stdin.write_all(script.as_bytes());
        }
        std::thread::sleep(Duration::from_micros(rng.next(max_delay_us)));
        let _ = child.kill(); // SIGKILL
        let status = child.wait().unwrap();
        if !status.success() {
            interrupted += 1;
        }
        let h = Home::open(Some(home)).unwrap();
        if h.recover().unwrap() {
            mid_commit += 1;
        }
        let p = queue_q_priority(home).expect("queue q must survive");
        let values = audited_priorities(home);
        let new = &values[audited..];
        let expected: Vec<i64> = (0..new.len() as i64).map(value).collect();
        assert_eq!(
            new, expected,
            "round {round}: the audit log holds a change that was not applied, or misses one"
        );
        assert_eq!(
            p,
            new.last().copied().unwrap_or(last),
            "round {round}: the state's value {p} is not the last audited change"
        );
        last = p;
        audited = values.len();
        let stray: Vec<String> = std::fs::read_dir(home)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.') || n == "audit.pending")
            .collect();
        assert!(stray.is_empty(), "round {round}: left behind {stray:?}");
    }
    (audited, interrupted, mid_commit)
}

#[test]
fn every_committed_change_is_audited_under_random_kills() {
    let (changes, kills, mid) = kill_rounds(80, 250_000);
    eprintln!(
        "80 rounds: {kills} writers killed mid-script ({mid} inside a commit), {changes} changes committed, all audited"
    );
}

/// The long run of the same check (1,000 random kills); run with
/// `cargo test --test it -- --ignored thousand_kills --nocapture`.
#[test]
#[ignore]
fn every_committed_change_is_audited_under_a_thousand_kills() {
    let (changes, kills, mid) = kill_rounds(1000, 250_000);
    eprintln!(
        "1000 rounds: {kills} writers killed mid-script ({mid} inside a commit), {changes} changes committed, all audited"
    );
}

/// Readers take no lock and never see a half-written state: while one writer commits 100
/// changes, 40 readers each print the queue; every read succeeds with one of the written values.
#[test]
fn readers_during_writes_see_whole_states_without_a_lock() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    Home::open(Some(home)).unwrap();
    let st = Command::new(bin())
        .arg("--home")
        .arg(home)
        .args(["qmgr", "-c", "create queue q Priority = 0"])
        .status()
        .unwrap();
    assert!(st.success());
    let script: String = (1..=100)
        .map(|k| format!("set queue q Priority = {k}\n"))
        .collect();
    let mut writer = Command::new(bin())
        .arg("--home")
        .arg(home)
        .arg("qmgr")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(mut stdin) = writer.stdin.take() {
        use std::io::Write;
        stdin.write_all(script.as_bytes()).unwrap();
    }
    for _ in 0..40 {
        let out = Command::new(bin())
            .arg("--home")
            .arg(home)
            .args(["qmgr", "-c", "list queue q"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let p: i64 = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("Priority = "))
            .map_or(0, |v| v.parse().unwrap());
        assert!((0..=100).contains(&p), "{text}");
    }
    let out = writer.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(queue_q_priority(home), Some(100));
}
