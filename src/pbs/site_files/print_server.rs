//! `qmgr -c 'print server'`: the custom resources, the queues in creation order (the order the
//! server lists them in, which pbs_sched keeps for queues of equal Priority) and the server's
//! attributes. Every attribute is kept as text; the few the cycle needs are typed.

use crate::files::FormatError;

use super::qmgr_print::{parse_qmgr_print, pbs_bool, Attrs, QmgrObject};

/// Label used in messages when no path is known.
pub const FILE: &str = "print_server";

/// What `print server` says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerPrint {
    /// The server's attributes (`job_sort_formula`, `resources_available.ncpus`, ...).
    pub server: Attrs,
    /// The queues, in the order created.
    pub queues: Vec<QueuePrint>,
    /// The `create resource` lines, in order.
    pub resources: Vec<ResourceDef>,
    /// Every other object the output names (nodes, hooks, schedulers), kept as read.
    pub others: Vec<QmgrObject>,
    /// The file's name, for errors about values read later.
    pub file: String,
}

/// One queue.
#[derive(Debug, Clone, PartialEq)]
pub struct QueuePrint {
    /// Its name.
    pub name: String,
    /// `queue_type` as written (`Execution`, `Route`).
    pub queue_type: Option<String>,
    /// `Priority`, when set.
    pub priority: Option<i64>,
    /// `enabled`, when set.
    pub enabled: Option<bool>,
    /// `started`, when set.
    pub started: Option<bool>,
    /// Every attribute, those above included.
    pub attrs: Attrs,
}

/// One custom resource.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceDef {
    /// Its name.
    pub name: String,
    /// `type` (`long`, `string`, `boolean`, ...), when printed.
    pub kind: Option<String>,
    /// `flag` (`h`, `nh`, `q`...), when printed.
    pub flag: Option<String>,
    /// Every attribute.
    pub attrs: Attrs,
}

impl ServerPrint {
    /// The queue named `name`.
    pub fn queue(&self, name: &str) -> Option<&QueuePrint> {
        self.queues.iter().find(|q| q.name == name)
    }

    /// The server's `job_sort_formula`, unquoted.
    pub fn job_sort_formula(&self) -> Option<&str> {
        self.server.value("job_sort_formula")
    }

    /// The server's `eligible_time_enable` (unset: false).
    pub fn eligible_time_enable(&self) -> Result<bool, FormatError> {
        self.bool_attr("eligible_time_enable")
            .map(|b| b.unwrap_or(false))
    }

    /// A boolean server attribute, when set.
    pub fn bool_attr(&self, name: &str) -> Result<Option<bool>, FormatError> {
        typed_bool(&self.server, name, &self.file)
    }
}

/// Reads `print server` output.
pub fn read_print_server(text: &str, file: &str) -> Result<ServerPrint, FormatError> {
    let mut out = ServerPrint {
        server: Attrs::default(),
        queues: Vec::new(),
        resources: Vec::new(),
        others: Vec::new(),
        file: file.to_string(),
    };
    for o in parse_qmgr_print(text, file)? {
        match o.kind.as_str() {
            "server" => out.server = o.attrs,
            "queue" => out.queues.push(queue(o, file)?),
            "resource" => out.resources.push(ResourceDef {
                kind: o.attrs.value("type").map(str::to_string),
                flag: o.attrs.value("flag").map(str::to_string),
                name: o.name,
                attrs: o.attrs,
            }),
            _ => out.others.push(o),
        }
    }
    Ok(out)
}

fn queue(o: QmgrObject, file: &str) -> Result<QueuePrint, FormatError> {
    let priority = match o.attrs.get("Priority") {
        None => None,
        Some(a) => Some(a.value.trim().parse::<i64>().map_err(|_| {
            FormatError::line(
                file,
                a.line,
                format!("queue {}: Priority `{}` is not an integer", o.name, a.value),
            )
        })?),
    };
    Ok(QueuePrint {
        queue_type: o.attrs.value("queue_type").map(str::to_string),
        priority,
        enabled: typed_bool(&o.attrs, "enabled", file)?,
        started: typed_bool(&o.attrs, "started", file)?,
        name: o.name,
        attrs: o.attrs,
    })
}

/// A boolean attribute of `attrs`, when set; an error naming its line when not a PBS boolean.
pub(crate) fn typed_bool(
    attrs: &Attrs,
    name: &str,
    file: &str,
) -> Result<Option<bool>, FormatError> {
    match attrs.get(name) {
        None => Ok(None),
        Some(a) => pbs_bool(&a.value).map(Some).ok_or_else(|| {
            FormatError::line(
                file,
                a.line,
                format!("{name} `{}` is not True or False", a.value),
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "#\n# Create resources and set their properties.\n#\n\
        create resource foo\nset resource foo type = long\nset resource foo flag = h\n\
        create queue workq\nset queue workq queue_type = Execution\nset queue workq enabled = True\n\
        set queue workq started = True\ncreate queue high\nset queue high queue_type = Route\n\
        set queue high Priority = 100\nset queue high max_run = [u:PBS_GENERIC=2]\n\
        set server job_sort_formula = \"10*ncpus + walltime/3600\"\n\
        set server eligible_time_enable = True\nset server resources_available.ncpus = 4\n";

    #[test]
    fn queues_in_creation_order_and_server_attributes() {
        let s = read_print_server(TEXT, FILE).unwrap();
        let names: Vec<&str> = s.queues.iter().map(|q| q.name.as_str()).collect();
        assert_eq!(names, ["workq", "high"]);
        let w = &s.queues[0];
        assert_eq!(
            (w.priority, w.enabled, w.started),
            (None, Some(true), Some(true))
        );
        let h = s.queue("high").unwrap();
        assert_eq!(
            (h.queue_type.as_deref(), h.priority),
            (Some("Route"), Some(100))
        );
        assert_eq!(h.attrs.value("max_run"), Some("[u:PBS_GENERIC=2]"));
        assert_eq!(s.job_sort_formula(), Some("10*ncpus + walltime/3600"));
        assert!(s.eligible_time_enable().unwrap());
        assert_eq!(s.server.value("resources_available.ncpus"), Some("4"));
        assert_eq!(s.resources.len(), 1);
        assert_eq!(
            (
                s.resources[0].kind.as_deref(),
                s.resources[0].flag.as_deref()
            ),
            (Some("long"), Some("h"))
        );
    }

    #[test]
    fn bad_priority_or_boolean_names_its_line() {
        let e =
            read_print_server("create queue q\nset queue q Priority = high\n", FILE).unwrap_err();
        assert_eq!(
            e.to_string(),
            "print_server:2: queue q: Priority `high` is not an integer"
        );
        let e = read_print_server("create queue q\nset queue q started = sometimes\n", FILE)
            .unwrap_err();
        assert_eq!(e.line_number(), Some(2));
        let s = read_print_server("set server eligible_time_enable = maybe\n", FILE).unwrap();
        assert!(s.eligible_time_enable().is_err());
    }
}
