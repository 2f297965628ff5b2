//! `SortFormula`: the little the queue needs from a compiled `job_sort_formula` — its text, the
//! keywords it reads (slot `i` is `keywords()[i]`) and evaluation of one slot vector. The
//! formula engine's `Program` implements it; keeping the queue behind this trait lets binding and
//! ordering be tested and benchmarked on their own.

/// A compiled formula the queue can bind and evaluate.
pub trait SortFormula {
    /// The formula text, for headers and JSON output.
    fn source(&self) -> &str;
    /// The keywords the formula reads, in slot order.
    fn keywords(&self) -> &[String];
    /// Evaluates one job's slot values; `Err` carries Python's message (PBS then uses 0).
    fn evaluate(&self, slots: &[f64]) -> Result<f64, String>;
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
}
