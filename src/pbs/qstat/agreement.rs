//! The fast path (the strict scanner, `split`) against the plain serde_json reader, on generated
//! documents: valid ones with every kind of value, whitespace, escape and number edge case, the
//! same documents with a byte changed, and every one-byte change of two multi-job documents,
//! their `Jobs` cut in parts of several sizes and read on pools of one to three threads.
//! Whenever the fast path answers, it must answer exactly as serde_json (same jobs, names,
//! values to the bit); when it declines, `read_qstat_json` uses serde_json itself, for its exact
//! error.

use crate::jobs::job_set::JobSet;
use crate::jobs::JobsError;
use crate::mem::read_file::Pages;
use crate::pbs::qstat::{read_qstat_json, read_serde, split};
use jiff::tz::TimeZone;
use proptest::prelude::*;
use proptest::strategy::ValueTree;

fn ws() -> impl Strategy<Value = String> {
    proptest::sample::select(vec![
        "",
        "",
        " ",
        "\n    ",
        "\t",
        "\r\n",
        "            ",
        "\n",
    ])
    .prop_map(str::to_string)
}

/// A JSON string literal, mostly valid, sometimes with what serde_json refuses.
fn string() -> impl Strategy<Value = String> {
    let good = proptest::sample::select(vec![
        "a",
        "bob",
        "u1",
        "4gb",
        "01:00:00",
        "free",
        "1:ncpus=2",
        " ",
        "é",
        "😀",
        "\\\"",
        "\\\\",
        "\\/",
        "\\n",
        "\\t",
        "\\b\\f\\r",
        "\\u00e9",
        "\\u0041",
        "\\ud83d\\ude00",
        "@",
        ".",
        ":",
        "Tue Oct  4 21:23:20 2022",
        "-1",
    ]);
    let bad = proptest::sample::select(vec!["\\ud800", "\\udc00x", "\\x", "\u{1}", "\\u12"]);
    let piece = prop_oneof![20 => good, 1 => bad];
    proptest::collection::vec(piece, 0..4).prop_map(|p| format!("\"{}\"", p.concat()))
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(vec![
            "0", "-0", "4", "-17", "1.5", "-2.5E-3", "1e3", "0.1", "1e-400",
            "18446744073709551615", "18446744073709551616", "-9223372036854775809",
            "123456789012345678901234", "9007199254740993", "4.9e-324", "2.0", "1E+2",
        ])
        .prop_map(str::to_string),
        1 => proptest::sample::select(vec!["1e400", "-1e400", "01", "1.", "-", "1e", ".5", "+1"])
            .prop_map(str::to_string),
        4 => any::<i64>().prop_map(|i| i.to_string()),
        4 => any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
        2 => (any::<u32>(), 0u32..1000000, -30i32..30)
            .prop_map(|(a, b, e)| format!("{a}.{b:06}e{e}")),
    ]
}

fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => string(),
        2 => number(),
        1 => proptest::sample::select(vec!["true", "false", "null", "true", "false", "nul"])
            .prop_map(str::to_string),
    ]
}

fn value() -> impl Strategy<Value = String> {
    scalar().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec((ws(), inner.clone()), 0..4).prop_map(|v| {
                let items: Vec<String> = v.into_iter().map(|(w, x)| format!("{w}{x}")).collect();
                format!("[{}]", items.join(","))
            }),
            proptest::collection::vec((string(), ws(), inner), 0..4).prop_map(|v| {
                let items: Vec<String> = v
                    .into_iter()
                    .map(|(k, w, x)| format!("{k}:{w}{x}"))
                    .collect();
                format!("{{{}}}", items.join(","))
            }),
        ]
    })
}

/// A `Resource_List`: mostly an object of resource values.
fn resources() -> impl Strategy<Value = String> {
    let name = proptest::sample::select(vec![
        "\"ncpus\"",
        "\"mem\"",
        "\"walltime\"",
        "\"place\"",
        "\"select\"",
        "\"foo\"",
        "\"nc\\u0070us\"",
    ]);
    let v = prop_oneof![
        number(),
        proptest::sample::select(vec![
            "\"4gb\"",
            "\"300kb\"",
            "\"1025b\"",
            "\"01:00:00\"",
            "\"02:30\"",
            "\"free\"",
            "\"1:ncpus=2:mem=4gb\"",
            "\"-2\"",
            "true",
            "null",
            "[1]",
            "{}",
            "\"4GB\"",
            "\"1.5\"",
        ])
        .prop_map(str::to_string),
    ];
    prop_oneof![
        8 => proptest::collection::vec((name, ws(), v), 0..6).prop_map(|v| {
            let items: Vec<String> = v.into_iter().map(|(k, w, x)| format!("{k}:{w}{x}")).collect();
            format!("{{{}}}", items.join(","))
        }),
        1 => value(),
    ]
}

