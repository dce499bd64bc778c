//! The knob values a probe implies, as a scenario `server:` block.
//!
//! Knobs are inferred edge by edge, not guessed as a whole: each group of knobs is tied to
//! the probe steps that reveal it (the unknown-cursor answer to `resume_unknown` and
//! `resume_malformed`, the DELETE answer to `delete`, …). The block starts from the
//! closest profile; a group takes another profile's values when that profile's real
//! server answers the group's steps more like the probed server than the closest one
//! does. A group whose steps no profile answers alike is said so, not papered over: its
//! values stay the closest profile's, marked as a guess.
//!
//! What the steps cannot show is said too: the knobs no step reveals (the TTLs, the id
//! scheme, what a restart keeps, …) are the closest profile's values, listed as such; a
//! group whose steps show only part of a value says which part (`retry:` sent or not, not
//! its value; a window of 40 events overflowed or not, not its size); and a step whose
//! row reveals nothing (a resumption with a made-up cursor) counts for no group.

use faultline_model::{ServerKnobs, profile};
use serde::Serialize;

use crate::closest::{Closeness, recorded};
use crate::row::Row;
use crate::walk::Untested;

/// A group of knobs and the steps (and, for some, the one cell) that reveal them.
struct KnobGroup {
    knobs: &'static [&'static str],
    steps: &'static [&'static str],
    /// Compare only this cell of each step (the whole row when `None`).
    cell: Option<&'static str>,
    /// What of the group's values the steps do not show, when they show only part.
    caveat: Option<&'static str>,
}

const GROUPS: &[KnobGroup] = &[
    KnobGroup {
        knobs: &[
            "all_answers_over_sse",
            "json_responses",
            "priming_events",
            "id_format",
            "retry",
        ],
        steps: &["init", "tools_list", "call", "echo"],
        cell: None,
        caveat: Some("the rows show whether `retry:` is sent, not its value"),
    },
    KnobGroup {
        knobs: &["prime_standalone", "standalone_get"],
        steps: &["get"],
        cell: None,
        caveat: None,
    },
    KnobGroup {
        knobs: &["second_standalone"],
        steps: &["get_second"],
        cell: None,
        caveat: None,
    },
    KnobGroup {
        knobs: &["replay_from_cursor", "resumed_stream_end", "prime_resumed"],
        steps: &["resume_live"],
        cell: None,
        caveat: None,
    },
    KnobGroup {
        knobs: &["keep_answered_streams"],
        steps: &["resume_finished"],
        cell: None,
        caveat: None,
    },
    KnobGroup {
        knobs: &["event_log_capacity", "evicted_cursor"],
        steps: &["resume_evicted"],
        cell: None,
        caveat: Some(
            "the step shows whether a window of 40 events overflowed, not the window's size",
        ),
    },
    KnobGroup {
        knobs: &["unknown_cursor"],
        steps: &["resume_unknown", "resume_malformed"],
        cell: None,
        caveat: None,
    },
    KnobGroup {
        knobs: &["dead_session_answer", "refusal_body", "error_codes"],
        steps: &[
            "no_session",
            "unknown_session",
            "get_unknown_session",
            "get_no_session",
            "malformed_json",
            "post_deleted",
            "get_deleted",
        ],
        cell: None,
        caveat: None,
    },
    KnobGroup {
        knobs: &["accept_wildcard"],
        steps: &["accept_json_only", "accept_any"],
        cell: None,
        caveat: None,
    },
    KnobGroup {
        knobs: &["delete_answer"],
        steps: &["delete", "delete_other"],
        cell: None,
        caveat: None,
    },
    KnobGroup {
        knobs: &["session_id_header"],
        steps: &[
            "tools_list",
            "get",
            "echo",
            "no_session",
            "unknown_session",
            "delete",
        ],
        cell: Some("sid"),
        caveat: None,
    },
    KnobGroup {
        knobs: &["get_validates_session"],
        steps: &["get_unknown_session", "get_deleted"],
        cell: None,
        caveat: None,
    },
    KnobGroup {
        knobs: &["cursors_across_sessions"],
        steps: &["resume_other_session"],
        cell: None,
        caveat: None,
    },
];

