//! `fairsort report`: the page opens in a real browser (headless Chromium) with no console
//! message, every section is in the rendered DOM and draws something (a screenshot of each
//! section alone has more than one colour), the numbers in its tables are those of `order
//! --json`, `share --json` and `replay --json`, user texts are escaped, tables are bounded, and
//! the file is written whole or not at all. Under CI (`CI=true`, where `.ci/run` installs
//! Debian's `chromium`) a missing browser fails the browser tests; elsewhere they say they were
//! skipped.

use crate::common::fairsort;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn example(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(rel)
        .display()
        .to_string()
}

/// The replay of the month example as docs/replay.md runs it: size first against fair share.
const MONTH: [&str; 5] = [
    "--formula",
    "ncpus",
    "--against",
    "fairshare_factor",
    "--trace",
];

/// Writes a report with `args` (`-o FILE` added) into `dir` and returns the file.
fn report(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let o = fairsort()
        .arg("report")
        .args(args)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "report {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

fn month_report(dir: &Path) -> PathBuf {
    let mut args = vec!["replay"];
    args.extend(MONTH);
    let trace = example("replay/month.swf");
    args.push(&trace);
    report(dir, "month.html", &args)
}

/// The browser: `chromium` (Debian's); `None` (the test says it was skipped) when it is not
/// installed, except under CI where that fails the test.
fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("chromium"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        let message = "chromium is not installed; the browser test did not run";
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{message} (CI=true: chromium is required; .ci/run installs it)");
        }
        eprintln!("SKIPPED: {message}");
    }
    found
}

/// Headless Chromium on `url`, with its own profile directory (tests run in parallel); the
/// extra arguments choose what it does (`--dump-dom`, `--screenshot=`). Returns stdout and
/// stderr after checking that it succeeded.
fn run_chromium(browser: &Path, url: &str, extra: &[String]) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let o = Command::new(browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "chromium on {url}: {stderr}");
    (String::from_utf8_lossy(&o.stdout).into_owned(), stderr)
}

fn url(file: &Path) -> String {
    format!("file://{}", file.display())
}

/// Loads the page: no console message (a script error is one), the page's script ran to its
/// end (`data-ready`), and each of `sections` is in the rendered DOM with a heading.
fn assert_loads(browser: &Path, file: &Path, sections: &[&str]) -> String {
    let (dom, stderr) = run_chromium(browser, &url(file), &["--dump-dom".to_string()]);
    let console: Vec<&str> = stderr.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:#?}");
    assert!(
        dom.contains("data-ready=\""),
        "the page's script did not finish: {}",
        &dom[..dom.len().min(500)]
    );
    for s in sections {
        let at = dom
            .find(&format!("<section id=\"{s}\""))
            .unwrap_or_else(|| panic!("no section {s} in the DOM"));
        assert!(dom[at..].contains("<h2>"), "section {s} has no heading");
    }
    dom
}

/// The distinct colours of a PNG.
fn colours(png_file: &Path) -> usize {
    let decoder = png::Decoder::new(std::fs::File::open(png_file).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let step = info.color_type.samples() * usize::from(info.bit_depth as u8).div_ceil(8);
    let bytes = &buf[..info.buffer_size()];
    let mut seen = std::collections::HashSet::new();
    for px in bytes.chunks(step) {
        seen.insert(px.to_vec());
        if seen.len() > 16 {
            break;
        }
    }
    seen.len()
}

/// A screenshot of each section alone (`#only=ID`) has more than one colour: the section drew
/// its heading, tables and pictures. The PNGs are left in `shots` as `ID.png`.
fn assert_sections_draw(browser: &Path, file: &Path, sections: &[&str], shots: &Path) {
    for s in sections {
        let png_file = shots.join(format!("{s}.png"));
        run_chromium(
            browser,
            &format!("{}#only={s}", url(file)),
            &[
                "--window-size=1280,1600".to_string(),
                format!("--screenshot={}", png_file.display()),
            ],
        );
        let n = colours(&png_file);
        assert!(n > 1, "the screenshot of section {s} is blank ({n} colour)");
    }
}

#[test]
fn the_queue_report_opens_in_chromium_and_every_section_draws() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = report(dir.path(), "queue.html", &["--example"]);
    let sections = ["queue", "tree", "factors"];
    let dom = assert_loads(&browser, &file, &sections);
    assert!(dom.contains("id=\"queue-jobs\"") && dom.contains("<svg"));
    assert_sections_draw(&browser, &file, &sections, dir.path());
}

