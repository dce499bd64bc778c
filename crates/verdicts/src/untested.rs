//! `untested`: nothing the scenario tests happened, so `clean` would be a claim without
//! evidence.
//!
//! A verdict is a claim. `clean` says the scenario's faults met the client's call and
//! everything produced was handed over; a run in which the client never made its call (a
//! mis-wired adapter, a swallowed exception, a client that only initializes), or in which
//! none of the scenario's faults met the client (a fault timed after an event that never
//! came: a client that sends no progress token gets no progress events to count), tested nothing.
//! Such a run is `untested`, with the reasons, wherever `clean` would have stood; so is
//! one in which some of the scenario's faults never met the client (a drop of a stream it
//! did not have open met nothing: it fired, and counts as not fired), and one in which
//! fewer calls reached the server than the scenario planned (a client that
//! closed itself after a read timeout makes no more calls: what they would have met was
//! not tested). It is
//! judged from the ledger and the faults that fired alone, for simulated and real clients
//! alike, and it replaces only `clean`: a run that lost something says so whatever fired.
//!
//! Faults in force for the whole run (`IdleProxy`) have nothing to fire: they are not
//! counted. A scenario that plans no call and no fault tested something only if the server
//! produced an event carrying data (a scripted notification) for the client to receive;
//! with none, its `clean` would be "every one of the 0 events was applied": `untested`.

use faultline_model::{HttpMethod, Ledger, RouteWhy};
use serde::Serialize;

/// What a run was meant to exercise, and what of it happened.
#[derive(Debug, Clone, Copy, Default)]
pub struct Exercise {
    /// Workload calls the scenario plans (the grading contract's call counts as one).
    pub calls_planned: usize,
    /// How many of those reached the server, when the client's side tells which request
    /// was which call (a modelled client's record; a real client's call of a job tool,
    /// whose jobs the ledger names). `None`: the `tools/call` requests the server
    /// answered are counted, a retry as another call.
    pub calls_reached: Option<usize>,
    /// The scenario's faults that fire at a moment (not the standing ones).
    pub faults_planned: usize,
    /// How many of those fired.
    pub faults_fired: usize,
    /// Which of those never met the client: bit `i` for the scenario's `faults[i]` (the
    /// first 64), so that the reason can name them.
    pub faults_unmet: u64,
    /// Of those, the ones that fired and found nothing to cut (a drop of a stream the
    /// client did not have open); the others never fired.
    pub faults_cut_nothing: u64,
    /// What of the client the scenario's faults act on (for `not_applicable`; a modelled
    /// client can do everything, so the simulator leaves it empty).
    pub needs: crate::not_applicable::Needs,
    /// The protocol era the scenario's faults break, `None` when a client of either era
    /// meets them (for `other_era`; the simulator's modelled client speaks the scenario's
    /// era, so it leaves it `None`).
    pub era: Option<faultline_model::RequestEra>,
}

/// Why a run tested nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Untested {
    /// Each reason in one sentence.
    pub reasons: Vec<String>,
    pub calls_planned: usize,
    /// Calls that reached the server ([`Exercise::calls_reached`], or the `tools/call`
    /// requests it answered).
    pub calls_made: usize,
    pub faults_planned: usize,
    pub faults_fired: usize,
}

impl Untested {
    pub fn sentence(&self) -> String {
        // Some call was made and no fault failed to fire: only part of it is missing.
        let partly = self.calls_made > 0 && (self.faults_fired > 0 || self.faults_planned == 0);
        let what = if partly {
            "not all the scenario tests happened"
        } else {
            "nothing the scenario tests happened"
        };
        format!(
            "{what}: {}; `clean` would claim what was not exercised",
            self.reasons.join("; ")
        )
    }
}