/// Copies knob `name` from `from` to `to`, and spells a knob's value as a `server:` block
/// does, from the one list of fields (`faultline_model::with_server_knob_fields`).
macro_rules! knob_access {
    ($($field:ident),* $(,)?) => {
        fn copy_knob(to: &mut ServerKnobs, from: &ServerKnobs, name: &str) {
            match name {
                $(stringify!($field) => to.$field = from.$field.clone(),)*
                other => unreachable!("no knob {other}"),
            }
        }

        /// Every knob as `(name, value)`, the value written as in a scenario file.
        pub fn knob_values(k: &ServerKnobs) -> Vec<(&'static str, String)> {
            vec![$((stringify!($field), ron::to_string(&k.$field).expect("knobs serialize"))),*]
        }
    };
}

faultline_model::with_server_knob_fields!(knob_access);

/// What the explorer's pins change from the inferred knobs, said before it runs.
pub const EXPLORE_CAVEAT: &str = "the explorer runs these knobs on one replica, with `initialize` answered as JSON (all_answers_over_sse: false): the modelled clients read it only so";

/// Where one group's values came from.
#[derive(Debug, Clone, Serialize)]
pub struct GroupSource {
    pub knobs: &'static [&'static str],
    pub steps: Vec<&'static str>,
    /// The profile whose values the group takes.
    pub profile: &'static str,
    /// How many of the group's probed steps that profile's real server answers alike.
    pub matched: usize,
    pub probed: usize,
    /// What of the values the steps do not show, when they show only part.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caveat: Option<&'static str>,
    /// Why steps of the group that have a row counted for nothing (a made-up cursor).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unrevealing: Vec<String>,
}

/// The knobs a probe implies.
#[derive(Debug, Clone, Serialize)]
pub struct InferredKnobs {
    /// The closest profile, which the block starts from.
    pub base: &'static str,
    #[serde(skip)]
    pub knobs: ServerKnobs,
    pub groups: Vec<GroupSource>,
    /// The knobs no step reveals: the base profile's values, not the server's.
    pub unprobed: Vec<&'static str>,
}

fn group_matches(
    group: &KnobGroup,
    probed: &[Row],
    theirs: &[Row],
    unrevealing: &[Untested],
) -> (usize, usize) {
    let mut matched = 0;
    let mut compared = 0;
    for step in group.steps {
        if unrevealing.iter().any(|u| u.step == *step) {
            continue;
        }
        let (Some(ours), Some(other)) = (
            probed.iter().find(|r| r.step == *step),
            theirs.iter().find(|r| r.step == *step),
        ) else {
            continue;
        };
        compared += 1;
        let same = match group.cell {
            Some(cell) => ours.cell(cell) == other.cell(cell),
            None => ours.differences(other).is_empty(),
        };
        matched += usize::from(same);
    }
    (matched, compared)
}

