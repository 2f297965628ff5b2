//! The page: sections of figures and tables, rendered into one HTML document by the template
//! `page.html` (minijinja, every value HTML-escaped; the SVGs are plotters' output, whose texts
//! plotters escapes, and go in as they are).

use super::ReportError;
use minijinja::{context, Environment};
use serde::Serialize;

/// The template of the page: markup, inline style and the sorting script.
const TEMPLATE: &str = include_str!("page.html");

/// A whole report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Page {
    /// The page's title (`fairsort report: ...`).
    pub title: String,
    /// Facts of the header, as (label, value): the inputs' sources, the formula, the site.
    pub facts: Vec<(String, String)>,
    /// The sections, in order.
    pub sections: Vec<Section>,
}

/// One section: an id (its anchor, `#only=ID` shows it alone), a title, notes, figures, tables.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Section {
    /// The anchor (letters, digits, `-`).
    pub id: String,
    /// The heading.
    pub title: String,
    /// Sentences under the heading.
    pub notes: Vec<String>,
    /// Pictures, side by side where the page is wide enough.
    pub figures: Vec<Figure>,
    /// Sortable tables.
    pub tables: Vec<Table>,
}

/// One picture.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Figure {
    /// The caption.
    pub caption: String,
    /// The SVG document (plotters' output).
    pub svg: String,
}

/// One sortable table, bounded: `rows` are the first of `total`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Table {
    /// The anchor of the table (tests and links find it by it).
    pub id: String,
    /// The caption.
    pub caption: String,
    /// The columns.
    pub columns: Vec<Column>,
    /// The rows shown, each a cell per column.
    pub rows: Vec<Vec<Cell>>,
    /// How many rows there are in all (the note under the table counts those not shown).
    pub total: usize,
}

/// A column: its heading and whether it sorts as numbers.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Column {
    /// The heading.
    pub name: String,
    /// Sorts by the cells' numbers (else by their text).
    pub numeric: bool,
}

/// A cell: the text shown and, for a number, its exact value (the `data-v` attribute: what
/// sorting uses, and what tests compare with the JSON outputs).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Cell {
    /// The text shown.
    pub text: String,
    /// The exact value, as Rust prints an f64 (shortest text that reads back the same).
    pub value: Option<String>,
}

impl Column {
    /// A column sorted by text.
    pub fn text(name: &str) -> Column {
        Column {
            name: name.to_string(),
            numeric: false,
        }
    }

    /// A column sorted by number.
    pub fn number(name: &str) -> Column {
        Column {
            name: name.to_string(),
            numeric: true,
        }
    }
}

impl Cell {
    /// A text cell.
    pub fn text(s: impl Into<String>) -> Cell {
        Cell {
            text: s.into(),
            value: None,
        }
    }

    /// A number shown as `shown`, sorted and compared by `v`.
    pub fn number(v: f64, shown: impl Into<String>) -> Cell {
        Cell {
            text: shown.into(),
            value: Some(format!("{v}")),
        }
    }

    /// A number shown as `order`'s tables show values (4 decimals, trailing zeros dropped).
    pub fn value(v: f64) -> Cell {
        Cell::number(v, crate::order::explain::fmt(v))
    }

    /// An integer count.
    pub fn count(n: u64) -> Cell {
        Cell::number(n as f64, n.to_string())
    }

    /// A part of one as a percentage with one decimal.
    pub fn percent(v: f64) -> Cell {
        Cell::number(v, format!("{:.1}%", v * 100.0))
    }

    /// A number or an empty cell.
    pub fn maybe(v: Option<f64>) -> Cell {
        match v {
            Some(v) => Cell::value(v),
            None => Cell::default(),
        }
    }
}

impl Table {
    /// How many rows are not shown.
    pub fn not_shown(&self) -> usize {
        self.total.saturating_sub(self.rows.len())
    }
}

/// The page as one HTML document.
pub fn render(page: &Page) -> Result<String, ReportError> {
    let mut env = Environment::new();
    // `.html` templates escape every value (`&`, `<`, `>`, `"`, `'`, `/`).
    env.add_template("page.html", TEMPLATE)
        .map_err(|e| ReportError::Template(e.to_string()))?;
    let template = env
        .get_template("page.html")
        .map_err(|e| ReportError::Template(e.to_string()))?;
    let sections: Vec<SectionView> = page.sections.iter().map(SectionView::of).collect();
    template
        .render(context! {
            title => &page.title,
            facts => &page.facts,
            sections => sections,
        })
        .map_err(|e| ReportError::Template(e.to_string()))
}

/// A section as the template takes it: tables with their count of rows not shown.
#[derive(Serialize)]
struct SectionView<'a> {
    id: &'a str,
    title: &'a str,
    notes: &'a [String],
    figures: &'a [Figure],
    tables: Vec<TableView<'a>>,
}

#[derive(Serialize)]
struct TableView<'a> {
    #[serde(flatten)]
    table: &'a Table,
    not_shown: usize,
}

impl<'a> SectionView<'a> {
    fn of(s: &'a Section) -> SectionView<'a> {
        SectionView {
            id: &s.id,
            title: &s.title,
            notes: &s.notes,
            figures: &s.figures,
            tables: (s.tables.iter())
                .map(|t| TableView {
                    table: t,
                    not_shown: t.not_shown(),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page_with(text: &str) -> Page {
        Page {
            title: format!("report {text}"),
            facts: vec![("formula".into(), text.into())],
            sections: vec![Section {
                id: "queue".into(),
                title: "Queue".into(),
                notes: vec![text.into()],
                figures: vec![],
                tables: vec![Table {
                    id: "queue-jobs".into(),
                    caption: "jobs".into(),
                    columns: vec![Column::text("job"), Column::number("value")],
                    rows: vec![vec![Cell::text(text), Cell::value(0.25)]],
                    total: 3,
                }],
            }],
        }
    }

    #[test]
    fn every_user_text_is_escaped() {
        let evil = "<script>alert('x')</script>&\"";
        let html = render(&page_with(evil)).unwrap();
        assert!(!html.contains("<script>alert"));
        assert!(html.contains("&lt;script&gt;alert("));
        // the page's own script is there, once
        assert_eq!(html.matches("<script>").count(), 1);
    }

    #[test]
    fn a_bounded_table_counts_what_it_does_not_show() {
        let html = render(&page_with("a")).unwrap();
        assert!(html.contains("2 more rows not shown"), "{html}");
        assert!(html.contains("data-v=\"0.25\""));
        assert!(html.contains("id=\"queue\""));
    }

    #[test]
    fn the_page_fetches_nothing() {
        let html = render(&page_with("a")).unwrap();
        for s in ["http://", "https://", "src=\"", "<link", "@import"] {
            assert!(!html.contains(s), "{s}");
        }
        assert!(html.contains("default-src 'none'"));
    }
}