/// The run's `untested`, if it tested nothing (see the module doc).
pub fn untested(ledger: &Ledger, exercise: Exercise) -> Option<Untested> {
    let calls_made = exercise.calls_reached.unwrap_or_else(|| {
        ledger
            .answers
            .iter()
            .filter(|a| a.rpc_method.as_deref() == Some("tools/call"))
            .count()
    });
    // POSTs a fleet's balancer answered itself (503, no replica up): no server read
    // them, so the ledger has no JSON-RPC method for them, but the client sent them.
    let refused_by_balancer = ledger
        .answers
        .iter()
        .filter(|a| {
            a.method == HttpMethod::Post && a.route.is_some_and(|r| r.why == RouteWhy::NoneHealthy)
        })
        .count();
    let mut reasons = Vec::new();
    if exercise.calls_planned > 0 && calls_made == 0 && refused_by_balancer > 0 {
        reasons.push(format!(
            "no call of the scenario's reached a server ({} planned): the balancer refused the client's {refused_by_balancer} POST(s) itself, 503 with no replica up",
            exercise.calls_planned
        ));
    } else if exercise.calls_planned > 0 && calls_made == 0 && exercise.faults_fired > 0 {
        // A fault fired: it may be what answered the call (a proxy window answers requests
        // itself, and the ledger holds only what the server answered), so "never made"
        // would claim more than the ledger shows.
        reasons.push(format!(
            "no call of the scenario's reached the server ({} planned): the client never made it, or a fault in front of the server (a proxy window) answered it, which the server's ledger cannot show",
            exercise.calls_planned
        ));
    } else if exercise.calls_planned > 0 && calls_made == 0 {
        reasons.push(format!(
            "the client never made the scenario's call (no call of the scenario's reached the server; {} planned)",
            exercise.calls_planned
        ));
    } else if calls_made < exercise.calls_planned {
        // Fewer calls reached the server than were planned (counted by call where the
        // client's side tells them apart; otherwise retries only add): at least
        // one was never made or never got past what stands in front of the server, and
        // what it would have met was not tested.
        reasons.push(format!(
            "only {calls_made} of the scenario's {} planned calls reached the server: at least one was never made{}",
            exercise.calls_planned,
            if exercise.faults_fired > 0 {
                ", or a fault in front of the server answered it"
            } else {
                ""
            }
        ));
    }
    let produced = ledger.data_events();
    if exercise.calls_planned == 0 && exercise.faults_planned == 0 && produced == 0 {
        // A scenario that plans nothing (the shrinker can take a workload and its faults
        // away) exercises nothing unless the server produced something on its own: `clean`
        // over nothing would say "every one of the 0 events was applied".
        reasons.push(
            "the scenario plans no call and no fault, and the server produced no event carrying data for the client: there was nothing to lose"
                .to_string(),
        );
    }
    if exercise.faults_planned > 0 && exercise.faults_fired == 0 {
        reasons.push(format!(
            "none of the scenario's {} fault(s) met the client{}",
            exercise.faults_planned,
            how_unmet(exercise)
        ));
    } else if exercise.faults_fired < exercise.faults_planned {
        // One fault that met nothing is a part of the scenario not tested: `clean` would
        // claim the client came through faults it never met.
        reasons.push(format!(
            "{} of the scenario's {} faults never met the client{}: what it would have done there was not tested",
            exercise.faults_planned - exercise.faults_fired,
            exercise.faults_planned,
            how_unmet(exercise)
        ));
    }
    (!reasons.is_empty()).then_some(Untested {
        reasons,
        calls_planned: exercise.calls_planned,
        calls_made,
        faults_planned: exercise.faults_planned,
        faults_fired: exercise.faults_fired,
    })
}

/// Why a fault meets nothing: it waited for what never came.
const NEVER_FIRED: &str = "never fired: it waited for what never came (an event of a stream the client never opened, progress of a call made without a progress token, or a time after the client had left)";
/// Or it came and found nothing of the client's to act on.
const CUT_NOTHING: &str =
    "fired and cut nothing: the client had no stream of the kind it drops open then";