/// Infers knobs from `probed`, given the profiles ranked closest first; the steps in
/// `unrevealing` have rows that count for no group.
pub fn infer(probed: &[Row], ranked: &[Closeness], unrevealing: &[Untested]) -> InferredKnobs {
    let base = ranked[0].profile;
    let base_knobs = profile(base).expect("ranked profiles exist").knobs();
    let mut knobs = base_knobs.clone();
    let mut groups = Vec::new();
    for group in GROUPS {
        // Closest first, so that a tie keeps the closer profile.
        let mut best: Option<(&'static str, usize, usize)> = None;
        for c in ranked {
            let theirs = recorded(c.profile).unwrap_or_default();
            let (matched, probed_steps) = group_matches(group, probed, theirs, unrevealing);
            if best.is_none_or(|(_, m, _)| matched > m) {
                best = Some((c.profile, matched, probed_steps));
            }
        }
        let (source, matched, probed_steps) = best.expect("at least one profile");
        if source != base {
            let from = profile(source).expect("ranked profiles exist").knobs();
            for name in group.knobs {
                copy_knob(&mut knobs, &from, name);
            }
        }
        groups.push(GroupSource {
            knobs: group.knobs,
            steps: group.steps.to_vec(),
            profile: source,
            matched,
            probed: probed_steps,
            caveat: group.caveat,
            unrevealing: unrevealing
                .iter()
                .filter(|u| group.steps.contains(&u.step.as_str()))
                .map(|u| format!("{}: {}", u.step, u.reason))
                .collect(),
        });
    }
    let unprobed = knob_values(&knobs)
        .into_iter()
        .map(|(name, _)| name)
        .filter(|name| !GROUPS.iter().any(|g| g.knobs.contains(name)))
        .collect();
    InferredKnobs {
        base,
        knobs,
        groups,
        unprobed,
    }
}

impl InferredKnobs {
    /// The knobs that differ from the base profile's, written as in a scenario file.
    pub fn overrides(&self) -> Vec<(&'static str, String)> {
        let base = knob_values(&profile(self.base).expect("base exists").knobs());
        knob_values(&self.knobs)
            .into_iter()
            .filter(|kv| !base.contains(kv))
            .collect()
    }

    /// The scenario `server:` block: the base profile, each override with the steps and
    /// profile it came from, each group no profile answers alike said so, what a group's
    /// steps show only part of, and the knobs no step reveals.
    pub fn server_block(&self) -> String {
        let mut out = vec![
            "// The server knobs `faultline probe` inferred: the closest SDK profile, and each"
                .to_string(),
            "// group of knobs the probe's steps showed answered as another profile's server does."
                .to_string(),
            "server: (".to_string(),
            format!("    profile: {:?},", self.base),
        ];
        let overrides = self.overrides();
        for group in &self.groups {
            let lines: Vec<String> = overrides
                .iter()
                .filter(|(name, _)| group.knobs.contains(name))
                .map(|(name, value)| format!("    {name}: {value},"))
                .collect();
            if !lines.is_empty() {
                out.push(format!(
                    "    // {}: answered as {} does ({}/{} steps)",
                    group.steps.join(", "),
                    group.profile,
                    group.matched,
                    group.probed
                ));
                if let Some(caveat) = group.caveat {
                    out.push(format!("    // ({caveat})"));
                }
                out.extend(lines);
            } else if group.probed > 0 && group.matched == 0 {
                out.push(format!(
                    "    // {}: no profile's server answers these as this server does; {} kept, a guess",
                    group.knobs.join(", "),
                    group.profile
                ));
            } else if group.probed == 0 && !group.unrevealing.is_empty() {
                out.push(format!(
                    "    // {}: not probed: {} had no cursor of the server's to present (it put no id on the call's events); {} kept",
                    group.knobs.join(", "),
                    group.steps.join(", "),
                    group.profile
                ));
            } else if group.probed == 0 {
                out.push(format!(
                    "    // {}: not probed ({}); {} kept",
                    group.knobs.join(", "),
                    group.steps.join(", "),
                    group.profile
                ));
            } else if let Some(caveat) = group.caveat {
                out.push(format!(
                    "    // {}: answered as {} does ({}/{} steps), but {caveat}: {} kept",
                    group.knobs.join(", "),
                    group.profile,
                    group.matched,
                    group.probed,
                    self.base
                ));
            }
        }
        out.push(format!(
            "    // No step reveals these: {}'s values, not this server's:",
            self.base
        ));
        let mut line = String::from("    //");
        for (i, name) in self.unprobed.iter().enumerate() {
            let sep = if i + 1 < self.unprobed.len() { "," } else { "" };
            if line.len() + name.len() + 2 > 92 {
                out.push(std::mem::replace(&mut line, String::from("    //")));
            }
            line.push_str(&format!(" {name}{sep}"));
        }
        out.push(line);
        out.push("),".to_string());
        out.join("\n")
    }

    /// Every knob as an explorer pin (`--knob NAME=VALUE`), so that each seed runs
    /// against these knobs exactly, on one replica: the probe saw one endpoint, and what
    /// stands behind it is not something it can tell. `initialize` is answered as JSON
    /// whatever the server does ([`EXPLORE_CAVEAT`]).
    pub fn pins(&self) -> Vec<(String, String)> {
        knob_values(&self.knobs)
            .into_iter()
            .map(|(name, value)| match name {
                "all_answers_over_sse" => (name.to_string(), "false".to_string()),
                _ => (name.to_string(), value),
            })
            .chain([("replicas".to_string(), "1".to_string())])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::closest::{rank, recorded_names};

    #[test]
    fn a_real_server_infers_its_own_profile_unchanged() {
        for name in recorded_names() {
            let rows = recorded(name).unwrap();
            let inferred = infer(rows, &rank(rows), &[]);
            assert_eq!(inferred.base, name);
            assert!(
                inferred.overrides().is_empty(),
                "{name}: {:?}",
                inferred.overrides()
            );
        }
    }

    #[test]
    fn an_edge_answered_as_another_server_takes_that_servers_knobs() {
        // A python-like server that answers DELETE as rmcp does (202, not 200).
        let mut rows = recorded("python-2.3-store").unwrap().to_vec();
        for row in rows.iter_mut().filter(|r| r.step.starts_with("delete")) {
            row.status = 202;
            row.sid = "-".into();
        }
        let inferred = infer(&rows, &rank(&rows), &[]);
        assert_eq!(inferred.base, "python-2.3-store");
        assert_eq!(
            inferred.overrides(),
            vec![("delete_answer", "Accepted202".to_string())]
        );
        let block = inferred.server_block();
        assert!(
            block.contains("delete, delete_other: answered as rmcp-3.11 does (2/2 steps)"),
            "{block}"
        );
        let mut k = profile("python-2.3-store").unwrap().knobs();
        faultline_scenario::set_knob(&mut k, "delete_answer", "Accepted202").unwrap();
        assert_eq!(knob_values(&k), knob_values(&inferred.knobs));
    }

    #[test]
    fn every_override_is_written_as_the_scenario_reader_reads_it() {
        let rmcp = profile("rmcp-3.11").unwrap().knobs();
        for (name, value) in knob_values(&rmcp) {
            let mut k = ServerKnobs::default();
            faultline_scenario::set_knob(&mut k, name, &value)
                .unwrap_or_else(|e| panic!("{name}={value}: {e}"));
            assert_eq!(
                knob_values(&k).iter().find(|(n, _)| *n == name).unwrap().1,
                value
            );
        }
    }

    #[test]
    fn a_step_no_profile_answers_alike_is_called_a_guess() {
        let mut rows = recorded("ts-1.32-store").unwrap().to_vec();
        let i = rows.iter().position(|r| r.step == "delete").unwrap();
        rows[i].status = 418;
        let j = rows.iter().position(|r| r.step == "delete_other").unwrap();
        rows[j].status = 418;
        let inferred = infer(&rows, &rank(&rows), &[]);
        assert!(
            inferred
                .server_block()
                .contains("delete_answer: no profile's server")
        );
    }

    /// The knobs no step reveals are listed as the base profile's, by name: the TTLs, the
    /// id scheme, what a restart keeps. A block that kept them silently would read as
    /// though the probe had seen them.
    #[test]
    fn the_knobs_no_step_reveals_are_said_to_be_the_profiles() {
        let rows = recorded("rmcp-3.11").unwrap();
        let inferred = infer(rows, &rank(rows), &[]);
        for knob in [
            "session_idle_ttl",
            "event_log_ttl",
            "id_scheme",
            "restart_persistence",
        ] {
            assert!(
                inferred.unprobed.contains(&knob),
                "{knob}: {:?}",
                inferred.unprobed
            );
        }
        for group in GROUPS {
            for knob in group.knobs {
                assert!(!inferred.unprobed.contains(knob), "{knob} is in a group");
            }
        }
        let block = inferred.server_block();
        assert!(
            block.contains("No step reveals these: rmcp-3.11's values, not this server's:")
                && block.contains("    // session_idle_ttl, session_absolute_ttl,"),
            "{block}"
        );
    }

    /// A resumption sent with a made-up cursor (the server numbered no events) counts for
    /// no group: the group says why, and is not probed.
    #[test]
    fn a_step_with_a_made_up_cursor_counts_for_no_group() {
        let rows = recorded("ts-1.32").unwrap();
        let made_up = [Untested {
            step: "resume_evicted".to_string(),
            reason: "no cursor of its own".to_string(),
        }];
        let inferred = infer(rows, &rank(rows), &made_up);
        let group = inferred
            .groups
            .iter()
            .find(|g| g.knobs.contains(&"event_log_capacity"))
            .unwrap();
        assert_eq!(group.probed, 0);
        assert_eq!(group.unrevealing, ["resume_evicted: no cursor of its own"]);
        let block = inferred.server_block();
        assert!(
            block.contains("event_log_capacity, evicted_cursor: not probed: resume_evicted had no cursor of the server's to present"),
            "{block}"
        );
        // Without the made-up cursor the same row counts, with what it cannot show.
        let inferred = infer(rows, &rank(rows), &[]);
        assert!(
            inferred
                .server_block()
                .contains("not the window's size: ts-1.32 kept"),
            "{}",
            inferred.server_block()
        );
    }
}
