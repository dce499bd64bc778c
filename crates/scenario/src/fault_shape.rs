//! The parts every fault kind shares, said once: when it fires and how long the client is
//! away after it.
//!
//! A fault's file format is one RON variant per kind (`Drop(when: …, away: …)`), and its
//! behaviour is one file in `faults/`. What arming, the shrinker, the explorer and the
//! testkit need of *every* fault (its moment, its away window) is asked here, through one
//! exhaustive match each, so that the copies cannot drift: a kind that sends the client
//! away is armed, shrunk and described by the same answer. Adding a fault kind means one
//! arm in each function below, and the compiler points at them.

use crate::pick::{PickCount, PickDuration};
use crate::scenario::{CutAt, Fault, Trigger};

/// When a fault fires, whatever its kind.
#[derive(Debug, Clone, Copy)]
pub enum FaultWhen<'a> {
    /// A [`Trigger`]: a virtual time, or right after an event.
    Trigger(&'a Trigger),
    /// A virtual time of its own (`StaleTask`, `ChangeList`).
    At(&'a PickDuration),
    /// A 2026-07-28 request stream's cut (`CutCall`): the workload call whose stream it
    /// cuts, and when.
    Cut { call: usize, at: &'a CutAt },
    /// In force for the whole run (`IdleProxy`).
    Always,
}

/// [`FaultWhen`], to change in place (the shrinker moves faults earlier).
#[derive(Debug)]
pub enum FaultWhenMut<'a> {
    Trigger(&'a mut Trigger),
    At(&'a mut PickDuration),
    Cut(&'a mut CutAt),
    Always,
}

impl<'a> FaultWhenMut<'a> {
    /// The fault's time, when it is one (`At`), or its event count (`AfterEvent`,
    /// `AfterProgress`), to change in place.
    pub fn moment(self) -> Option<Moment<'a>> {
        match self {
            FaultWhenMut::Trigger(Trigger::At(t))
            | FaultWhenMut::At(t)
            | FaultWhenMut::Cut(CutAt::At(t)) => Some(Moment::Time(t)),
            FaultWhenMut::Trigger(Trigger::AfterEvent { n, .. })
            | FaultWhenMut::Cut(CutAt::AfterProgress(n)) => Some(Moment::Count(n)),
            FaultWhenMut::Always => None,
        }
    }
}

/// A fault's moment as written: a time, or a count of events.
#[derive(Debug)]
pub enum Moment<'a> {
    Time(&'a mut PickDuration),
    Count(&'a mut PickCount),
}

impl Fault {
    /// When the fault fires.
    pub fn when(&self) -> FaultWhen<'_> {
        match self {
            Fault::Drop { when, .. }
            | Fault::Restart { when, .. }
            | Fault::Gc { when }
            | Fault::ReplicaDown { when, .. }
            | Fault::RollingDeploy { when, .. }
            | Fault::StickyLost { when }
            | Fault::Scale { when, .. }
            | Fault::DropListen { when, .. }
            | Fault::PurgeTasks { when }
            | Fault::Proxy502 { when, .. }
            | Fault::RollEra { when, .. } => FaultWhen::Trigger(when),
            Fault::StaleTask { at, .. } | Fault::ChangeList { at, .. } => FaultWhen::At(at),
            Fault::CutCall { call, at, .. } => FaultWhen::Cut { call: *call, at },
            Fault::IdleProxy { .. } | Fault::IdleProxySse { .. } => FaultWhen::Always,
        }
    }

    /// [`Fault::when`], to change in place.
    pub fn when_mut(&mut self) -> FaultWhenMut<'_> {
        match self {
            Fault::Drop { when, .. }
            | Fault::Restart { when, .. }
            | Fault::Gc { when }
            | Fault::ReplicaDown { when, .. }
            | Fault::RollingDeploy { when, .. }
            | Fault::StickyLost { when }
            | Fault::Scale { when, .. }
            | Fault::DropListen { when, .. }
            | Fault::PurgeTasks { when }
            | Fault::Proxy502 { when, .. }
            | Fault::RollEra { when, .. } => FaultWhenMut::Trigger(when),
            Fault::StaleTask { at, .. } | Fault::ChangeList { at, .. } => FaultWhenMut::At(at),
            Fault::CutCall { at, .. } => FaultWhenMut::Cut(at),
            Fault::IdleProxy { .. } | Fault::IdleProxySse { .. } => FaultWhenMut::Always,
        }
    }

    /// How long the client stays away after the fault, for the kinds that can send it
    /// away (`None` for the others; `Some(None)` for one that could and does not).
    pub fn away(&self) -> Option<Option<PickDuration>> {
        match self {
            Fault::Drop { away, .. }
            | Fault::Restart { away, .. }
            | Fault::CutCall { away, .. }
            | Fault::DropListen { away, .. }
            | Fault::RollEra { away, .. } => Some(*away),
            Fault::Gc { .. }
            | Fault::StaleTask { .. }
            | Fault::ReplicaDown { .. }
            | Fault::RollingDeploy { .. }
            | Fault::StickyLost { .. }
            | Fault::Scale { .. }
            | Fault::ChangeList { .. }
            | Fault::IdleProxy { .. }
            | Fault::IdleProxySse { .. }
            | Fault::Proxy502 { .. }
            | Fault::PurgeTasks { .. } => None,
        }
    }

    /// [`Fault::away`], to change in place.
    pub fn away_mut(&mut self) -> Option<&mut Option<PickDuration>> {
        match self {
            Fault::Drop { away, .. }
            | Fault::Restart { away, .. }
            | Fault::CutCall { away, .. }
            | Fault::DropListen { away, .. }
            | Fault::RollEra { away, .. } => Some(away),
            Fault::Gc { .. }
            | Fault::StaleTask { .. }
            | Fault::ReplicaDown { .. }
            | Fault::RollingDeploy { .. }
            | Fault::StickyLost { .. }
            | Fault::Scale { .. }
            | Fault::ChangeList { .. }
            | Fault::IdleProxy { .. }
            | Fault::IdleProxySse { .. }
            | Fault::Proxy502 { .. }
            | Fault::PurgeTasks { .. } => None,
        }
    }
}