#[test]
fn the_month_replay_report_opens_in_chromium_and_every_section_draws() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = month_report(dir.path());
    let sections = [
        "replay",
        "replay-waits",
        "replay-attainment",
        "replay-movers",
    ];
    assert_loads(&browser, &file, &sections);
    assert_sections_draw(&browser, &file, &sections, dir.path());
}

/// HTML text as it reads (the entities the template's escaping writes).
fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#x2f;", "/")
        .replace("&amp;", "&")
}

/// One table of the page: per row, its cells as (text, `data-v`).
fn table(html: &str, id: &str) -> Vec<Vec<(String, Option<String>)>> {
    let start = html
        .find(&format!("<table class=\"sortable\" id=\"{id}\">"))
        .unwrap_or_else(|| panic!("no table {id}"));
    let rest = &html[start..];
    let body = &rest[rest.find("<tbody>").unwrap()..rest.find("</tbody>").unwrap()];
    body.split("<tr>")
        .skip(1)
        .map(|row| {
            row.split("<td")
                .skip(1)
                .map(|cell| {
                    let (attrs, rest) = cell.split_once('>').unwrap();
                    let text = unescape(rest.split("</td>").next().unwrap());
                    let v = attrs
                        .split_once("data-v=\"")
                        .map(|(_, v)| v.split('"').next().unwrap().to_string());
                    (text, v)
                })
                .collect()
        })
        .collect()
}

/// The headings of a table.
fn headings(html: &str, id: &str) -> Vec<String> {
    let start = html
        .find(&format!("<table class=\"sortable\" id=\"{id}\">"))
        .unwrap_or_else(|| panic!("no table {id}"));
    let rest = &html[start..];
    let head =
        &rest[rest.find("<thead>").unwrap() + "<thead>".len()..rest.find("</thead>").unwrap()];
    head.split("<th")
        .skip(1)
        .map(|h| unescape(h.split_once('>').unwrap().1.split("</th>").next().unwrap()))
        .collect()
}

