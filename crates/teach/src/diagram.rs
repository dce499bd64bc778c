//! The sequence diagram as data, before any pixels: lanes (one per actor) and rows (one
//! per thing that happened, in virtual-time order).
//!
//! Keeping the picture's content separate from its layout lets the same diagram become an
//! SVG for documents or an HTML page with hover details, and lets tests ask "is the 404
//! marked as harm?" without parsing geometry.

use faultline_sim::Task;

/// An actor with its own vertical lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lane {
    Task(Task),
    /// A real client, seen from the server (a graded run): one lane, whatever it runs.
    Client,
    Network,
    /// A fleet's load balancer: requests cross it on their way to a replica.
    Balancer,
    Server,
    /// One replica of a fleet, in place of [`Lane::Server`] when the trace has routes.
    Replica(u8),
    Store,
    Log,
}

impl Lane {
    pub fn title(self) -> String {
        match self {
            Lane::Task(t) => format!("client: {}", t.label()),
            Lane::Client => "client under test".into(),
            Lane::Network => "network".into(),
            Lane::Balancer => "load balancer".into(),
            Lane::Server => "HTTP server".into(),
            Lane::Replica(r) => format!("replica r{r}"),
            Lane::Store => "session store".into(),
            Lane::Log => "event log".into(),
        }
    }
}

/// What kind of harm a row shows. The names are stable: they are the `data-harm`
/// attribute of the row in the SVG.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Harm {
    /// Delivered events the client threw away (skipped as seen, or lost in flight).
    Lost,
    /// Events the client refused because their session was dead (the guard working).
    Quarantined,
    /// Produced for the client and never put on any connection it held.
    NeverDelivered,
    /// A replay after a cursor that belongs to another generation's numbering.
    CursorReuse,
    /// Events applied although their session had already died on the server.
    AppliedAfterDeath,
    /// An event applied a second time.
    Duplicate,
    /// A request answered 404/410: the session was already dead.
    DeadSession,
    /// A request sent to a session that had already answered 404/410.
    Retry,
    /// A request still carrying the old session id after the client re-initialized.
    Collision,
}

impl Harm {
    pub fn name(self) -> &'static str {
        match self {
            Harm::Lost => "lost",
            Harm::Quarantined => "quarantined",
            Harm::NeverDelivered => "never-delivered",
            Harm::CursorReuse => "cursor-reuse",
            Harm::AppliedAfterDeath => "applied-after-death",
            Harm::Duplicate => "duplicate",
            Harm::DeadSession => "dead-session",
            Harm::Retry => "retry",
            Harm::Collision => "collision",
        }
    }

    /// The badge printed at the right edge of a harmful row.
    pub fn badge(self) -> &'static str {
        match self {
            Harm::Lost => "LOST",
            Harm::Quarantined => "QUARANTINED",
            Harm::NeverDelivered => "NEVER DELIVERED",
            Harm::CursorReuse => "CURSOR REUSE",
            Harm::AppliedAfterDeath => "APPLIED FROM DEAD SESSION",
            Harm::Duplicate => "APPLIED TWICE",
            Harm::DeadSession => "DEAD SESSION",
            Harm::Retry => "RETRY INTO DEAD SESSION",
            Harm::Collision => "STALE SESSION ID",
        }
    }

    /// Quarantine is the guard doing its job: drawn as a warning, not as a loss.
    pub fn is_loss(self) -> bool {
        !matches!(self, Harm::Quarantined)
    }
}

/// How an arrow is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrowKind {
    Request,
    Response,
    /// One SSE event, or a folded run of alike events (a band).
    Event,
}

/// The tone of a note on a lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Fault,
    Neutral,
    Death,
    /// An untyped error handed to the application.
    Error,
    /// A typed resumption error: a guard fired.
    Guard,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Arrow {
        from: Lane,
        to: Lane,
        kind: ArrowKind,
        /// Events folded into this arrow (1 for a single message).
        count: u32,
        dashed: bool,
    },
    Note {
        lane: Lane,
        tone: Tone,
    },
    /// The session store's and the event log's state, side by side.
    State {
        store: String,
        log: String,
    },
    /// Rows left out to keep a huge run readable.
    Elided {
        rows: usize,
    },
}

/// One thing that happened.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub at_ms: u64,
    /// Last moment this row covers (a folded run spans time).
    pub until_ms: u64,
    pub shape: Shape,
    /// The label drawn on the diagram.
    pub label: String,
    /// Everything known about it, shown on hover.
    pub detail: String,
    pub harm: Option<Harm>,
    /// Verdict names pinned to this row (when the verdicts are known).
    pub verdicts: Vec<String>,
    /// Machine-readable attributes (`data-*` in the SVG): ids, stream, status, conn.
    pub data: Vec<(&'static str, String)>,
}

impl Row {
    pub fn new(at_ms: u64, shape: Shape, label: impl Into<String>) -> Row {
        Row {
            at_ms,
            until_ms: at_ms,
            shape,
            label: label.into(),
            detail: String::new(),
            harm: None,
            verdicts: Vec::new(),
            data: Vec::new(),
        }
    }

    pub fn is_notable(&self) -> bool {
        self.harm.is_some()
            || !self.verdicts.is_empty()
            || matches!(
                self.shape,
                Shape::Note {
                    tone: Tone::Fault | Tone::Death | Tone::Error | Tone::Guard,
                    ..
                }
            )
    }
}

/// A verdict as the diagram's legend shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct VerdictLine {
    pub kind: String,
    pub at_ms: u64,
    pub summary: String,
}

/// The whole picture.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagram {
    pub title: String,
    pub subtitle: String,
    pub lanes: Vec<Lane>,
    pub rows: Vec<Row>,
    pub verdicts: Vec<VerdictLine>,
    /// How many trace entries the diagram was drawn from.
    pub entries: usize,
    /// Prefix of the rows' element ids (`{anchor}-{index}`): distinct per diagram when
    /// several share one page.
    pub anchor: String,
}
