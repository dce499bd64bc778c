//! Arming: a scenario file describes a family of runs (`"30..50"`, `"5m..6m"`); the seed
//! picks one member. Every pick happens here, once, in one fixed order, so the simulator
//! and the live server play the very same member for the same seed. Nothing else in
//! faultline draws from the scenario's random stream.
//!
//! The order is part of the format's contract (changing it changes which member a seed
//! names): the server's session-id seed; the client's start; the workload in file order
//! (a call's time, then a long job's step count; a notify's or a tenant's start, then its
//! count); the
//! faults in file order (the client's `away` first, then the trigger's time or event count);
//! last, the load balancer's seed (drawn last so that adding it moved nothing before it).

use std::fmt;
use std::sync::Arc;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::Rng;

use faultline_model::{DurationMs, FleetKnobs};

use crate::fault_shape::FaultWhen;
use crate::faults::{self, FaultAction};
use crate::pick::PickCount;
use crate::scenario::{CutAt, Scenario, StreamSel, Tool, Trigger, Work};

/// A scenario with every range picked.
#[derive(Debug, Clone)]
pub struct Armed {
    /// Seeds the server model's session-id generator.
    pub server_seed: u64,
    /// When the modelled client sends `initialize`.
    pub client_start_ms: u64,
    /// The workload's tool calls, in file order (`Call(k)` is `calls[k]`).
    pub calls: Vec<ArmedCall>,
    /// The workload's notification schedules, in file order.
    pub notifies: Vec<ArmedNotify>,
    /// The workload's tenants (other clients of the fleet), in file order: each joins at
    /// `from_ms` and gets `count` notifications.
    pub tenants: Vec<ArmedNotify>,
    /// Every fault, in file order.
    pub faults: Vec<ArmedFault>,
    /// What the seed chose, for reports (told in words by `Display`).
    pub choices: Vec<ArmedChoice>,
    /// The replicas behind the address and the balancer in front of them.
    pub fleet: FleetKnobs,
    /// Salts the balancer's hashes (drawn last).
    pub balancer_seed: u64,
}

impl Armed {
    /// Events the scenario will have the server produce, at least (its notifications and
    /// its calls' job output),
    /// capped: a capacity hint so that a long run's ledger and records are allocated once
    /// rather than regrown and copied a dozen times. Never a limit.
    pub fn events_hint(&self) -> usize {
        const CAP: u64 = 1 << 16;
        // Each call's job writes a progress event a step and its result (a priming event
        // before them on a priming server): a call re-issued writes them again, so this
        // stays a floor.
        let job_output = |call: &ArmedCall| match &call.tool {
            Tool::Echo { .. } => 2,
            Tool::LongJob { steps, .. } => steps.lo.saturating_add(2),
            Tool::PlaceOrder { steps, .. } => u64::from(*steps).saturating_add(2),
        };
        let notifications = self
            .notifies
            .iter()
            .fold(0u64, |n, plan| n.saturating_add(plan.count));
        self.calls
            .iter()
            .fold(notifications, |n, call| n.saturating_add(job_output(call)))
            .min(CAP) as usize
    }

    /// Requests the modelled client will send, at least: the handshake (`initialize`,
    /// `notifications/initialized`, the standalone GET) and, per call, the call and a
    /// resumption. A capacity hint like [`events_hint`](Self::events_hint) (a seed's
    /// ledger answers and client record otherwise grow three or four times), never a limit.
    pub fn requests_hint(&self) -> usize {
        self.calls
            .len()
            .saturating_mul(2)
            .saturating_add(4)
            .min(1 << 12)
    }
}

/// One workload call: when the application makes it, and with what.
#[derive(Debug, Clone)]
pub struct ArmedCall {
    pub at_ms: u64,
    /// The tool with its step count fixed.
    pub tool: Tool,
    pub progress: bool,
}

/// One notification schedule: `count` notifications, the first at `from_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArmedNotify {
    pub from_ms: u64,
    pub every_ms: u64,
    pub count: u64,
}

/// When an armed fault fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArmedTrigger {
    /// At this virtual time.
    At(u64),
    /// Right after the `n`-th event (1-based ordinal) of a stream matching `on` is put on
    /// a connection.
    AfterEvent { n: u32, on: StreamSel },
    /// In force for the whole run: it strikes whenever its action says it is due
    /// ([`FaultAction::due`]), as often as that comes (an idle proxy).
    Standing,
}

/// One choice a seed made that a report tells: a call's time and its long job's length.
/// Kept as numbers and put in words only when a report prints it (the explorer arms a
/// scenario per seed and never prints one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArmedChoice {
    /// The call's index in the workload (`Call(k)`).
    pub call: usize,
    pub at_ms: u64,
    pub steps: u64,
}