fn json_of(args: &[&str]) -> Value {
    let o = fairsort().args(args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn num(cell: &(String, Option<String>)) -> f64 {
    cell.1
        .as_deref()
        .unwrap_or_else(|| panic!("{cell:?} has no value"))
        .parse()
        .unwrap()
}

#[test]
fn the_queue_and_tree_numbers_are_those_of_order_and_share_json() {
    let dir = tempfile::tempdir().unwrap();
    let html = std::fs::read_to_string(report(dir.path(), "q.html", &["--example"])).unwrap();
    let order = json_of(&["order", "--example", "--json"]);
    let jobs = order["jobs"].as_array().unwrap();
    let rows = table(&html, "queue-jobs");
    assert_eq!(rows.len(), jobs.len());
    for (row, job) in rows.iter().zip(jobs) {
        assert_eq!(num(&row[0]), job["rank"].as_f64().unwrap());
        assert_eq!(row[1].0, job["id"].as_str().unwrap());
        assert_eq!(row[2].0, job["owner"].as_str().unwrap());
        assert_eq!(row[3].0, job["queue"].as_str().unwrap());
        assert_eq!(num(&row[4]), job["value"].as_f64().unwrap(), "{row:?}");
        assert_eq!(row[5].0, job["status"].as_str().unwrap());
    }
    // The terms of the first job are `order --explain`'s.
    let first = jobs[0]["id"].as_str().unwrap();
    let explain = json_of(&["order", "--example", "--explain", first, "--json"]);
    let terms = explain["terms"].as_array().unwrap();
    assert!(!terms.is_empty());
    for (cell, t) in rows[0][6..].iter().zip(terms) {
        assert_eq!(num(cell), t["value"].as_f64().unwrap());
    }
    assert_eq!(rows[0].len(), 6 + terms.len());

    let tree = example("pbs_cluster/tree.toml");
    let share = json_of(&["share", "--tree", &tree, "--compare", "--json"]);
    let algorithms: Vec<&str> = (share["algorithms"].as_array().unwrap().iter())
        .map(|a| a.as_str().unwrap())
        .collect();
    let rows = table(&html, "tree-factors");
    let json_rows = share["rows"].as_array().unwrap();
    assert_eq!(rows.len(), json_rows.len());
    for (row, j) in rows.iter().zip(json_rows) {
        assert_eq!(row[0].0, j["account"].as_str().unwrap());
        assert_eq!(row[1].0, j["user"].as_str().unwrap());
        for (cell, a) in row[4..].iter().zip(&algorithms) {
            assert_eq!(num(cell), j[*a].as_f64().unwrap(), "{a} of {row:?}");
        }
        assert_eq!(row.len(), 4 + algorithms.len());
    }
}

#[test]
fn the_replay_numbers_are_those_of_replay_json() {
    let dir = tempfile::tempdir().unwrap();
    let html = std::fs::read_to_string(month_report(dir.path())).unwrap();
    let trace = example("replay/month.swf");
    let mut args = vec!["replay"];
    args.extend(MONTH);
    args.extend([trace.as_str(), "--json"]);
    let doc = json_of(&args);
    let (a, b) = (&doc["summary"], &doc["against"]["summary"]);

    let summary = table(&html, "replay-summary");
    let figure = |name: &str| {
        summary
            .iter()
            .find(|r| r[0].0 == name)
            .unwrap_or_else(|| panic!("no {name}"))
    };
    for (name, key) in [
        ("utilisation", "utilisation"),
        ("mean wait (s)", "wait_mean"),
        ("mean bounded slowdown", "slowdown"),
        ("Jain's index", "jain"),
        ("backfilled", "backfilled"),
        ("passes", "passes"),
    ] {
        let row = figure(name);
        assert_eq!(num(&row[1]), a[key].as_f64().unwrap(), "A {name}");
        assert_eq!(num(&row[2]), b[key].as_f64().unwrap(), "B {name}");
    }

    let accounts = table(&html, "replay-accounts");
    let json_a = a["accounts"].as_array().unwrap();
    assert_eq!(accounts.len(), json_a.len());
    let b_of: HashMap<&str, &Value> = (b["accounts"].as_array().unwrap().iter())
        .map(|e| (e["name"].as_str().unwrap(), e))
        .collect();
    // name, jobs, share, wait A, wait B, wait B-A, usage A, usage B
    for (row, e) in accounts.iter().zip(json_a) {
        let name = e["name"].as_str().unwrap();
        assert_eq!(row[0].0, name);
        assert_eq!(num(&row[1]), e["jobs"].as_f64().unwrap());
        assert_eq!(num(&row[2]), e["share"].as_f64().unwrap());
        assert_eq!(num(&row[3]), e["wait_mean"].as_f64().unwrap());
        assert_eq!(num(&row[4]), b_of[name]["wait_mean"].as_f64().unwrap());
        assert_eq!(num(&row[6]), e["usage_share"].as_f64().unwrap());
        assert_eq!(num(&row[7]), b_of[name]["usage_share"].as_f64().unwrap());
    }

    // The movers' waits are the jobs' starts minus submits under each policy.
    let wait_of = |jobs: &Value| -> HashMap<String, i64> {
        (jobs.as_array().unwrap().iter())
            .map(|j| {
                let w = j["start"].as_i64().unwrap() - j["submit"].as_i64().unwrap();
                (j["id"].as_str().unwrap().to_string(), w)
            })
            .collect()
    };
    let (wa, wb) = (wait_of(&doc["jobs"]), wait_of(&doc["against"]["jobs"]));
    let moved = table(&html, "replay-moved");
    assert!(!moved.is_empty());
    let mut last = i64::MAX;
    for row in &moved {
        let id = &row[0].0;
        assert_eq!(num(&row[5]), wa[id] as f64, "{id}");
        assert_eq!(num(&row[6]), wb[id] as f64, "{id}");
        let d = (wb[id] - wa[id]).abs();
        assert!(d <= last, "movers not by size of the change");
        last = d;
    }
    let changed = wa.iter().filter(|(id, w)| wb[*id] != **w).count();
    assert!(html.contains(&format!("{changed} jobs wait a different time")));
}

#[test]
fn user_texts_are_escaped_and_tables_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = dir.path().join("jobs.json");
    std::fs::write(
        &jobs,
        r#"[{"id": "1<script>alert(1)</script>", "owner": "<b>eve</b>", "queue": "q&q", "resources": {"ncpus": 2}},
            {"id": "2", "owner": "bob", "queue": "workq", "resources": {"ncpus": 1}},
            {"id": "3", "owner": "bob", "queue": "workq", "resources": {"ncpus": 3}}]"#,
    )
    .unwrap();
    let file = report(
        dir.path(),
        "evil.html",
        &[
            "--jobs",
            jobs.to_str().unwrap(),
            "--formula",
            "ncpus",
            "--rows",
            "2",
        ],
    );
    let html = std::fs::read_to_string(&file).unwrap();
    assert!(!html.contains("<script>alert"), "unescaped job id");
    assert!(!html.contains("<b>eve"), "unescaped owner");
    assert!(html.contains("1&lt;script&gt;alert(1)&lt;&#x2f;script&gt;"));
    assert!(html.contains("q&amp;q"));
    assert_eq!(table(&html, "queue-jobs").len(), 2);
    assert!(html.contains("1 more row not shown (the first 2 of 3)"));
    if let Some(browser) = chromium() {
        assert_loads(&browser, &file, &["queue"]);
    }
}