/// One attribute of a job.
fn attribute() -> impl Strategy<Value = String> {
    let attr =
        |key: &'static str, v: BoxedStrategy<String>| v.prop_map(move |v| format!("\"{key}\":{v}"));
    let names = || {
        prop_oneof![
            3 => proptest::sample::select(vec!["\"bob\"", "\"amy\"", "\"u1\"", "\"bob@host\"", "\"\""])
                .prop_map(str::to_string),
            1 => scalar(),
        ]
        .boxed()
    };
    let dates = || {
        prop_oneof![
            3 => proptest::sample::select(vec![
                "\"Tue Oct  4 21:23:20 2022\"", "\"Thu Jan  1 00:00:00 1970\"",
                "\"tue OCT 04 21:23:20 2022\"", "\" Tue Oct  4 21:23:20 2022\"",
                "\"Tue Oct 32 21:23:20 2022\"", "1664918600", "\"1664918600\"", "1.5",
            ])
            .prop_map(str::to_string),
            1 => scalar(),
        ]
        .boxed()
    };
    let durations = || {
        prop_oneof![
            3 => proptest::sample::select(vec![
                "\"00:10:00\"", "\"10:00\"", "\"600\"", "600", "\"-00:01:00\"", "\"1:2:3:4\"",
                "\"00:00:1.5\"", "\"1.5:00\"",
            ])
            .prop_map(str::to_string),
            1 => scalar(),
        ]
        .boxed()
    };
    let ints = || {
        prop_oneof![
            3 => proptest::sample::select(vec!["0", "5", "-3", "\"7\"", "1.5", "\"high\"", "2e0"])
                .prop_map(str::to_string),
            1 => scalar(),
        ]
        .boxed()
    };
    prop_oneof![
        1 => attr("Job_Owner", names()),
        1 => attr("euser", names()),
        1 => attr("eus\\u0065r", names()),
        1 => attr("egroup", names()),
        1 => attr("Account_Name", names()),
        1 => attr("queue", names()),
        1 => attr("job_state", proptest::sample::select(vec!["\"Q\"", "\"R\"", "\"H\"", "\"W\"", "\" Q \""]).prop_map(str::to_string).boxed()),
        1 => attr("Priority", ints()),
        1 => attr("accrue_type", ints()),
        1 => attr("qtime", dates()),
        1 => attr("eligible_time", durations()),
        2 => attr("Resource_List", resources().boxed()),
        1 => attr("Variable_List", value().boxed()),
        1 => attr("Job_Name", value().boxed()),
    ]
}

fn job() -> impl Strategy<Value = String> {
    let id = prop_oneof![
        (0u32..30).prop_map(|n| format!("\"{n}.pbs\"")),
        (0u32..5, 0u32..3).prop_map(|(n, i)| format!("\"{n}[{i}].pbs\"")),
        Just("\"J\\u0031\"".to_string()),
    ];
    let attrs = proptest::collection::vec((ws(), attribute()), 0..8);
    // Mostly each attribute once (a repeated one is an error both readers must report).
    let once = proptest::bool::weighted(0.8);
    (id, ws(), attrs, ws(), once).prop_map(|(id, w, attrs, w2, once)| {
        let mut owner = vec![format!("{w}\"Job_Owner\":\"u@h\"")];
        let mut seen = std::collections::HashSet::from(["\"Job_Owner\"".to_string()]);
        for (w, a) in attrs {
            let key = a.split(':').next().unwrap_or("").to_string();
            if !once || seen.insert(key) {
                owner.push(format!("{w}{a}"));
            }
        }
        format!("{id}:{w}{{{}{w2}}}", owner.join(","))
    })
}

