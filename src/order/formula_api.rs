//! `SortFormula`: the little the queue needs from a compiled `job_sort_formula` — its text, the
//! keywords it reads (slot `i` is `keywords()[i]`) and evaluation of slot vectors. The formula
//! engine's `Program` implements it; keeping the queue behind this trait lets binding and
//! ordering be tested and benchmarked on their own.

/// A compiled formula the queue can bind and evaluate (`Sync`: a large queue is evaluated in
/// parallel).
pub trait SortFormula: Sync {
    /// The formula text, for headers and JSON output.
    fn source(&self) -> &str;
    /// The keywords the formula reads, in slot order.
    fn keywords(&self) -> &[String];
    /// Evaluates one job's slot values; `Err` carries Python's message (PBS then uses 0).
    fn evaluate(&self, slots: &[f64]) -> Result<f64, String>;
    /// Evaluates a batch of jobs stored row by row (`rows.len() == out.len() * width`, width =
    /// `keywords().len()`), writing each value (0 on error) and returning the errors by row. The
    /// queue calls this once per block of jobs, so an engine with a batch fast path pays no
    /// per-job dispatch; the default loops over `evaluate`.
    fn evaluate_rows(&self, rows: &[f64], out: &mut [f64]) -> Vec<(usize, String)> {
        let width = self.keywords().len();
        let mut errors = Vec::new();
        for (j, o) in out.iter_mut().enumerate() {
            let row = rows.get(j * width..(j + 1) * width).unwrap_or(&[]);
            match self.evaluate(row) {
                Ok(v) => *o = v,
                Err(e) => {
                    *o = 0.0;
                    errors.push((j, e));
                }
            }
        }
        errors
    }
}

impl SortFormula for crate::formula::Program {
    fn source(&self) -> &str {
        crate::formula::Program::source(self)
    }
    fn keywords(&self) -> &[String] {
        crate::formula::Program::keywords(self)
    }
    fn evaluate(&self, slots: &[f64]) -> Result<f64, String> {
        let e = self.eval(slots);
        match e.error {
            Some(msg) => Err(msg),
            None => Ok(e.value),
        }
    }
    /// The engine's batch evaluator (its f64 fast path over a whole block of rows).
    fn evaluate_rows(&self, rows: &[f64], out: &mut [f64]) -> Vec<(usize, String)> {
        self.eval_rows(rows, out)
    }
}