impl fmt::Display for ArmedChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "call {} at {}: long_job {} steps",
            self.call,
            DurationMs(self.at_ms),
            self.steps
        )
    }
}

/// One fault with its choices made.
#[derive(Debug, Clone)]
pub struct ArmedFault {
    pub trigger: ArmedTrigger,
    /// How long the modelled client stays off the network after the fault.
    pub away_ms: Option<u64>,
    pub action: Arc<dyn FaultAction>,
}

/// Picks every range of `scenario` from `seed`.
pub fn arm(scenario: &Scenario, seed: u64) -> Armed {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let server_seed = rng.next_u64();
    let client_start_ms = scenario.client.start_at.pick(&mut rng);
    let mut calls = Vec::new();
    let mut notifies = Vec::new();
    let mut tenants = Vec::new();
    let mut choices = Vec::new();
    for work in &scenario.workload {
        match work {
            Work::CallTool { at, tool, progress } => {
                let at_ms = at.pick(&mut rng);
                let tool = match tool {
                    Tool::LongJob { steps, interval } => {
                        let n = steps.pick(&mut rng);
                        choices.push(ArmedChoice {
                            call: calls.len(),
                            at_ms,
                            steps: n,
                        });
                        Tool::LongJob {
                            steps: PickCount::fixed(n),
                            interval: *interval,
                        }
                    }
                    other => other.clone(),
                };
                calls.push(ArmedCall {
                    at_ms,
                    tool,
                    progress: *progress,
                });
            }
            Work::Notify { from, every, count } => {
                let from_ms = from.pick(&mut rng);
                let count = count.pick(&mut rng);
                notifies.push(ArmedNotify {
                    from_ms,
                    every_ms: every.ms().max(1),
                    count,
                });
            }
            Work::Tenant { at, every, count } => {
                let from_ms = at.pick(&mut rng);
                let count = count.pick(&mut rng);
                tenants.push(ArmedNotify {
                    from_ms,
                    every_ms: every.ms().max(1),
                    count,
                });
            }
        }
    }
    let mut armed_faults = Vec::with_capacity(scenario.faults.len());
    for fault in &scenario.faults {
        // The client's away window, for the kinds that have one (`Fault::away`).
        let away_ms = fault.away().flatten().map(|a| a.pick(&mut rng));
        let trigger = match fault.when() {
            FaultWhen::Trigger(Trigger::At(t)) | FaultWhen::At(t) => {
                ArmedTrigger::At(t.pick(&mut rng))
            }
            FaultWhen::Trigger(Trigger::AfterEvent { n, on }) => ArmedTrigger::AfterEvent {
                n: u32::try_from(n.pick(&mut rng)).unwrap_or(u32::MAX),
                on: *on,
            },
            // In force from the start, acting when its action says (draws nothing).
            FaultWhen::Always => ArmedTrigger::Standing,
            // A cut after the call's n-th progress event is an `AfterEvent` on its stream:
            // a 2026-07-28 request stream has no priming event, so event n is progress n.
            FaultWhen::Cut {
                at: CutAt::At(t), ..
            } => ArmedTrigger::At(t.pick(&mut rng)),
            FaultWhen::Cut {
                call,
                at: CutAt::AfterProgress(n),
            } => ArmedTrigger::AfterEvent {
                n: u32::try_from(n.pick(&mut rng)).unwrap_or(u32::MAX),
                on: StreamSel::Call(call),
            },
        };
        armed_faults.push(ArmedFault {
            trigger,
            away_ms,
            action: faults::action_of(fault),
        });
    }
    let balancer_seed = rng.next_u64();
    Armed {
        server_seed,
        client_start_ms,
        calls,
        notifies,
        tenants,
        faults: armed_faults,
        choices,
        fleet: scenario.fleet,
        balancer_seed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_events_hint_counts_notifications_and_job_output_and_is_capped() {
        let mut armed = Armed {
            server_seed: 0,
            client_start_ms: 0,
            calls: Vec::new(),
            notifies: Vec::new(),
            tenants: Vec::new(),
            faults: Vec::new(),
            choices: Vec::new(),
            fleet: FleetKnobs::default(),
            balancer_seed: 0,
        };
        assert_eq!(armed.events_hint(), 0);
        let plan = |count| ArmedNotify {
            from_ms: 0,
            every_ms: 1,
            count,
        };
        armed.notifies = vec![plan(4_000), plan(473)];
        assert_eq!(armed.events_hint(), 4_473);
        // A long job's 81 progress events, its result and a priming event.
        armed.calls.push(ArmedCall {
            at_ms: 0,
            tool: Tool::LongJob {
                steps: crate::pick::PickCount::fixed(81),
                interval: DurationMs::from_mins(1),
            },
            progress: true,
        });
        assert_eq!(armed.events_hint(), 4_473 + 83);
        armed.notifies.push(plan(u64::MAX));
        assert_eq!(armed.events_hint(), 1 << 16);
    }

    fn family() -> Scenario {
        Scenario::parse(
            r#"Scenario(name: "t", summary: "t",
                client: (start_at: "0s..10s"),
                workload: [
                    CallTool(at: "1s..2s", tool: LongJob(steps: "10..90", interval: "1s")),
                    Notify(from: "1s..9s", every: "1s", count: "1..9"),
                ],
                faults: [
                    Drop(when: AfterEvent(n: "1..40"), mode: Reset, away: Some("1m..9m")),
                    Gc(when: At("1h..2h")),
                ])"#,
            "t.ron",
        )
        .expect("valid")
    }

    fn fingerprint(a: &Armed) -> String {
        format!(
            "{} {} {:?} {:?} {:?}",
            a.server_seed,
            a.client_start_ms,
            a.calls
                .iter()
                .enumerate()
                .map(|(k, c)| (c.at_ms, c.tool.wire_call(k)))
                .collect::<Vec<_>>(),
            a.notifies,
            a.faults
                .iter()
                .map(|f| (f.trigger, f.away_ms))
                .collect::<Vec<_>>()
        )
    }

    /// A seed's choice is the call's picked time and step count, put in the words a report
    /// prints ("seed chose: ...") only when asked.
    #[test]
    fn a_choice_is_the_picked_call_in_the_reports_words() {
        let armed = arm(&family(), 7);
        let call = &armed.calls[0];
        let Tool::LongJob { steps, .. } = &call.tool else {
            panic!("a long job: {:?}", call.tool);
        };
        assert_eq!(
            armed.choices,
            vec![ArmedChoice {
                call: 0,
                at_ms: call.at_ms,
                steps: steps.lo,
            }]
        );
        let choice = ArmedChoice {
            call: 2,
            at_ms: 90_000,
            steps: 81,
        };
        assert_eq!(choice.to_string(), "call 2 at 1m30s: long_job 81 steps");
    }

    #[test]
    fn same_seed_same_member_other_seed_other_member() {
        let s = family();
        assert_eq!(fingerprint(&arm(&s, 7)), fingerprint(&arm(&s, 7)));
        assert_ne!(fingerprint(&arm(&s, 7)), fingerprint(&arm(&s, 8)));
    }

    /// The balancer's seed is drawn after everything else, so a fleet changes no other
    /// pick: the same file with and without `fleet` arms the same member.
    #[test]
    fn the_balancer_seed_is_drawn_last() {
        let single = family();
        let text = r#"Scenario(name: "t", summary: "t",
                fleet: (replicas: 3, balancer: StickySessionId, session_store: Shared),
                client: (start_at: "0s..10s"),
                workload: [
                    CallTool(at: "1s..2s", tool: LongJob(steps: "10..90", interval: "1s")),
                    Notify(from: "1s..9s", every: "1s", count: "1..9"),
                ],
                faults: [
                    Drop(when: AfterEvent(n: "1..40"), mode: Reset, away: Some("1m..9m")),
                    Gc(when: At("1h..2h")),
                ])"#;
        let fleet = Scenario::parse(text, "t.ron").expect("valid");
        for seed in 0..50 {
            let (a, b) = (arm(&single, seed), arm(&fleet, seed));
            assert_eq!(fingerprint(&a), fingerprint(&b));
            assert_eq!(a.balancer_seed, b.balancer_seed);
            assert_eq!(b.fleet.replicas, 3);
            assert!(!a.fleet.is_multi());
        }
        assert_ne!(arm(&fleet, 1).balancer_seed, arm(&fleet, 2).balancer_seed);
    }

    #[test]
    fn picks_stay_inside_their_ranges() {
        let s = family();
        for seed in 0..200 {
            let a = arm(&s, seed);
            assert!(a.client_start_ms <= 10_000);
            assert!((1_000..=2_000).contains(&a.calls[0].at_ms));
            let (_, args) = a.calls[0].tool.wire_call(0);
            assert!((10..=90).contains(&args["steps"].as_u64().expect("steps")));
            assert!((1..=9).contains(&a.notifies[0].count));
            match a.faults[0].trigger {
                ArmedTrigger::AfterEvent { n, on } => {
                    assert!((1..=40).contains(&n));
                    assert_eq!(on, StreamSel::Any);
                }
                other => panic!("unexpected trigger {other:?}"),
            }
            assert!((60_000..=540_000).contains(&a.faults[0].away_ms.expect("away")));
            assert!(
                matches!(a.faults[1].trigger, ArmedTrigger::At(t) if (3_600_000..=7_200_000).contains(&t))
            );
        }
    }
}