fn document() -> impl Strategy<Value = String> {
    let jobs = proptest::collection::vec((ws(), job()), 0..6).prop_map(|v| {
        let items: Vec<String> = v.into_iter().map(|(w, j)| format!("{w}{j}")).collect();
        format!("{{{}}}", items.join(","))
    });
    let header = proptest::sample::select(vec![
        "\"timestamp\":1664911414,",
        "\"pbs_version\":\"19.0.0\",",
        "\"pbs_server\":\"pbs\",",
        "",
        "\"x\":[1,{\"y\":null}],",
    ]);
    (
        header,
        ws(),
        jobs,
        ws(),
        proptest::sample::select(vec!["", "", "", "", ",\"Jobs\":{}", ",\"z\":1"]),
    )
        .prop_map(|(h, w, jobs, w2, tail)| format!("{{{w}{h}{w}\"Jobs\":{w2}{jobs}{tail}{w2}}}{w}"))
}

/// A value of a job attribute in a document of [`shaped_document`]: mostly plain strings of a
/// few lengths (so a job's value is often, not always, as long as the last job's), sometimes
/// any string, number, `null` or object.
fn shaped_value() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => proptest::sample::select(vec![
            "\"a\"", "\"ab\"", "\"bob\"", "\"u1@h\"", "\"\"", "\"Tue Oct  4 21:23:20 2022\"",
            "\"00:10:00\"", "\"Q\"",
        ])
        .prop_map(str::to_string),
        1 => string(),
        1 => number(),
        1 => Just("null".to_string()),
        1 => resources(),
    ]
}

/// Documents whose jobs mostly share one layout — the same attributes in the same order with
/// the same whitespace, as `qstat` prints them — while their values differ. The reader expects
/// each job's layout to be the last job's; every departure from it (an attribute dropped,
/// repeated or added, two swapped, other whitespace, a value of another length or kind) must
/// read exactly as serde_json reads it. A long last member keeps every job 64 bytes or more
/// from the text's end, where layouts are compared.
fn shaped_document() -> impl Strategy<Value = String> {
    let keys = vec![
        "Job_Name",
        "Job_Owner",
        "euser",
        "egroup",
        "queue",
        "job_state",
        "qtime",
        "Priority",
        "Checkpoint",
        "ctime",
        "Resource_List",
        "Variable_List",
        "eligible_time",
        "accrue_type",
        "project",
        "Account_Name",
    ];
    let indent = proptest::sample::select(vec!["\n            ", "\n    ", " ", "", "\n\t"]);
    let layout = proptest::collection::vec((indent, proptest::sample::select(keys)), 1..12);
    layout.prop_flat_map(|layout| {
        let n = layout.len();
        let job = (
            proptest::collection::vec(shaped_value(), n),
            0u8..12,
            any::<proptest::sample::Index>(),
            ws(),
        );
        proptest::collection::vec(job, 2..12).prop_map(move |jobs| {
            let mut s = String::from("{\"Jobs\":{");
            for (j, (values, change, at, w)) in jobs.into_iter().enumerate() {
                if j > 0 {
                    s.push(',');
                }
                let mut attrs: Vec<(String, String)> = (layout.iter().zip(values))
                    .map(|((w, k), v)| (w.to_string(), format!("\"{k}\":{v}")))
                    .collect();
                let i = at.index(attrs.len());
                match change {
                    0 => drop(attrs.remove(i)),
                    1 => attrs.push(attrs[i].clone()),
                    2 => attrs.swap(0, i),
                    3 => attrs[i].0 = w,
                    4 => attrs.push((" ".to_string(), "\"extra\":\"x\"".to_string())),
                    5 => attrs.truncate(i),
                    _ => {}
                }
                let body: Vec<String> = attrs.into_iter().map(|(w, a)| format!("{w}{a}")).collect();
                s.push_str(&format!(
                    "\n        \"{j}.s\":{{{}\n        }}",
                    body.join(",")
                ));
            }
            s.push_str(&format!("\n}},\"pbs_server\":\"{}\"}}\n", "p".repeat(80)));
            s
        })
    })
}

/// The same document with one byte removed, replaced or inserted.
fn mutated() -> impl Strategy<Value = Vec<u8>> {
    let special = proptest::sample::select(vec![
        b'"', b',', b'}', b'{', b':', b'\\', 0x01, 0xff, b' ', b'0', b'-', b'[', b'n',
    ]);
    (document(), any::<prop::sample::Index>(), 0u8..3, special).prop_map(|(doc, at, kind, b)| {
        let mut bytes = doc.into_bytes();
        if bytes.is_empty() {
            return bytes;
        }
        let i = at.index(bytes.len());
        match kind {
            0 => {
                bytes.remove(i);
            }
            1 => bytes[i] = b,
            _ => bytes.insert(i, b),
        }
        bytes
    })
}

