//! How a finished job's used resources become a usage charge. PBS evaluates the
//! `fairshare_usage_res` formula (default `cput`) on them; the PBS log reader fills the slots of
//! whatever `Charge` it is given.

/// A charge computation over named, slot-indexed values (slot i = `keywords()[i]`), so a reader
/// extracts only what the formula needs. `Sync`: a log's chunks are parsed and charged on every
/// worker with one `Charge`.
pub trait Charge: Sync {
    /// The resource names the charge reads, in slot order.
    fn keywords(&self) -> &[String];
    /// The charge for one job. `Err` is an evaluation error; PBS then charges 0 and logs it.
    fn charge(&self, values: &[f64]) -> Result<f64, String>;
}

/// The charge is one resource's value, e.g. PBS's default `fairshare_usage_res` `cput`:
/// the common case, with no formula evaluation at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceCharge {
    keywords: Vec<String>,
}

impl ResourceCharge {
    /// Charge the value of `resource` (in PBS units: time in seconds, size in kb).
    pub fn new(resource: impl Into<String>) -> Self {
        ResourceCharge {
            keywords: vec![resource.into()],
        }
    }

    /// The resource when `formula` is a bare resource name (`cput`, `walltime`, `ncpus`).
    pub(crate) fn from_formula(formula: &str) -> Option<Self> {
        let f = formula.trim();
        let ok = !f.is_empty()
            && f.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && f.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        ok.then(|| ResourceCharge::new(f))
    }
}

impl Charge for ResourceCharge {
    fn keywords(&self) -> &[String] {
        &self.keywords
    }

    fn charge(&self, values: &[f64]) -> Result<f64, String> {
        Ok(values.first().copied().unwrap_or(0.0))
    }
}

/// Any `fairshare_usage_res` formula (e.g. `ncpus*walltime`), compiled by `crate::formula`:
/// evaluated with PBS's Python semantics; an evaluation error charges 0, as PBS does.
impl Charge for crate::formula::Program {
    fn keywords(&self) -> &[String] {
        crate::formula::Program::keywords(self)
    }

    fn charge(&self, values: &[f64]) -> Result<f64, String> {
        let e = self.eval(values);
        match e.error {
            Some(m) => Err(m),
            None => Ok(e.value),
        }
    }
}

/// Compiles `fairshare_usage_res`: a bare resource name takes the no-evaluation path, anything
/// else is compiled against `resources`. The error is rendered with a caret under the culprit.
pub fn usage_res_charge(
    src: &str,
    resources: &crate::formula::ResourceTable,
) -> Result<Box<dyn Charge>, String> {
    if let Some(c) = ResourceCharge::from_formula(src) {
        if resources.get(src.trim()).is_some_and(|t| t.is_numeric()) {
            return Ok(Box::new(c));
        }
    }
    crate::formula::compile(src, resources)
        .map(|p| Box::new(p) as Box<dyn Charge>)
        .map_err(|e| format!("fairshare_usage_res: {}", e.render(src)))
}

/// PBS: a negative charge (delta) counts as 0.
pub(crate) fn clamp_charge(c: f64) -> f64 {
    if c.is_nan() || c < 0.0 {
        0.0
    } else {
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_resource_formula() {
        let c = ResourceCharge::from_formula(" cput ").unwrap();
        assert_eq!(c.keywords(), ["cput".to_string()]);
        assert_eq!(c.charge(&[42.0]), Ok(42.0));
        assert!(ResourceCharge::from_formula("ncpus*walltime").is_none());
        assert!(ResourceCharge::from_formula("2x").is_none());
        assert_eq!(clamp_charge(-3.0), 0.0);
        assert_eq!(clamp_charge(f64::NAN), 0.0);
    }

    #[test]
    fn formulas_compile_and_charge() {
        let table = crate::formula::ResourceTable::builtin();
        let c = usage_res_charge("ncpus*walltime", &table).unwrap();
        let mut slots = vec![0.0; c.keywords().len()];
        for (i, k) in c.keywords().iter().enumerate() {
            slots[i] = if k == "ncpus" { 4.0 } else { 600.0 };
        }
        assert_eq!(c.charge(&slots), Ok(2400.0));
        // PBS smoketest: ceil(fabs(-ncpus*(foo1/100.00)*sqrt(100))) with an undefined foo1 fails to compile
        let e = usage_res_charge("ncpus*", &table).err().unwrap_or_default();
        assert!(e.starts_with("fairshare_usage_res: "), "{e}");
        assert!(e.contains('^'), "{e}");
        let z = usage_res_charge("1/(ncpus-ncpus)", &table).unwrap();
        assert!(z.charge(&[1.0]).is_err());
        assert_eq!(
            usage_res_charge("cput", &table).unwrap().keywords(),
            ["cput".to_string()]
        );
    }
}
