//! `fairsort plot`: the SVG it writes, parsed (elements, attributes, texts), never compared byte
//! for byte: the titles and axis labels name what is drawn, the series and points are there
//! in the right number, and values map onto the picture monotonically.

use crate::common::{fairsort, write};
use std::collections::BTreeMap;

/// One SVG element: its tag, attributes and (for `<text>`) its text.
#[derive(Debug, Clone)]
struct El {
    tag: String,
    attrs: BTreeMap<String, String>,
    text: String,
}

impl El {
    fn num(&self, name: &str) -> f64 {
        self.attrs
            .get(name)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("<{}> has no numeric {name}: {:?}", self.tag, self.attrs))
    }

    /// A `<polyline>`'s points.
    fn points(&self) -> Vec<(f64, f64)> {
        self.attrs["points"]
            .split_whitespace()
            .map(|p| {
                let (x, y) = p.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect()
    }
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// The elements of an SVG document, checking on the way that it is well formed: one `<svg>`
/// root, every tag closed in order, attributes quoted.
fn parse(svg: &str) -> Vec<El> {
    let mut out: Vec<El> = Vec::new();
    let mut open: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(lt) = rest.find('<') {
        let text = &rest[..lt];
        if let Some(last) = out.last_mut() {
            if open.last() == Some(&last.tag) && !text.trim().is_empty() {
                last.text.push_str(&unescape(text.trim()));
            }
        } else {
            assert!(text.trim().is_empty(), "text before the root: {text:?}");
        }
        let gt = rest[lt..].find('>').expect("unclosed tag") + lt;
        let inner = &rest[lt + 1..gt];
        rest = &rest[gt + 1..];
        if let Some(name) = inner.strip_prefix('/') {
            assert_eq!(
                open.pop().as_deref(),
                Some(name.trim()),
                "mismatched </{name}>"
            );
            continue;
        }
        let self_closing = inner.ends_with('/');
        let inner = inner.trim_end_matches('/');
        let (tag, mut attrs_text) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
        let mut attrs = BTreeMap::new();
        loop {
            attrs_text = attrs_text.trim_start();
            if attrs_text.is_empty() {
                break;
            }
            let (name, after) = attrs_text.split_once("=\"").expect("attribute not quoted");
            let end = after.find('"').expect("attribute not closed");
            assert!(
                attrs
                    .insert(name.to_string(), unescape(&after[..end]))
                    .is_none(),
                "attribute {name} twice"
            );
            attrs_text = &after[end + 1..];
        }
        if out.is_empty() {
            assert_eq!(tag, "svg", "the root is not <svg>");
        } else {
            assert!(!open.is_empty(), "<{tag}> after the root closed");
        }
        out.push(El {
            tag: tag.to_string(),
            attrs,
            text: String::new(),
        });
        if !self_closing {
            open.push(tag.to_string());
        }
    }
    assert!(open.is_empty(), "unclosed: {open:?}");
    assert!(rest.trim().is_empty());
    out
}

fn plot(args: &[&str]) -> Vec<El> {
    let out = fairsort()
        .arg("plot")
        .args(args)
        .args(["-o", "-"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "plot {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse(std::str::from_utf8(&out.stdout).unwrap())
}

fn texts(els: &[El]) -> Vec<&str> {
    els.iter()
        .filter(|e| e.tag == "text")
        .map(|e| e.text.as_str())
        .collect()
}

fn title(els: &[El]) -> &str {
    &els.iter()
        .find(|e| e.tag == "title")
        .expect("no <title>")
        .text
}

/// The data series of a line chart: polylines of width 2 with more than two points.
fn curves(els: &[El]) -> Vec<(String, Vec<(f64, f64)>)> {
    els.iter()
        .filter(|e| {
            e.tag == "polyline" && e.attrs.get("stroke-width").map(String::as_str) == Some("2")
        })
        .map(|e| (e.attrs["stroke"].clone(), e.points()))
        .filter(|(_, p)| p.len() > 2)
        .collect()
}

#[test]
fn factors_draws_a_falling_curve_per_algorithm_with_its_axes() {
    let els = plot(&["factors", "--example"]);
    assert_eq!(
        title(&els),
        "Fair-share factor of group1/bob against its usage"
    );
    let t = texts(&els);
    assert!(
        t.contains(&"fair-share factor (1 = most deserving)"),
        "{t:?}"
    );
    assert!(
        t.iter()
            .any(|s| s.starts_with("group1/bob's share of the tree's usage")),
        "{t:?}"
    );
    // Every algorithm is named in the legend, curves that coincide once as `a = b`.
    let legend: Vec<&str> = t
        .iter()
        .copied()
        .filter(|s| {
            [
                "pbs",
                "classic",
                "depth-oblivious",
                "fair-tree",
                "ticket",
                "flux",
            ]
            .iter()
            .any(|a| s.split(" = ").any(|p| p == *a))
        })
        .collect();
    let named: usize = legend.iter().map(|s| s.split(" = ").count()).sum();
    assert_eq!(named, 6, "{legend:?}");
    let lines = curves(&els);
    assert_eq!(lines.len(), legend.len(), "one line per legend entry");
    for (stroke, points) in &lines {
        assert_eq!(points.len(), 41, "{stroke}");
        for w in points.windows(2) {
            // x grows with usage; the factor never rises (SVG y grows downwards).
            assert!(w[1].0 > w[0].0, "{stroke}: {w:?}");
            assert!(w[1].1 >= w[0].1, "{stroke}: factor rises at {w:?}");
        }
        assert!(points.last().unwrap().1 > points[0].1, "{stroke} is flat");
    }
    // A dot per algorithm at the current usage, on one vertical line.
    let dots: Vec<&El> = els.iter().filter(|e| e.tag == "circle").collect();
    assert_eq!(dots.len(), 6);
    assert!(dots.iter().all(|d| d.num("cx") == dots[0].num("cx")));
}

#[test]
fn factors_for_a_named_user_and_a_user_that_is_not_there() {
    let els = plot(&[
        "factors",
        "--example",
        "slurm-tree",
        "--user",
        "physics/alice",
    ]);
    assert_eq!(
        title(&els),
        "Fair-share factor of physics/alice against its usage"
    );
    let out = fairsort()
        .args([
            "plot",
            "factors",
            "--example",
            "--user",
            "nobody",
            "-o",
            "-",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no user `nobody` in the share tree"));
}

#[test]
fn tree_bars_are_as_wide_as_shares_and_named() {
    let els = plot(&["tree", "--example"]);
    assert!(title(&els).starts_with("Share tree of TREEROOT"));
    let t = texts(&els);
    for name in [
        "group1: shares 40%",
        "group2: shares 60%",
        "bob: shares 50%",
    ] {
        assert!(t.contains(&name), "{name} not in {t:?}");
    }
    // The bar holding a label: the filled rect around the label's point.
    let bar = |label: &str| -> (f64, f64) {
        let text = els
            .iter()
            .find(|e| e.tag == "text" && e.text == label)
            .unwrap();
        let (x, y) = (text.num("x"), text.num("y"));
        let r = els
            .iter()
            .find(|e| {
                e.tag == "rect"
                    && e.attrs.get("fill").is_some_and(|f| f != "none")
                    && e.num("x") <= x
                    && x <= e.num("x") + e.num("width")
                    && e.num("y") <= y
                    && y <= e.num("y") + e.num("height")
                    && e.num("width") < 900.0
            })
            .unwrap_or_else(|| panic!("no bar under {label}"));
        (r.num("x"), r.num("width"))
    };
    let (g1x, g1w) = bar("group1: shares 40%");
    let (g2x, g2w) = bar("group2: shares 60%");
    // 40 : 60 of the same span, side by side.
    approx::assert_abs_diff_eq!(g1w / (g1w + g2w), 0.4, epsilon = 0.01);
    approx::assert_abs_diff_eq!(g1x + g1w, g2x, epsilon = 1.0);
    let (_, bob) = bar("bob: shares 50%");
    approx::assert_abs_diff_eq!(bob, g1w / 2.0, epsilon = 1.0);
    // Desc counts the nodes drawn; three rects each, the page and five key swatches.
    let desc = &els.iter().find(|e| e.tag == "desc").unwrap().text;
    let drawn: usize = desc.split(' ').next().unwrap().parse().unwrap();
    let rects = els.iter().filter(|e| e.tag == "rect").count();
    assert_eq!(rects, 1 + 3 * drawn + 5, "{desc}");
}

#[test]
fn tree_from_a_file_escapes_names() {
    let dir = tempfile::tempdir().unwrap();
    let tree = write(
        dir.path(),
        "tree.toml",
        r#"
[[accounts]]
name = "r&d"
shares = 1
  [[accounts.users]]
  name = "<ann>"
  usage = 5.0
[[accounts]]
name = "ops"
shares = 3
  [[accounts.users]]
  name = "bo"
  usage = 1.0
"#,
    );
    let els = plot(&["tree", "--tree", tree.to_str().unwrap()]);
    let t = texts(&els);
    assert!(t.contains(&"r&d: shares 25%"), "{t:?}");
    assert!(t.contains(&"<ann>: shares 100%"), "{t:?}");
}

#[test]
fn against_places_one_point_per_job_by_its_two_ranks() {
    let els = plot(&["against", "--example", "--against", "fairshare_perc"]);
    assert_eq!(title(&els), "Job ranks under two formulas");
    let t = texts(&els);
    assert!(t
        .iter()
        .any(|s| s.starts_with("rank under the current formula: fairshare_factor")));
    assert!(t.contains(&"rank under --against: fairshare_perc"), "{t:?}");
    // Legend entries count the points: earlier + later + same = the 9 jobs.
    let counted: usize = t
        .iter()
        .filter(|s| s.contains("under --against (") || s.starts_with("same place ("))
        .map(|s| {
            s.rsplit('(')
                .next()
                .unwrap()
                .trim_end_matches(')')
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    assert_eq!(counted, 9, "{t:?}");
    // Points: one per job (drawn first), then the legend's 3.
    let dots: Vec<&El> = els.iter().filter(|e| e.tag == "circle").collect();
    assert_eq!(dots.len(), 9 + 3);
    let order = fairsort()
        .args([
            "order",
            "--example",
            "--against",
            "fairshare_perc",
            "--json",
        ])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&order.stdout).unwrap();
    let mut pairs: Vec<(u64, u64)> = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["rank"].as_u64().unwrap(),
                j["rank_against"].as_u64().unwrap(),
            )
        })
        .collect();
    pairs.sort();
    let mut points: Vec<(f64, f64)> = dots[..9]
        .iter()
        .map(|d| (d.num("cx"), d.num("cy")))
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    // The k-th point from the left is the job of rank k; rank 1 under --against is at the
    // bottom, so a larger rank_against is higher on the page (smaller SVG y).
    let placed: Vec<((u64, u64), (f64, f64))> = pairs.into_iter().zip(points).collect();
    for w in placed.windows(2) {
        let (((ra, aa), (xa, ya)), ((rb, ab), (xb, yb))) = (w[0], w[1]);
        assert!(rb > ra && xb > xa, "rank {ra} -> {rb}, x {xa} -> {xb}");
        assert_eq!(
            ab > aa,
            yb < ya,
            "rank_against {aa} -> {ab}, y {ya} -> {yb}"
        );
    }
}

#[test]
fn the_same_inputs_give_the_same_bytes() {
    let run = || {
        fairsort()
            .args(["plot", "factors", "--example", "slurm-tree", "-o", "-"])
            .output()
            .unwrap()
            .stdout
    };
    assert_eq!(run(), run());
}

#[test]
fn plot_writes_the_file_and_refuses_mismatched_flags() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.svg");
    fairsort()
        .args(["plot", "tree", "--example", "-o"])
        .arg(&file)
        .assert()
        .success()
        .stdout("");
    parse(&std::fs::read_to_string(&file).unwrap());
    let usage = |args: &[&str], says: &str| {
        let out = fairsort().arg("plot").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    };
    usage(
        &["against", "--example", "-o", "-"],
        "needs --against FORMULA",
    );
    usage(
        &["tree", "--example", "--against", "x", "-o", "-"],
        "--against goes with",
    );
    usage(
        &["tree", "--example", "--user", "bob", "-o", "-"],
        "--user goes with",
    );
    usage(&["pie", "--example", "-o", "-"], "pie");
    usage(&["tree", "--example"], "--output");
    let out = fairsort()
        .args(["plot", "tree", "--example", "-o"])
        .arg(dir.path().join("no/such/dir/t.svg"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write"));
}
