//! Reader of `pbs_rstat -f`: blocks of `Resv ID: R12.server` followed by `key = value` lines
//! (`reserve_state`, `reserve_start`, `reserve_end`, `Resource_List.ncpus`, …).

use crate::files::FormatError;
use crate::jobs::dates::parse_ctime;
use crate::pbs::defs::units::size_kb;

/// One advance reservation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reservation {
    /// `Resv ID`.
    pub id: String,
    /// `reserve_state` (`RESV_CONFIRMED`, `RESV_RUNNING`, `RESV_UNCONFIRMED`, …).
    pub state: String,
    /// `reserve_start`, epoch seconds.
    pub start: i64,
    /// `reserve_end`, epoch seconds.
    pub end: i64,
    /// `Resource_List.ncpus`.
    pub ncpus: u64,
    /// `Resource_List.mem` in KB.
    pub mem_kb: u64,
    /// `Resource_List.ngpus`.
    pub ngpus: u64,
}

impl Reservation {
    /// Whether pbs_sched holds its resources (confirmed; an unconfirmed one holds nothing yet).
    pub fn holds(&self) -> bool {
        !matches!(
            self.state.as_str(),
            "RESV_UNCONFIRMED" | "RESV_FINISHED" | "RESV_BEING_DELETED" | "RESV_DELETED"
        )
    }
}

/// Reads `pbs_rstat -f` text (`file` names it in errors).
pub fn read_pbs_rstat(text: &str, file: &str) -> Result<Vec<Reservation>, FormatError> {
    let mut out: Vec<Reservation> = Vec::new();
    let bad = |line: usize, message: String| FormatError::Line {
        file: file.to_string(),
        line,
        message,
    };
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let l = raw.trim();
        if l.is_empty() {
            continue;
        }
        if let Some(id) = l.strip_prefix("Resv ID:") {
            out.push(Reservation {
                id: id.trim().to_string(),
                state: String::new(),
                start: 0,
                end: 0,
                ncpus: 0,
                mem_kb: 0,
                ngpus: 0,
            });
            continue;
        }
        let Some((key, value)) = l.split_once(" = ") else {
            // a continuation of a long value (Variable_List): nothing fairsort reads
            continue;
        };
        let Some(r) = out.last_mut() else {
            return Err(bad(line, "expected `Resv ID: ID` first".into()));
        };
        let (key, value) = (key.trim(), value.trim());
        let date = || {
            parse_ctime(value).ok_or_else(|| bad(line, format!("{key}: `{value}` is not a date")))
        };
        let count = || {
            value
                .parse::<u64>()
                .map_err(|_| bad(line, format!("{key}: `{value}` is not a count")))
        };
        match key {
            "reserve_state" => r.state = value.to_string(),
            "reserve_start" => r.start = date()?,
            "reserve_end" => r.end = date()?,
            "Resource_List.ncpus" => r.ncpus = count()?,
            "Resource_List.ngpus" => r.ngpus = count()?,
            "Resource_List.mem" => {
                r.mem_kb = size_kb(value)
                    .ok_or_else(|| bad(line, format!("{key}: `{value}` is not a size")))?
            }
            _ => {}
        }
    }
    if let Some(r) = out.iter().find(|r| r.end < r.start) {
        return Err(bad(
            1,
            format!("reservation {}: it ends before it starts", r.id),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_confirmed_reservation() {
        let text = "Resv ID: R1.h\nReserve_Name = NULL\nreserve_state = RESV_CONFIRMED\n\
            reserve_start = Wed Dec 02 06:33:00 2026\nreserve_end = Wed Dec 02 08:33:00 2026\n\
            Resource_List.ncpus = 4\nResource_List.mem = 2gb\n\
            Variable_List = PBS_O_LOGNAME=alice,\n    PBS_O_HOST=h\n";
        let r = read_pbs_rstat(text, "rstat.txt").unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].end - r[0].start, 7200);
        assert_eq!((r[0].ncpus, r[0].mem_kb), (4, 2 << 20));
        assert!(r[0].holds());
    }

    #[test]
    fn bad_values_name_the_line() {
        let e = read_pbs_rstat("Resv ID: R1\nreserve_start = soon\n", "r.txt").unwrap_err();
        assert_eq!(
            e.to_string(),
            "r.txt:2: reserve_start: `soon` is not a date"
        );
        let e = read_pbs_rstat("reserve_state = X\n", "r.txt").unwrap_err();
        assert!(e.to_string().contains("Resv ID"), "{e}");
    }
}
