//! One job as read (`Job`, its state and requests), below both `columns` and `job` (`JobSet`).

use super::names::Sym;

/// A resource request as read: a number in PBS units, or text PBS would not bind as a number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ResourceValue {
    /// Size in KB, time in seconds, or a plain number.
    Number(f64),
    /// A string, a boolean or a malformed number (an error if the formula uses it), interned in
    /// [`JobSet::texts`](crate::queue::JobSet::texts): a million jobs' `select` and `place`
    /// strings are a few thousand texts.
    Text(Sym),
}

/// One resource a job requests: the resource (a symbol of
/// [`JobSet::resources`](crate::queue::JobSet::resources)) and its value, in 16 bytes (a
/// `(Sym, ResourceValue)` pair takes 24: a million-job file has six million requests).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Request {
    /// The resource.
    sym: Sym,
    /// The text's symbol, or [`Request::NUMBER`] for a number.
    text: Sym,
    /// The number (0 for a text).
    number: f64,
}

impl Request {
    /// `text` of a number.
    const NUMBER: Sym = Sym::MAX;

    /// A request of resource `sym` with `value`. A text symbol must be below `Sym::MAX` (a text
    /// pool never holds four billion texts).
    pub fn new(sym: Sym, value: ResourceValue) -> Request {
        match value {
            ResourceValue::Number(number) => Request {
                sym,
                text: Request::NUMBER,
                number,
            },
            ResourceValue::Text(text) => Request {
                sym,
                text: text.min(Request::NUMBER - 1),
                number: 0.0,
            },
        }
    }

    /// The resource requested.
    #[inline]
    pub fn sym(self) -> Sym {
        self.sym
    }

    /// The value requested.
    #[inline]
    pub fn value(self) -> ResourceValue {
        if self.text == Request::NUMBER {
            ResourceValue::Number(self.number)
        } else {
            ResourceValue::Text(self.text)
        }
    }
}

/// PBS job states that matter for ordering: runnable jobs sort before the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobState {
    /// `Q`: queued, waiting for the scheduler.
    Queued,
    /// `R`: running.
    Running,
    /// `H`: held.
    Held,
    /// Any other state letter (`W`, `T`, `E`, `B`, `S`, ...).
    Other(char),
}

impl JobState {
    /// From `qstat`'s `job_state` letter (an unknown or missing state counts as queued).
    pub(crate) fn from_letter(s: &str) -> JobState {
        match s.trim() {
            "" | "Q" => JobState::Queued,
            "R" => JobState::Running,
            "H" => JobState::Held,
            other => JobState::Other(other.chars().next().unwrap_or('?')),
        }
    }

    /// The letter `qstat` prints.
    pub fn letter(self) -> char {
        match self {
            JobState::Queued => 'Q',
            JobState::Running => 'R',
            JobState::Held => 'H',
            JobState::Other(c) => c,
        }
    }

    /// Whether the scheduler would consider the job this cycle (PBS sorts these first).
    pub fn is_runnable(self) -> bool {
        self == JobState::Queued
    }
}

/// One job.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// The full job id (`123.server`, `124[].server`).
    pub id: String,
    /// The id's sequence number (`123` of `123.server`), `u64::MAX` if it has none.
    pub seq: u64,
    /// Array index of a subjob (`124[7].server` → 7).
    pub array_index: Option<u64>,
    /// `euser` (the owner's user name when qstat does not print it).
    pub euser: Sym,
    /// `egroup` (empty when unknown).
    pub egroup: Sym,
    /// `Account_Name`, when set.
    pub account: Option<Sym>,
    /// `queue`.
    pub queue: Sym,
    /// `job_state`.
    pub state: JobState,
    /// `Priority` (`qsub -p`): the `job_priority` keyword.
    pub priority: i64,
    /// `qtime` as seconds since the epoch: submission order.
    pub qtime: i64,
    /// `eligible_time` in seconds: the `eligible_time` keyword.
    pub eligible_time: f64,
    /// `accrue_type` (0 initial, 1 ineligible, 2 eligible, 3 running, 4 exit).
    pub accrue_type: i64,
    /// `Resource_List`: this job's run of
    /// [`JobSet::requests`](crate::queue::JobSet::requests) (one vector for all jobs, so reading a
    /// million jobs allocates no vector per job).
    pub requests: std::ops::Range<usize>,
}

impl Job {
    /// A job with no id, no names and no requests: the filler a merge moves jobs over, and the
    /// base tests build their jobs from.
    pub fn blank() -> Job {
        Job {
            id: String::new(),
            seq: 0,
            array_index: None,
            euser: 0,
            egroup: 0,
            account: None,
            queue: 0,
            state: JobState::Queued,
            priority: 0,
            qtime: 0,
            eligible_time: 0.0,
            accrue_type: 0,
            requests: 0..0,
        }
    }
}

/// The sequence number and array index of a PBS job id: `123.srv` → (123, None),
/// `124[7].srv` → (124, Some(7)); an id without a leading number gets `u64::MAX`.
pub fn id_sequence(id: &str) -> (u64, Option<u64>) {
    let digits = id.bytes().take_while(u8::is_ascii_digit).count();
    let seq = id
        .get(..digits)
        .and_then(|d| d.parse().ok())
        .unwrap_or(u64::MAX);
    let index = id.get(digits..).and_then(|rest| {
        let inner = rest.strip_prefix('[')?;
        let end = inner.find(']')?;
        inner.get(..end)?.parse().ok()
    });
    (seq, index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_id_sequence_numbers() {
        assert_eq!(id_sequence("123.server"), (123, None));
        assert_eq!(id_sequence("124[7].server"), (124, Some(7)));
        assert_eq!(id_sequence("124[].server"), (124, None));
        assert_eq!(id_sequence("J1"), (u64::MAX, None));
        assert_eq!(id_sequence(""), (u64::MAX, None));
    }

    #[test]
    fn requests_are_16_bytes_and_keep_their_value() {
        assert_eq!(std::mem::size_of::<Request>(), 16);
        for v in [
            ResourceValue::Number(-0.0),
            ResourceValue::Number(f64::NAN),
            ResourceValue::Number(4.0),
            ResourceValue::Text(0),
            ResourceValue::Text(7),
        ] {
            let r = Request::new(3, v);
            assert_eq!(r.sym(), 3);
            match (r.value(), v) {
                (ResourceValue::Number(a), ResourceValue::Number(b)) => {
                    assert_eq!(a.to_bits(), b.to_bits())
                }
                (a, b) => assert_eq!(a, b),
            }
        }
    }

    #[test]
    fn states() {
        assert!(JobState::from_letter("Q").is_runnable());
        assert!(!JobState::from_letter("R").is_runnable());
        assert_eq!(JobState::from_letter("W").letter(), 'W');
    }
}
