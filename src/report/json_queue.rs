//! The queue section of a scheduler whose order `fairsort order --json` gives as rows of
//! factors (Slurm's multifactor priority as sprio shows it, flux-accounting's mf_priority): one
//! column per member of a row, nested objects flattened (`factors.age`), every number exactly
//! the document's.

use super::{Cell, Column, Limits, Section, Table};
use serde_json::{Map, Value};

/// A row's members as (column, value), nested objects as `outer.inner`.
fn flatten<'a>(prefix: &str, obj: &'a Map<String, Value>, out: &mut Vec<(String, &'a Value)>) {
    for (k, v) in obj {
        let name = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            Value::Object(inner) => flatten(&name, inner, out),
            _ => out.push((name, v)),
        }
    }
}

/// A JSON value as a cell: numbers keep their exact text as the value.
fn cell(v: &Value) -> Cell {
    match v {
        Value::Null => Cell::default(),
        Value::Bool(b) => Cell::text(b.to_string()),
        Value::String(s) => Cell::text(s.as_str()),
        Value::Number(n) => {
            let shown = match (n.is_f64(), n.as_f64()) {
                (true, Some(f)) => crate::order::explain::fmt(f),
                _ => n.to_string(),
            };
            Cell {
                text: shown,
                value: Some(n.to_string()),
            }
        }
        other => Cell::text(other.to_string()),
    }
}

/// The queue of `doc` (an `order --json` document with a `jobs` array of objects): its first
/// `limits.rows` jobs in the document's order, and its other scalar members as notes.
pub fn json_queue_section(doc: &Value, scheduler: &str, limits: Limits) -> Section {
    let empty = Vec::new();
    let jobs = doc.get("jobs").and_then(Value::as_array).unwrap_or(&empty);
    let mut columns: Vec<String> = Vec::new();
    let mut flat_rows = Vec::new();
    for job in jobs.iter().take(limits.rows) {
        let mut flat = Vec::new();
        if let Some(obj) = job.as_object() {
            flatten("", obj, &mut flat);
        }
        for (name, _) in &flat {
            if !columns.contains(name) {
                columns.push(name.clone());
            }
        }
        flat_rows.push(flat);
    }
    // The job's id first, its other members next, the nested factors last (each in the
    // document's order).
    columns.sort_by_key(|c| match c.as_str() {
        "id" | "jobid" => 0,
        c if !c.contains('.') => 1,
        _ => 2,
    });
    let numeric: Vec<bool> = (columns.iter())
        .map(|c| {
            flat_rows.iter().any(|r| {
                r.iter()
                    .any(|(n, v)| n == c && matches!(v, Value::Number(_)))
            })
        })
        .collect();
    let rows = (flat_rows.iter())
        .map(|flat| {
            (columns.iter())
                .map(|c| {
                    flat.iter()
                        .find(|(n, _)| n == c)
                        .map_or_else(Cell::default, |(_, v)| cell(v))
                })
                .collect()
        })
        .collect();
    let mut notes = vec![format!(
        "{} jobs as `fairsort order --json` lists them, each with its priority and the factors \
         it is the sum of; click a heading to sort by it.",
        jobs.len()
    )];
    if let Some(obj) = doc.as_object() {
        for (k, v) in obj {
            if !matches!(k.as_str(), "jobs" | "sources") && !v.is_array() {
                notes.push(format!(
                    "{k}: {}",
                    v.as_str().map_or_else(|| v.to_string(), str::to_string)
                ));
            }
        }
    }
    Section {
        id: "queue".into(),
        title: "The queue".into(),
        notes,
        figures: Vec::new(),
        tables: vec![Table {
            id: "queue-jobs".into(),
            caption: format!("Jobs and their priority factors ({scheduler})"),
            columns: (columns.iter().zip(numeric))
                .map(|(c, n)| {
                    if n {
                        Column::number(c)
                    } else {
                        Column::text(c)
                    }
                })
                .collect(),
            rows,
            total: jobs.len(),
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_factors_become_columns_with_exact_values() {
        let doc: Value = serde_json::from_str(
            r#"{"algorithm": "fair-tree", "jobs": [
                {"id": "1", "priority": 9881780224000001, "factors": {"age": 0.1, "tres": {"cpu": 2.5}}},
                {"id": "2", "priority": 3, "factors": {"age": 1e-7}, "user": "<b>"}]}"#,
        )
        .unwrap();
        let s = json_queue_section(&doc, "slurm", Limits { rows: 10 });
        let t = &s.tables[0];
        let names: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["id", "priority", "user", "factors.age", "factors.tres.cpu"]
        );
        assert_eq!(t.rows[0][1].value.as_deref(), Some("9881780224000001"));
        assert_eq!(t.rows[1][3].value.as_deref(), Some("1e-7"));
        assert!(t.rows[1][4].value.is_none());
        assert!(s.notes.iter().any(|n| n == "algorithm: fair-tree"));
        let s = json_queue_section(&doc, "slurm", Limits { rows: 1 });
        assert_eq!(s.tables[0].not_shown(), 1);
    }
}