#[test]
fn errors_follow_the_contract_and_leave_no_file() {
    let dir = tempfile::tempdir().unwrap();
    // No -o: a usage error.
    fairsort()
        .args(["report", "--example"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("-o FILE.html"));
    // A directory that does not exist: exit 1, the path named, nothing written.
    let bad = dir.path().join("missing/r.html");
    fairsort()
        .args(["report", "--example", "-o"])
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            dir.path().join("missing").display().to_string(),
        ));
    // A bad formula: exit 1, the old file kept whole, no temporary left beside it.
    let out = dir.path().join("r.html");
    std::fs::write(&out, "old").unwrap();
    fairsort()
        .args(["report", "--example", "--formula", "ncpus +", "-o"])
        .arg(&out)
        .assert()
        .code(1);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old");
    // Then a good one replaces it, with nothing else left in the directory.
    report(dir.path(), "r.html", &["--example"]);
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["r.html"]);
}

#[test]
fn the_forecast_report_shows_forecast_json_and_opens_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let d = crate::common::data("slurm_forecast/plain_backfill");
    let want: Value =
        serde_json::from_slice(&std::fs::read(d.join("expected.json")).unwrap()).unwrap();
    let at = want["last_backfill_cycle"].as_i64().unwrap().to_string();
    let conf = d.join("before/slurm.conf").display().to_string();
    let jobs = d.join("after/squeue.json").display().to_string();
    let nodes = d.join("after/sinfo.json").display().to_string();
    let inputs = [
        "--slurm-conf",
        conf.as_str(),
        "--jobs",
        jobs.as_str(),
        "--node-state",
        nodes.as_str(),
        "--at",
        at.as_str(),
    ];
    let mut args = vec!["report", "forecast"];
    args.extend(inputs);
    let file = report(dir.path(), "forecast.html", &args[1..]);
    let mut args = vec!["forecast"];
    args.extend(inputs);
    args.push("--json");
    let fc = json_of(&args);
    let html = std::fs::read_to_string(&file).unwrap();
    let rows = table(&html, "forecast-jobs");
    let jobs = fc["jobs"].as_array().unwrap();
    assert_eq!(rows.len(), jobs.len());
    for (row, j) in rows.iter().zip(jobs) {
        assert_eq!(row[1].0, j["id"].as_str().unwrap());
        assert_eq!(num(&row[5]), j["cores"].as_f64().unwrap());
        match j["start"].as_i64() {
            Some(s) => assert_eq!(num(&row[9]), s as f64, "{row:?}"),
            None => assert_eq!(row[9].0, "never"),
        }
    }
    if let Some(browser) = chromium() {
        assert_loads(&browser, &file, &["forecast"]);
        assert_sections_draw(&browser, &file, &["forecast"], dir.path());
    }
}