/// Smallest parts tried: each document is read cut wherever a part of this many bytes ends.
const PART_SIZES: [usize; 3] = [1, 24, 100];

/// Threads of the pools the parts are read on.
const THREADS: [usize; 3] = [1, 2, 3];

/// The fast path (in parts of every size of [`PART_SIZES`], on pools of every size of
/// [`THREADS`]), the plain reader and the public reader agree on `bytes`; returns whether the
/// fast path answered at the smallest size.
fn agree(bytes: &[u8]) -> Result<bool, TestCaseError> {
    agree_at(bytes, &PART_SIZES, &THREADS)
}

/// [`agree`] with parts of the sizes `sizes` on pools of `threads` threads.
fn agree_at(bytes: &[u8], sizes: &[usize], threads: &[usize]) -> Result<bool, TestCaseError> {
    let serde = read_serde("", bytes, &TimeZone::UTC);
    let public = read_qstat_json(bytes);
    let text = String::from_utf8_lossy(bytes);
    let same = |a: &Result<JobSet, JobsError>| match (a, &serde) {
        (Ok(a), Ok(b)) => a.describe() == b.describe(),
        (Err(a), Err(b)) => a.to_string() == b.to_string(),
        _ => false,
    };
    prop_assert!(same(&public), "public reader differs from serde on {text}");
    let mut answered = Vec::new();
    for &n in threads {
        for &min_part in sizes {
            let parts = on(n, || {
                split::read(bytes, Pages::none(), min_part, &TimeZone::UTC)
            });
            answered.push(parts.is_some());
            if let Some(parts) = parts {
                let shown = parts.describe();
                prop_assert!(
                    same(&Ok(parts)),
                    "fast path in parts of {min_part} bytes on {n} threads {shown:?} differs \
                     from serde {:?} on {text}",
                    serde.as_ref().map(|s| s.describe())
                );
            }
        }
    }
    Ok(answered[0])
}

/// `f` on a pool of `threads` threads (one pool of each size for every test).
fn on<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    static POOLS: std::sync::OnceLock<Vec<rayon::ThreadPool>> = std::sync::OnceLock::new();
    let pools = POOLS.get_or_init(|| {
        (1..=THREADS.len())
            .map(|n| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .expect("a pool")
            })
            .collect()
    });
    match pools.get(threads.wrapping_sub(1)) {
        Some(pool) => pool.install(f),
        None => panic!("no pool of {threads} threads"),
    }
}

proptest! {
    // 3000 cases each by default; QSTAT_AGREEMENT_CASES=N for a longer hunt.
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("QSTAT_AGREEMENT_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000)
    ))]

    #[test]
    fn valid_documents(doc in document()) {
        agree(doc.as_bytes())?;
    }

    #[test]
    fn mutated_documents(bytes in mutated()) {
        agree(&bytes)?;
    }

    #[test]
    fn documents_of_jobs_laid_out_alike(doc in shaped_document()) {
        let fast = agree(doc.as_bytes())?;
        // Whatever serde_json reads the fast path reads too (it declines nothing here).
        prop_assert!(fast || read_serde("", doc.as_bytes(), &TimeZone::UTC).is_err(), "{doc}");
    }
}

/// The fast path must actually answer (else the tests above prove nothing): every generated
/// document serde_json reads without error is read by the scanner in one pass too, except those
/// with a second `Jobs` key, which it leaves to serde_json by design; and in parts of one byte
/// it reads nearly all of them (it declines those where a guessed cut fell inside a job: a
/// value holding `}, "4gb": {…}`, say).
#[test]
fn the_fast_path_reads_what_serde_json_reads() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut in_parts, mut readable) = (0, 0);
    for _ in 0..2000 {
        let doc = document().new_tree(&mut runner).unwrap().current();
        let parts = agree(doc.as_bytes()).unwrap();
        if read_serde("", doc.as_bytes(), &TimeZone::UTC).is_ok() && !doc.contains(",\"Jobs\":{}") {
            readable += 1;
            in_parts += usize::from(parts);
            let whole = split::read(doc.as_bytes(), Pages::none(), usize::MAX, &TimeZone::UTC);
            assert!(
                whole.is_some(),
                "the scanner declined a plain document: {doc}"
            );
        }
    }
    assert!(
        readable > 400,
        "only {readable} of 2000 documents were readable"
    );
    assert!(
        in_parts * 100 >= readable * 95,
        "in parts, only {in_parts} of {readable} readable documents were read"
    );
    let plain = r#"{"Jobs":{"1.s":{"Job_Owner":"a@h","Resource_List":{"ncpus":4,"mem":"4gb"}},
        "2.s":{"Job_Owner":"b@h"}}}"#;
    assert!(agree(plain.as_bytes()).unwrap());
}