/// `: faults[1] fired and cut nothing ...; faults[3] never fired ...` for the unmet faults,
/// each with the way it missed, or both ways when the faults are not known by place.
fn how_unmet(exercise: Exercise) -> String {
    let named = |mask: u64| -> Vec<String> {
        (0..64)
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| format!("faults[{i}]"))
            .collect()
    };
    let missed = named(exercise.faults_unmet & exercise.faults_cut_nothing);
    let never = named(exercise.faults_unmet & !exercise.faults_cut_nothing);
    if missed.is_empty() && never.is_empty() {
        return format!(" (a fault that {NEVER_FIRED}, or that {CUT_NOTHING})");
    }
    let mut parts = Vec::new();
    if !missed.is_empty() {
        parts.push(format!("{} {CUT_NOTHING}", missed.join(", ")));
    }
    if !never.is_empty() {
        parts.push(format!("{} {NEVER_FIRED}", never.join(", ")));
    }
    format!(": {}", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use faultline_model::{AnswerEntry, HttpMethod, Ledger, ReplicaId, Route, RouteWhy};

    use super::{Exercise, untested};

    /// One call planned and every fault fired; the client's only POST answered as `answer`.
    fn judged(answer: AnswerEntry) -> Vec<String> {
        let ledger = Ledger {
            answers: vec![answer],
            ..Ledger::default()
        };
        let exercise = Exercise {
            calls_planned: 1,
            faults_planned: 1,
            faults_fired: 1,
            ..Exercise::default()
        };
        untested(&ledger, exercise).map_or(Vec::new(), |u| u.reasons)
    }

    /// A POST the balancer refused itself (no replica up) was sent: the reason says no
    /// call reached a server, not that the client never made it.
    #[test]
    fn a_call_the_balancer_refused_was_made() {
        let refused = AnswerEntry {
            route: Some(Route {
                replica: ReplicaId(0),
                why: RouteWhy::NoneHealthy,
            }),
            ..crate::test_answer::answer(1, 60_000, 503)
        };
        let reasons = judged(refused);
        assert_eq!(reasons.len(), 1);
        assert!(
            reasons[0].contains("the balancer refused"),
            "{}",
            reasons[0]
        );
        assert!(!reasons[0].contains("never made"), "{}", reasons[0]);
        // A GET (no call) is not a call refused: the client never made its call.
        let get = AnswerEntry {
            method: HttpMethod::Get,
            ..crate::test_answer::answer(1, 60_000, 200)
        };
        assert!(judged(get)[0].contains("a proxy window"));
        // With no fault fired, nothing stood in front of the server: never made.
        let ledger = Ledger {
            answers: vec![AnswerEntry {
                method: HttpMethod::Get,
                ..crate::test_answer::answer(1, 60_000, 200)
            }],
            ..Ledger::default()
        };
        let quiet = Exercise {
            calls_planned: 1,
            faults_planned: 1,
            ..Exercise::default()
        };
        let reasons = untested(&ledger, quiet).unwrap().reasons;
        assert!(
            reasons[0].contains("never made the scenario's call"),
            "{reasons:?}"
        );
    }

    /// Nothing planned and nothing produced is `untested`; a scripted notification the
    /// server produced is something to have received, and a planned call or fault makes the
    /// other reasons the ones that count.
    #[test]
    fn a_run_that_planned_and_produced_nothing_tested_nothing() {
        let nothing = Exercise::default();
        let empty = Ledger::default();
        let reasons = untested(&empty, nothing)
            .expect("nothing was exercised")
            .reasons;
        assert_eq!(reasons.len(), 1);
        assert!(
            reasons[0].contains("plans no call and no fault"),
            "{}",
            reasons[0]
        );

        let notified = Ledger {
            events: vec![crate::test_records::notification(0, 0, 1_000)],
            ..Ledger::default()
        };
        assert!(notified.events[0].payload.carries_data());
        assert_eq!(untested(&notified, nothing), None);

        let fault_fired = Exercise {
            faults_planned: 1,
            faults_fired: 1,
            ..Exercise::default()
        };
        assert_eq!(untested(&empty, fault_fired), None);
    }

    /// A call made and one of two faults met: part of the scenario was not tested, and
    /// `untested` says which part; both met is nothing to say.
    #[test]
    fn a_fault_that_never_met_the_client_leaves_the_run_untested() {
        let ledger = Ledger {
            answers: vec![crate::test_answer::answer(1, 60_000, 200)],
            ..Ledger::default()
        };
        let mut ledger = ledger;
        ledger.answers[0].rpc_method = Some("tools/call".into());
        let half = Exercise {
            calls_planned: 1,
            faults_planned: 2,
            faults_fired: 1,
            faults_unmet: 0b10,
            ..Exercise::default()
        };
        let found = untested(&ledger, half).expect("one fault never met the client");
        assert_eq!(found.reasons.len(), 1, "{found:?}");
        assert!(
            found.reasons[0].starts_with(
                "1 of the scenario's 2 faults never met the client: faults[1] never fired: it waited for what never came"
            ),
            "{}",
            found.reasons[0]
        );
        // The way it missed is named: a fault that fired and cut nothing says so.
        let cut_nothing = Exercise {
            faults_cut_nothing: 0b10,
            ..half
        };
        let found = untested(&ledger, cut_nothing).expect("it met nothing");
        assert!(
            found.reasons[0].starts_with(
                "1 of the scenario's 2 faults never met the client: faults[1] fired and cut nothing: the client had no stream"
            ),
            "{}",
            found.reasons[0]
        );
        assert!(
            !found.reasons[0].contains("never fired"),
            "{}",
            found.reasons[0]
        );
        assert!(
            found
                .sentence()
                .starts_with("not all the scenario tests happened"),
            "{}",
            found.sentence()
        );
        let all = Exercise {
            faults_fired: 2,
            faults_unmet: 0,
            ..half
        };
        assert_eq!(untested(&ledger, all), None);
    }
}