#[test]
fn the_tables_sort_when_a_heading_is_clicked() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    report(dir.path(), "queue.html", &["--example"]);
    // A page that loads the report in a frame, clicks the `value` heading twice and the
    // `owner` heading once, and writes down the columns after each click.
    let wrapper = dir.path().join("click.html");
    std::fs::write(
        &wrapper,
        r#"<!DOCTYPE html><html><body><pre id="out"></pre>
<iframe id="f" src="queue.html" onload="
var t = document.getElementById('f').contentDocument.getElementById('queue-jobs');
var heads = t.querySelectorAll('thead th');
function column(i, attr) {
  return Array.prototype.map.call(t.tBodies[0].rows, function (r) {
    return attr ? r.cells[i].getAttribute('data-v') : r.cells[i].textContent;
  }).join(',');
}
heads[4].click(); var asc = column(4, true);
heads[4].click(); var desc = column(4, true);
heads[2].click(); var owners = column(2, false);
document.getElementById('out').textContent = asc + '|' + desc + '|' + owners;
"></iframe></body></html>"#,
    )
    .unwrap();
    let (dom, _) = run_chromium(
        &browser,
        &url(&wrapper),
        &[
            "--allow-file-access-from-files".to_string(),
            "--dump-dom".to_string(),
        ],
    );
    let out = dom
        .split("<pre id=\"out\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .unwrap();
    let parts: Vec<&str> = out.split('|').collect();
    assert_eq!(parts.len(), 3, "the clicks did not run: {out}");
    let nums = |s: &str| -> Vec<f64> { s.split(',').map(|v| v.parse().unwrap()).collect() };
    let (asc, desc) = (nums(parts[0]), nums(parts[1]));
    assert_eq!(asc.len(), 9);
    assert!(asc.windows(2).all(|w| w[0] <= w[1]), "{asc:?}");
    assert_eq!(desc, asc.iter().rev().copied().collect::<Vec<_>>());
    let owners: Vec<&str> = parts[2].split(',').collect();
    let mut sorted = owners.clone();
    sorted.sort();
    assert_eq!(owners, sorted);
}

#[test]
fn slurm_and_flux_queues_show_their_order_json_factors_and_share_tree() {
    let dir = tempfile::tempdir().unwrap();
    for example in ["slurm", "flux"] {
        let file = report(
            dir.path(),
            &format!("{example}.html"),
            &["--example", example],
        );
        let html = std::fs::read_to_string(&file).unwrap();
        let doc = json_of(&["order", "--example", example, "--json"]);
        let jobs = doc["jobs"].as_array().unwrap();
        let names = headings(&html, "queue-jobs");
        let rows = table(&html, "queue-jobs");
        assert_eq!(rows.len(), jobs.len(), "{example}");
        let col = |n: &str| {
            names
                .iter()
                .position(|h| h == n)
                .unwrap_or_else(|| panic!("{n}"))
        };
        for (row, job) in rows.iter().zip(jobs) {
            let id = match &job["id"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            assert_eq!(row[col("id")].0, id, "{example}");
            // Exact: the document's own number text (none for a job the plugin rejects).
            let exact = |v: &Value| (!v.is_null()).then(|| v.to_string());
            assert_eq!(
                row[col("priority")].1,
                exact(&job["priority"]),
                "{example} {id}"
            );
            assert_eq!(
                row[col("factors.fairshare")]
                    .1
                    .as_deref()
                    .map(|v| v.parse::<f64>().unwrap()),
                job["factors"]["fairshare"].as_f64(),
                "{example} {id}"
            );
        }
        // The share tree the order used: an icicle and every user association's factor.
        let tree = table(&html, "tree-factors");
        // (a job the plugin rejects has an owner with no association: no factor, no row; the
        // flux example's frank is an association with `active` 0, which the tree leaves out
        // and the plugin still gives its stored factor)
        let users = (doc["jobs"].as_array().unwrap().iter())
            .filter(|j| j["priority"].is_number())
            .filter_map(|j| j["user"].as_str())
            .filter(|&u| !(example == "flux" && u == "frank"))
            .collect::<std::collections::BTreeSet<_>>();
        assert!(
            users.len() >= 3 && users.iter().all(|u| tree.iter().any(|r| r[1].0 == *u)),
            "{example}: every job owner with a factor has a row in the tree's table: {users:?}"
        );
        if let Some(browser) = chromium() {
            let sections = ["queue", "tree", "factors"];
            assert_loads(&browser, &file, &sections);
            assert_sections_draw(&browser, &file, &sections, dir.path());
        }
    }
}