/// Every one-byte change (removed, replaced by one of the bytes JSON's syntax turns on, or such
/// a byte inserted) at every place of documents the parts read: the fast path, cut at every
/// byte and read on a pool of three threads, answers exactly as serde_json or declines. Exhaustive where
/// the generated mutations above are a sample: a change at the one `:` after a job id, say, is
/// tried here on every document.
#[test]
fn every_one_byte_change_reads_as_serde_reads_it() {
    let job = |id: &str, user: &str, extra: &str| {
        format!(
            r#""{id}":{{"Job_Name":"j\u0031","Job_Owner":"{user}@h","euser":"{user}","queue":"workq",
            "Priority":-3,"qtime":"Tue Oct  4 21:23:20 2022","eligible_time":"00:10:00",
            "Resource_List":{{"ncpus":4,"mem":"4gb","walltime":"01:00:00"}},
            "Variable_List":{{"A":"b\"c","N":[1,{{"x":null}}]}}{extra},"accrue_type":2}}"#
        )
    };
    let docs = [
        format!(
            "{{\"timestamp\":1,\"Jobs\":{{{},\n{},\n{}}},\"pbs_server\":\"s\"}}",
            job("1.s", "a", ""),
            job("2[3].s", "b", ",\"Account_Name\":\"p\""),
            job("30.s", "c", ",\"egroup\":\"g\"")
        ),
        format!(
            "{{\"Jobs\":{{{},{}}}}}",
            job("7.s", "\\u00e9", ""),
            job("8.s", "d", ",\"x\":true")
        ),
    ];
    let bytes_to_try = [
        b'"', b',', b':', b'{', b'}', b'[', b']', b'\\', b' ', b'0', b'n', b'x',
    ];
    let mut answered = 0;
    for doc in &docs {
        assert!(agree(doc.as_bytes()).unwrap(), "the fast path reads {doc}");
        let doc = doc.as_bytes();
        let check = |changed: &[u8]| agree_at(changed, &[1], &[3]).unwrap();
        for i in 0..doc.len() {
            let mut removed = doc.to_vec();
            removed.remove(i);
            answered += usize::from(check(&removed));
            for b in bytes_to_try {
                let mut replaced = doc.to_vec();
                replaced[i] = b;
                answered += usize::from(check(&replaced));
                let mut inserted = doc.to_vec();
                inserted.insert(i, b);
                answered += usize::from(check(&inserted));
            }
        }
    }
    assert!(
        answered > 1000,
        "the fast path answered only {answered} changed documents"
    );
}

/// Large documents are read in parts of the product's size; tricky whitespace and strings that
/// look like job boundaries must not change the result.
#[test]
fn large_documents_read_in_parts_match_serde() {
    for variant in 0..3 {
        let mut s = String::from("{\n    \"timestamp\":1,\n    \"Jobs\":{\n");
        let mut n = 0;
        while s.len() < 3 << 20 {
            if n > 0 {
                s.push_str(if variant == 1 { "\n,\t" } else { ",\n" });
            }
            let trap = if variant == 2 {
                r#"}, \"9.x\": {"#
            } else {
                "plain"
            };
            s.push_str(&format!(
                "        \"{n}.pbs\":{{\n            \"Job_Owner\":\"u{}@h\",\n            \"Job_Name\":\"{trap}\",\n            \"qtime\":\"Tue Oct  4 21:23:{:02} 2022\",\n            \"Resource_List\":{{\"ncpus\":{},\"mem\":\"{}gb\",\"place\":\"free\"}},\n            \"Variable_List\":{{\"A\":\"}},\\\"x\\\":{{\"}}\n        }}",
                n % 97,
                n % 60,
                n % 7,
                n % 13
            ));
            n += 1;
        }
        s.push_str("\n    }\n}\n");
        let parts = on(2, || {
            split::read(
                s.as_bytes(),
                Pages::none(),
                split::MIN_PART_BYTES,
                &TimeZone::UTC,
            )
        })
        .expect("the fast path reads it");
        let serde = read_serde("", s.as_bytes(), &TimeZone::UTC).unwrap();
        assert_eq!(parts.len(), n);
        assert!(parts.describe() == serde.describe(), "variant {variant}");
    }
}
