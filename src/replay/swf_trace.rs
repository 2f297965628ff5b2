//! An SWF log as a replay trace, read by the SWF adapter ([`crate::swf::read_swf`]). Jobs with
//! an unknown (−1) run time or submit time, or a size of 0, are left out; the size is the
//! requested processors, else the allocated ones; a requested time of −1 is unknown, and so is
//! one of 0 (no job asks for a 0-second limit: logs write 0 where the request was not
//! recorded), counted in a note.

use crate::replay::trace_job::{line_err, Trace, TraceError, TraceJob};
use crate::swf::{read_swf, SwfLog};
use std::path::Path;

/// The note of the jobs whose requested time 0 is taken as unknown.
pub(crate) const ZERO_REQUEST: &str =
    "requested time 0 taken as unknown (SWF's -1): planned by their run time";

/// Reads one SWF file into `trace` (its header values replace earlier ones).
pub(crate) fn read_swf_trace(text: &str, path: &Path, trace: &mut Trace) -> Result<(), TraceError> {
    let mut log = SwfLog {
        max_nodes: trace.max_nodes,
        max_procs: trace.max_procs,
        jobs: Vec::new(),
    };
    read_swf(text, &mut log).map_err(|e| match e.col {
        0 => line_err(path, e.line, e.message),
        col => TraceError::Field {
            path: path.to_path_buf(),
            line: e.line,
            col,
            message: e.message,
        },
    })?;
    trace.max_nodes = log.max_nodes;
    trace.max_procs = log.max_procs;
    for j in log.jobs {
        if j.submit < 0 {
            trace.leave_out("no submit time");
            continue;
        }
        if j.run < 0 {
            trace.leave_out("no run time (never ran)");
            continue;
        }
        let cores = if j.req_procs > 0 {
            j.req_procs
        } else {
            j.alloc_procs
        };
        if cores <= 0 {
            trace.leave_out("no size");
            continue;
        }
        if j.req_time == 0 {
            trace.note(ZERO_REQUEST);
        }
        trace.jobs.push(TraceJob {
            id: j.id,
            submit: j.submit,
            run: j.run,
            walltime: (j.req_time > 0).then_some(j.req_time),
            cores: cores as u64,
            // Field 10: requested memory in KB per processor (both within the reader's
            // bounds: the product is far below u64's).
            mem: if j.req_mem > 0 {
                (j.req_mem as u64).saturating_mul(cores as u64)
            } else {
                0
            },
            user: format!("u{}", j.uid),
            account: format!("g{}", j.gid),
            queue: format!("q{}", j.queue),
            qos: String::new(),
        });
    }
    Ok(())
}
